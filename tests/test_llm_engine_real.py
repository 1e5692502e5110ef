"""Prefix reuse and row seeds on the real 135M model, in float32 and bfloat16."""

import pytest

from llmcreativity.judges.rubric import ANSWERS, DIMENSIONS, rubric_prompt
from llmcreativity.llm import GenerateConfig, materialize
from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf

pytestmark = pytest.mark.slow

STORY = ("The survey drone found the city under the ice on the third day: streets of blue glass, lamps that still "
         "burned, and a harbour where the boats were frozen in mid-turn. Mira, the last engineer aboard, decided to "
         "wake the city's reactor, knowing the melt would drown the drone's tether and her way home.")
TOLERANCE = {"float32": 1e-4, "bfloat16": 2e-2}


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def pair(request):
    path = convert_gguf("smollm2-135m", materialize("smollm2-135m"))
    return (TransformersBackend(path, name="smollm2-135m", dtype=request.param),
            TransformersBackend(path, name="smollm2-135m", dtype=request.param, prefix_reuse=False), request.param)


def gap(xs, ys) -> float:
    return max(abs(x.logprobs[k] - y.logprobs[k]) for x, y in zip(xs, ys, strict=True) for k in ANSWERS)


def test_rubric_digits_with_prefix_reuse_match_full_recomputation(pair):
    """float32: within 1e-4. bfloat16: within 2e-2 or, if larger, bfloat16's own batch-layout noise.

    On this 135M model in bfloat16 two full recomputations that differ only in batch layout (alone versus
    right-padded with two other prompts) already differ by about 0.14 nats (measured), so prefix reuse is held
    to that floor: it must add no error beyond what batching alone gives.
    """
    reuse, full, dtype = pair
    prompts = [rubric_prompt("A city under the ice.", STORY, d) for d in DIMENSIONS[:3]]
    want = [full.answer_probs(p, list(ANSWERS)) for p in prompts]
    bound = TOLERANCE[dtype] if dtype == "float32" else max(TOLERANCE[dtype],
                                                            gap(full.answer_probs_batch(prompts, list(ANSWERS)), want))
    one_by_one = [reuse.answer_probs(p, list(ANSWERS)) for p in prompts]  # the story's state from the LRU
    assert reuse.prefixes.reused_tokens > 0
    assert gap(one_by_one, want) <= bound
    assert gap(reuse.answer_probs_batch(prompts, list(ANSWERS)), want) <= bound


def test_a_real_sample_does_not_depend_on_its_batch(real_lm):
    cfg = GenerateConfig(n=2, temperature=0.9, max_tokens=12, seed=5)
    target = [{"role": "user", "content": "Write one sentence about a lighthouse keeper on Europa."}]
    alone = [c.text for c in real_lm.generate([target], cfg)[0]]
    others = [[{"role": "user", "content": "Name a colour."}], [{"role": "user", "content": "Count to three."}]]
    inside = [c.text for c in real_lm.generate([others[0], target, others[1]], cfg)[1]]
    assert alone == inside
