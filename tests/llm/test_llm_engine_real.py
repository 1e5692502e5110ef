"""Prefix reuse and row seeds on the real 135M model, in float32 and bfloat16."""

import pytest

from llmcreativity.judges.rubric import ANSWERS, DIMENSIONS, rubric_prompt
from llmcreativity.llm import GenerateConfig, materialize
from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf

pytestmark = pytest.mark.slow

STORY = ("The survey drone found the city under the ice on the third day: streets of blue glass, lamps that still "
         "burned, and a harbour where the boats were frozen in mid-turn. Mira, the last engineer aboard, decided to "
         "wake the city's reactor, knowing the melt would drown the drone's tether and her way home.")
TOLERANCE = 1e-4  # float32: prefix reuse against full recomputation, in nats
BF16_NOISE_FACTOR = 2.0


@pytest.fixture(scope="module")
def model_path():
    return convert_gguf("smollm2-135m", materialize("smollm2-135m"))


@pytest.fixture(scope="module")
def float32_pair(model_path):
    return (TransformersBackend(model_path, name="smollm2-135m", dtype="float32"),
            TransformersBackend(model_path, name="smollm2-135m", dtype="float32", prefix_reuse=False))


def gap(xs, ys) -> float:
    return max(abs(x.logprobs[k] - y.logprobs[k]) for x, y in zip(xs, ys, strict=True) for k in ANSWERS)


def _prompts() -> list[str]:
    return [rubric_prompt("A city under the ice.", STORY, d) for d in DIMENSIONS[:3]]


def test_float32_rubric_digits_with_prefix_reuse_match_full_recomputation(float32_pair):
    reuse, full = float32_pair
    prompts = _prompts()
    want = [full.answer_probs(p, list(ANSWERS)) for p in prompts]
    one_by_one = [reuse.answer_probs(p, list(ANSWERS)) for p in prompts]  # the story's state from the LRU
    assert reuse.prefixes.reused_tokens > 0
    assert gap(one_by_one, want) <= TOLERANCE
    assert gap(reuse.answer_probs_batch(prompts, list(ANSWERS)), want) <= TOLERANCE


def test_bfloat16_prefix_reuse_adds_no_error_beyond_bfloat16s_own(model_path, float32_pair):
    """bfloat16 rounding noise depends on the CPU's kernels, so it is measured here, against float32.

    The reference is the float32 full recomputation. bfloat16's own error is the larger of its full recomputation
    alone and in a batch of three (about 0.08-0.13 nats on an AVX-512 machine; reuse there: 0.08-0.09). Prefix reuse
    may not exceed twice that: a reuse bug (a stale state, positions off by one) moves the digits by far more.
    """
    _, truth_model = float32_pair
    prompts, answers = _prompts(), list(ANSWERS)
    truth = [truth_model.answer_probs(p, answers) for p in prompts]
    full = TransformersBackend(model_path, name="smollm2-135m", dtype="bfloat16", prefix_reuse=False)
    own = max(gap([full.answer_probs(p, answers) for p in prompts], truth),
              gap(full.answer_probs_batch(prompts, answers), truth))
    reuse = TransformersBackend(model_path, name="smollm2-135m", dtype="bfloat16")
    one_by_one = [reuse.answer_probs(p, answers) for p in prompts]
    assert reuse.prefixes.reused_tokens > 0
    assert gap(one_by_one, truth) <= BF16_NOISE_FACTOR * own, own
    assert gap(reuse.answer_probs_batch(prompts, answers), truth) <= BF16_NOISE_FACTOR * own, own


def test_a_real_sample_does_not_depend_on_its_batch(real_lm):
    cfg = GenerateConfig(n=2, temperature=0.9, max_tokens=12, seed=5)
    target = [{"role": "user", "content": "Write one sentence about a lighthouse keeper on Europa."}]
    alone = [c.text for c in real_lm.generate([target], cfg)[0]]
    others = [[{"role": "user", "content": "Name a colour."}], [{"role": "user", "content": "Count to three."}]]
    inside = [c.text for c in real_lm.generate([others[0], target, others[1]], cfg)[1]]
    assert alone == inside
