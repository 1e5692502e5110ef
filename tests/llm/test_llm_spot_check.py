"""The live spot check on real models: a faithful record passes, and each kind of tampering fails it."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from llmcreativity.context import variable
from llmcreativity.llm import GenerateConfig, get_backend, get_embedder
from llmcreativity.llm.call_log import LoggedCall
from llmcreativity.llm.spot_check import (
    EMBED_TOL,
    LOGPROB_TOL,
    PROB_TOL,
    check_answer_probs,
    check_encode,
    check_generate,
    check_score,
    drawn,
    read_spot_checks,
    token_differences,
)

pytestmark = pytest.mark.slow

STORY = [{"role": "system", "content": "You are a science-fiction writer."},
         {"role": "user", "content": "Write the opening of a story about a lighthouse on a moon of Saturn."}]
SAMPLING = GenerateConfig(n=2, temperature=1.0, top_p=0.95, max_tokens=40, seed=3, logprobs=False)
GEN = {"prompt": STORY, "config": SAMPLING.to_dict()}
"""The inputs of the recorded generation, as the call log holds them."""


@pytest.fixture(scope="module", params=["llama.cpp", "transformers"])
def lm(request, tmp_path_factory):
    """A real smollm2-135m on each local engine (float32 for transformers), behind its own call cache."""
    return get_backend("smollm2-135m", engine=request.param, dtype="float32", device="cpu",
                       cache=tmp_path_factory.mktemp("cache") / "calls.sqlite")


@pytest.fixture(scope="module")
def samples(lm):
    return lm.generate([STORY], SAMPLING)[0]


def _call(lm, method: str, inputs: dict) -> LoggedCall:
    return LoggedCall("lm", lm.identity, method, ["k" * 64], inputs, "writer", "test")


def test_a_faithful_generation_record_passes(lm, samples):
    result = check_generate(lm.inner, _call(lm, "generate", GEN),
                            samples)
    assert result.compared and result.matched, result
    assert result.worst <= LOGPROB_TOL


def test_a_flipped_token_fails(lm, samples):
    tampered = dataclasses.replace(samples[0], tokens=[*samples[0].tokens[:5], "▁banana", *samples[0].tokens[6:]])
    result = check_generate(lm.inner, _call(lm, "generate", GEN), [tampered])
    assert result.compared and not result.matched


def _shifted(sample, at: int, by: float):
    return dataclasses.replace(sample, logprobs=[v + by if i == at else v for i, v in enumerate(sample.logprobs)])


def test_a_shifted_log_probability_fails(lm, samples):
    likeliest = max(range(len(samples[0].logprobs)), key=lambda i: samples[0].logprobs[i])
    result = check_generate(lm.inner, _call(lm, "generate", GEN), [_shifted(samples[0], likeliest, -0.2)])
    assert not result.matched and result.worst == pytest.approx(0.2, abs=LOGPROB_TOL)


def test_a_far_tail_token_is_compared_by_probability():
    # a token of probability 1.5e-4 off by 0.55 nats moves its probability by 7e-5; a common one off as much fails
    rare, common = np.log([1.5e-4, 0.4]), np.log([1.5e-4, 0.4]) - 0.55
    assert token_differences([rare[0] - 0.55, rare[1]], rare).max() < 1e-4
    assert token_differences(common, rare)[1] == pytest.approx(0.55)
    assert token_differences([0.0], [0.0, 0.0])[0] == np.inf


def test_the_ids_after_another_prompt_fail(lm, samples):
    other = [STORY[0], {"role": "user", "content": "List three uses of a paperclip in a kitchen."}]
    result = check_generate(lm.inner, _call(lm, "generate", {**GEN, "prompt": other}), samples[:1])
    assert result.compared and not result.matched


def test_numbers_of_another_model_identity_fail(lm, samples):
    # the same tokens, but with the log-probabilities another model gave them
    other = get_backend("qwen2.5-coder-0.5b", engine="llama.cpp", cache=None)
    theirs = dataclasses.replace(samples[0], logprobs=other.score(STORY, samples[0].text).logprobs)
    result = check_generate(lm.inner, _call(lm, "generate", GEN), [theirs])
    assert not result.matched


def test_scores_and_answer_probabilities_pass_when_faithful_and_fail_when_shifted(lm, samples):
    inputs = {"context": STORY, "continuation": samples[0].text}
    recorded = lm.score(STORY, samples[0].text)
    assert check_score(lm.inner, _call(lm, "score", inputs), recorded).matched
    bad = dataclasses.replace(recorded, logprobs=[v - 0.1 for v in recorded.logprobs])
    assert not check_score(lm.inner, _call(lm, "score", inputs), bad).matched
    ask = {"prompt": "Is the sky blue? Answer yes or no.", "answers": ["yes", "no"]}
    probs = lm.answer_probs(ask["prompt"], ask["answers"])
    assert check_answer_probs(lm.inner, _call(lm, "answer_probs", ask), probs).worst <= PROB_TOL
    moved = dataclasses.replace(probs, probs={"yes": probs.probs["yes"] + 0.05, "no": probs.probs["no"] - 0.05})
    assert not check_answer_probs(lm.inner, _call(lm, "answer_probs", ask), moved).matched


def test_a_replay_spot_checks_through_the_wrapper_and_files_the_result(lm, samples, tmp_path, monkeypatch):
    monkeypatch.setenv(variable("spot_check"), str(tmp_path / "spot.jsonl"))
    monkeypatch.setenv(variable("stage"), "baselines")
    replay = type(lm)(lm.inner, lm.cache, cache_only=True, role="writer")
    assert [c.text for c in replay.generate([STORY], SAMPLING)[0]] == [c.text for c in samples]
    [result] = read_spot_checks(tmp_path / "spot.jsonl")
    assert (result.stage, result.role, result.method, result.compared, result.matched) == (
        "baselines", "writer", "generate", True, True)


def test_embeddings_pass_when_faithful_and_fail_when_moved(tmp_path):
    emb = get_embedder("all-minilm-l6-v2", cache=tmp_path / "calls.sqlite")
    text = "A lighthouse keeper on Titan counts methane storms."
    call = LoggedCall("embedder", emb.identity, "encode", ["k" * 64], {"text": text}, "embedder", "test")
    row = emb.encode([text, "another text in the same batch"])[0]
    assert check_encode(emb.inner, call, row).matched
    moved = row.copy()
    moved[7] += 10 * EMBED_TOL
    assert not check_encode(emb.inner, call, moved).matched


def test_the_draw_is_seeded_by_the_key():
    keys = [f"{i:064x}" for i in range(4000)]
    picked = [k for k in keys if drawn(k)]
    assert picked == [k for k in keys if drawn(k)]
    assert 40 < len(picked) < 130  # about SPOT_RATE = 2 % of 4000


def test_a_valid_sample_of_another_seed_fails_where_samples_are_independent(lm, samples):
    # its tokens and log-probabilities are the model's own, so teacher forcing alone would pass it; sampling the
    # prompt again (both engines here are independent of history and batch) gives the recorded seed's text
    other = lm.generate([STORY], SAMPLING.merge(seed=4))[0]
    assert lm.inner.backend.independent_samples
    result = check_generate(lm.inner, _call(lm, "generate", GEN), other)
    assert not result.matched and "sampled again differs" in result.detail


def test_a_batch_dependent_path_gets_the_looser_stated_tolerances(lm):
    from llmcreativity.llm.spot_check import (
        LOGPROB_TOL_DEPENDENT,
        PROB_TOL_DEPENDENT,
        logprob_tolerance,
        prob_tolerance,
    )

    assert (logprob_tolerance(lm.inner), prob_tolerance(lm.inner)) == (LOGPROB_TOL, PROB_TOL)  # smollm2: independent
    qwen = get_backend("qwen2.5-coder-0.5b", engine="llama.cpp", cache=None)
    assert not qwen.inner.backend.independent_samples
    assert (logprob_tolerance(qwen.inner), prob_tolerance(qwen.inner)) == (LOGPROB_TOL_DEPENDENT, PROB_TOL_DEPENDENT)


# -- the spot-check worker (a replay run side by side) ----------------------------------------------------------------
def test_a_recipe_builds_the_same_model_in_another_process(lm):
    from llmcreativity.llm.local_models import from_recipe

    assert from_recipe(lm.inner.recipe).identity == lm.inner.identity
    emb = get_embedder("all-minilm-l6-v2", cache=None)
    assert from_recipe(emb.inner.recipe).identity == emb.identity


def test_a_call_left_for_the_worker_is_compared_there_as_the_kernel_would_with_each_model_loaded_once(
        lm, samples, tmp_path, monkeypatch):
    from llmcreativity.context import kernel_context, kernel_start_environment
    from llmcreativity.jsonl import read_jsonl
    from llmcreativity.llm.spot_check import pending_file
    from llmcreativity.llm.spot_worker import SpotWorker

    spot = tmp_path / "spot.jsonl"
    for name, value in (("spot_check", spot), ("stage", "baselines"), ("spot_check_later", "1")):
        monkeypatch.setenv(variable(name), str(value))
    replay = type(lm)(lm.inner, lm.cache, cache_only=True, role="writer")
    assert [c.text for c in replay.generate([STORY], SAMPLING)[0]] == [c.text for c in samples]
    assert not spot.exists()  # nothing computed in this process: the call waits with its model's recipe
    [row] = read_jsonl(pending_file(spot))
    assert (row["call"]["method"], row["recipe"]) == ("generate", lm.inner.recipe)
    moved = tmp_path / "moved.jsonl"  # the same call again, its recorded answer tampered in another cache
    other = type(lm.cache)(tmp_path / "tampered.sqlite")
    for key in row["call"]["keys"]:
        stored = dict(lm.cache.get(key))
        other.put(key, {**stored, "logprobs": [v - 0.3 for v in stored["logprobs"]]})
    pending_file(moved).write_text(pending_file(spot).read_text())
    with SpotWorker(kernel_start_environment(kernel_context()), tmp_path / "worker.log") as worker:
        first = worker.check(pending_file(spot), spot, lm.cache.path)
        second = worker.check(pending_file(moved), moved, other.path)
        assert worker.check(tmp_path / "none.pending.jsonl", tmp_path / "none.jsonl", lm.cache.path).checks == 0
    assert (first.checks, list(first.loads), second.checks, second.loads) == (1, [lm.identity], 1, {})
    assert not pending_file(spot).exists()
    [result] = read_spot_checks(spot)
    assert (result.stage, result.role, result.method, result.compared, result.matched) == (
        "baselines", "writer", "generate", True, True)
    [tampered] = read_spot_checks(moved)
    assert tampered.compared and not tampered.matched and tampered.worst == pytest.approx(0.3, abs=LOGPROB_TOL)


def test_a_worker_that_cannot_check_says_so_naming_its_log(tmp_path):
    from llmcreativity.context import kernel_context, kernel_start_environment
    from llmcreativity.llm.spot_check import pending_file
    from llmcreativity.llm.spot_worker import SpotWorker

    pending = pending_file(tmp_path / "spot.jsonl")
    call = LoggedCall("lm", "onnx:m", "score", ["k" * 64], {"context": "a", "continuation": "b"}, "scorer", "test")
    pending.write_text(json.dumps({"call": dataclasses.asdict(call), "recipe": {"engine": "onnx", "model": "m"}}))
    with SpotWorker(kernel_start_environment(kernel_context()), tmp_path / "worker.log") as worker:
        with pytest.raises(RuntimeError, match=r"could not check .*spot.pending.jsonl: ValueError: recipe engine "
                                               r"'onnx'.*worker.log"):
            worker.check(pending, tmp_path / "spot.jsonl", tmp_path / "calls.sqlite")
