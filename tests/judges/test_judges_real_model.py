import pytest

from llmcreativity.judges import MACGYVER_VALID, JudgeItem, SingleCallJudge


@pytest.mark.slow
def test_single_call_judge_reads_a_verdict_from_the_real_default_model():
    from llmcreativity.llm import get_backend

    lm = get_backend("qwen2.5-coder-0.5b")
    item = JudgeItem("t1",
                     "You need to open a tight jar lid. Tools available: a rubber glove, a spoon. How do you open it?",
                     "Step 1: Put on the rubber glove for grip. Step 2: Tap the lid edge with the spoon. Step 3: Twist "
                     "the lid open.")
    j = SingleCallJudge(lm=lm, criteria=(MACGYVER_VALID,), max_tokens=24, max_retries=2,
                        forced_choice=False).judge(item)
    assert j.verdict is not None
    assert all(c.prompt_tokens > 0 for c in j.calls)
