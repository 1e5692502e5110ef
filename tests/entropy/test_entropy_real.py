"""One real step-wise SE step with the smallest embedded model (slow)."""

import math

import pytest

from llmcreativity.entropy import (
    MACGYVER_PROMPT,
    STEP_SAMPLING,
    LLMEntailmentJudge,
    StepwiseSettings,
    macgyver_problems,
    run_step,
)


@pytest.mark.slow
def test_real_model_step_yields_log_probabilities_and_finite_entropy():
    from llmcreativity.llm import get_backend

    lm = get_backend("smollm2-135m")
    judge = LLMEntailmentJudge(lm)
    step = run_step(lm, judge, macgyver_problems(limit=1)[0], MACGYVER_PROMPT,
                    StepwiseSettings(STEP_SAMPLING.merge(n=3, max_tokens=6, temperature=1.0)), [], 1)
    assert len(step.candidates) == 3
    assert all(v <= 0 for c in step.candidates for v in c.logprobs)
    assert any(c.logprobs for c in step.candidates)
    assert 0 <= step.se_discrete <= math.log(3) + 1e-9
    assert math.isfinite(step.se_length_normalized)
    assert step.judge_calls == judge.calls
    if not step.ended:  # the greedy continuation is deterministic: the same text on a second run without cache
        again = run_step(lm.inner, judge, macgyver_problems(limit=1)[0], MACGYVER_PROMPT,
                         StepwiseSettings(STEP_SAMPLING.merge(n=3, max_tokens=6, temperature=1.0)), [], 1)
        assert again.continuation.text == step.continuation.text == step.appended
