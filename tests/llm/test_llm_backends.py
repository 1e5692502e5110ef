"""Contract tests on real models: transformers on the 135M model, and llama.cpp's server on loopback."""

import math

import numpy as np
import pytest

from llmcreativity.llm import GenerateConfig, get_embedder, get_role_backend
from llmcreativity.llm.openai_http import OpenAIBackend

pytestmark = pytest.mark.slow

CHAT = [{"role": "user", "content": "Write one sentence about a lighthouse keeper on Europa."}]
QUESTION = [{"role": "user", "content": "Is water wet? Answer Yes or No."}]
ECHO_ATOL = 0.5
"""Largest per-token gap allowed between llama.cpp (Q4_1 weights, 8-bit activations) and transformers (float32 of the
same weights); measured 0.39 nats at most, 0.09 nats in mean surprisal, where the uncorrected echo is 14.6 off."""


@pytest.fixture(params=["transformers", "http"])
def lm(request, real_lm):
    if request.param == "transformers":
        return real_lm
    return get_role_backend("writer", f"{request.getfixturevalue('llama_server')}#smollm2-135m", cache=None)


def test_generate_returns_n_completions_with_one_logprob_per_token(lm):
    (out,) = lm.generate([CHAT], GenerateConfig(n=3, temperature=0.9, max_tokens=12, seed=3))
    assert len(out) == 3
    for c in out:
        assert len(c.tokens) == len(c.logprobs) > 0
        assert all(lp <= 1e-6 and math.isfinite(lp) for lp in c.logprobs)
        assert c.finish_reason in {"stop", "length"}


def test_without_logprobs_the_same_samples_come_back_with_tokens_locally_and_as_text_from_an_endpoint(lm):
    # a local engine computes the log-probabilities anyway (a recorded sample is checked by teacher-forcing its
    # tokens); an endpoint is not asked for them, so it returns the text alone
    cfg = GenerateConfig(n=2, temperature=0.9, max_tokens=10, seed=5)
    weighed, plain = (lm.generate([CHAT], cfg.merge(logprobs=on))[0] for on in (True, False))
    assert [c.text for c in plain] == [c.text for c in weighed]
    if lm.identity.startswith("openai:"):
        assert all(c.tokens == c.logprobs == [] and c.usage.completion_tokens > 0 for c in plain)
    else:
        assert [(c.tokens, c.logprobs) for c in plain] == [(c.tokens, c.logprobs) for c in weighed]
        assert all(len(c.tokens) == len(c.logprobs) == c.usage.completion_tokens > 0 for c in plain)


def test_same_seed_gives_the_same_samples(lm):
    cfg = GenerateConfig(n=3, temperature=1.0, max_tokens=10, seed=11)
    a = [c.text for c in lm.generate([CHAT], cfg)[0]]
    b = [c.text for c in lm.generate([CHAT], cfg)[0]]
    assert a == b
    assert len(set(a)) > 1


def test_answer_probs_is_a_proper_distribution(lm):
    d = lm.answer_probs(QUESTION, ["Yes", "No"])
    assert set(d.probs) == {"Yes", "No"}
    assert sum(d.probs.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(0 <= p <= 1 for p in d.probs.values())


def test_stop_string_ends_the_completion_before_it(lm):
    (out,) = lm.generate(["Count: 1, 2, 3, 4,"], GenerateConfig(n=1, temperature=0.0, max_tokens=20, stop=(" 6",)))
    assert " 6" not in out[0].text
    assert out[0].finish_reason == "stop"


def test_generation_logprobs_agree_with_teacher_forced_scoring(real_lm):
    (out,) = real_lm.generate([CHAT], GenerateConfig(n=2, temperature=0.8, max_tokens=16, seed=5))
    for c in out:
        s = real_lm.score(CHAT, c.text)
        if s.tokens == c.tokens:  # re-tokenizing the text gave the same tokens
            np.testing.assert_allclose(s.logprobs, c.logprobs, atol=2e-3)
        else:
            assert sum(s.logprobs) == pytest.approx(c.sum_logprob, abs=0.5)


def test_batched_prompts_match_one_prompt_at_a_time_in_greedy_mode(real_lm):
    cfg = GenerateConfig(n=1, temperature=0.0, max_tokens=8)
    prompts = [CHAT, [{"role": "user", "content": "Name a colour."}]]
    together = [o[0].text for o in real_lm.generate(prompts, cfg)]
    alone = [real_lm.generate([p], cfg)[0][0].text for p in prompts]
    assert together == alone


def test_http_backend_falls_back_when_the_server_ignores_n(llama_server):
    lm = get_role_backend("writer", f"{llama_server}#smollm2-135m", cache=None)
    (out,) = lm.generate([CHAT], GenerateConfig(n=4, temperature=1.0, max_tokens=8, seed=1))
    assert len(out) == 4
    assert lm.inner.n_supported is False
    assert len({c.text for c in out}) > 1


def test_http_score_returns_exactly_the_continuation_tokens(llama_server):
    lm = get_role_backend("surprisal_scorer", f"{llama_server}#smollm2-135m", cache=None)
    s = lm.score("The capital of France is", " Paris, a city.")
    assert "".join(s.tokens) == " Paris, a city."
    assert all(math.isfinite(x) and x <= 0 for x in s.logprobs)


def test_http_api_key_comes_from_the_environment_and_stays_out_of_identity(llama_server, monkeypatch):
    monkeypatch.setenv("MY_TEST_KEY", "sk-test-secret-value")
    lm = get_role_backend("writer", f"{llama_server}#smollm2-135m", api_key_env="MY_TEST_KEY", cache=None)
    assert lm.inner._session.headers["Authorization"] == "Bearer sk-test-secret-value"
    assert "secret" not in lm.identity
    lm.generate(["Hello"], GenerateConfig(max_tokens=2))
    assert "secret" not in repr(lm.records)


def test_embedders_return_unit_rows_that_rank_paraphrases_first():
    emb = get_embedder("all-minilm-l6-v2")
    v = emb.encode(["A robot repairs a spaceship.", "A machine fixes a rocket.", "I like pancakes for breakfast."])
    assert v.shape == (3, emb.dim)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]


def test_served_scores_after_the_bos_correction_agree_with_local_scoring_of_the_same_text(llama_server, real_lm):
    lm = get_role_backend("surprisal_scorer", f"{llama_server}#smollm2-135m", cache=None)
    assert lm.inner.score_prefix == "<|im_start|>"  # SmolLM2's BOS: its GGUF adds none, so echo is shifted without
    context, story = "Writing prompt: a lighthouse on Europa\n\nStory:\n", " The keeper watched the ice crack."
    served = lm.score(context, story)
    local = real_lm.score(lm.inner.score_prefix + context, story)
    assert len(served.logprobs) == len(local.logprobs)
    np.testing.assert_allclose(served.logprobs, local.logprobs, atol=ECHO_ATOL)
    assert np.mean(served.logprobs) == pytest.approx(np.mean(local.logprobs), abs=0.2)
    uncorrected = OpenAIBackend(llama_server, "smollm2-135m").score(context, story)  # no BOS prepended
    assert np.max(np.abs(np.subtract(uncorrected.logprobs, local.logprobs))) > 5 * ECHO_ATOL
