"""Whether a seeded sample depends on what its engine computed before it or on the batch it rides in.

One story-length chat prompt (a persona system message and a SciFi story request, about 230 tokens), temperature 1,
200 new tokens, no stop, on the real 135M model. Each engine and dtype samples it (a) on a fresh backend, (b) right
after a prompt that shares all but its last few tokens (prefix reuse), (c) right after an unrelated prompt, and
(d) in one `generate` call between that unrelated prompt and the sibling. The comparison is of token ids (recovered
exactly from the completion's token strings) and of the sampled tokens' log-probabilities.

The same holds with the decoding controls against repetition on (`CONTROLLED`: a repetition penalty, frequency and
presence penalties, a no-repeat-4-gram rule and min-p, which the row sampler computes from each row's own generated
ids): the cases are run again under it.

Transformers in bfloat16 is shown dependent more cheaply: the same prompt's next-token numbers read alone and
inside a padded batch differ (while float32 agrees), so its samples are not asserted equal.
Runtime on the 2-core machine: llama.cpp about 25 s per config when idle (56 s for both configs; 19 minutes beside
another busy process); float32 transformers several minutes per config (five 200-token generations; about 14 minutes
at load average 4 for the plain config, 22.7 minutes for both at load 4-6).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from llmcreativity.llm import GenerateConfig, materialize
from llmcreativity.writing.persona import ECOLOGICAL, HUMANISTIC

pytestmark = pytest.mark.slow

MODEL = "smollm2-135m"
CONFIG = GenerateConfig(n=1, temperature=1.0, max_tokens=200, seed=3)
CONTROLLED = CONFIG.merge(repetition_penalty=1.3, frequency_penalty=0.3, presence_penalty=0.3, no_repeat_ngram=4,
                          min_p=0.05)
"""CONFIG with every decoding control against repetition on."""
CONFIGS = {"plain": CONFIG, "controlled": CONTROLLED}
TASK = ("Write a science-fiction short story of about six hundred words. It is set on a generation ship two hundred "
        "years into its voyage, where the ship's gardens have begun to fail and the crew has split into two camps: "
        "those who want to wake the frozen colonists early to share the work, and those who believe the sleepers "
        "must be protected at any cost. Tell it from the point of view of a young botanist who has found a seed "
        "vault that nobody remembers sealing. Use vivid, concrete sensory detail, give each character a distinct "
        "voice, and end on a choice rather than an explanation.")
TARGET = [{"role": "system", "content": HUMANISTIC.description},
          {"role": "user", "content": TASK + " Title the story 'The Last Tide'."}]
SIBLING = [{"role": "system", "content": HUMANISTIC.description},
           {"role": "user", "content": TASK + " Title the story 'Glass Harbour'."}]
UNRELATED = [{"role": "system", "content": ECOLOGICAL.description},
             {"role": "user", "content": "Describe, step by step, how a coral reef recovers after a bleaching event, "
                                         "and what a diver would see in each year of the recovery."}]
CASES = ("after_sibling", "after_unrelated", "in_batch")
"""(b), (c) and (d); each is compared with (a), the sample of a fresh backend."""


@dataclass(frozen=True)
class Sample:
    ids: tuple[int, ...]
    logprobs: tuple[float, ...]
    finish: str


def _sample(lm, prompts, at: int, config: GenerateConfig) -> Sample:
    (c,) = lm.generate(prompts, config)[at]
    return Sample(tuple(lm.tokenizer.convert_tokens_to_ids(c.tokens)), tuple(c.logprobs), c.finish_reason)


def _target_samples(lm, config: GenerateConfig = CONFIG) -> dict[str, Sample]:
    """The target's sample in the four situations, in this order on one backend that starts fresh."""
    out = {"fresh": _sample(lm, [TARGET], 0, config)}
    lm.generate([SIBLING], config)
    out["after_sibling"] = _sample(lm, [TARGET], 0, config)
    lm.generate([UNRELATED], config)
    out["after_unrelated"] = _sample(lm, [TARGET], 0, config)
    out["in_batch"] = _sample(lm, [UNRELATED, TARGET, SIBLING], 1, config)
    return out


def _agreeing(a: Sample, b: Sample) -> int:
    """How many leading tokens two samples share."""
    return next((t for t, (x, y) in enumerate(zip(a.ids, b.ids, strict=False)) if x != y), min(len(a.ids),
                                                                                                  len(b.ids)))


@pytest.fixture(scope="module", params=list(CONFIGS))
def cpp_samples(request):
    from llmcreativity.llm.llamacpp_local import LlamaCppBackend
    return {**_target_samples(LlamaCppBackend.from_registry(MODEL), CONFIGS[request.param]), "config": request.param}


def _transformers(dtype: str):
    from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf
    return TransformersBackend(convert_gguf(MODEL, materialize(MODEL)), name=MODEL, dtype=dtype)


@pytest.fixture(scope="module", params=list(CONFIGS))
def float32_samples(request):
    return _target_samples(_transformers("float32"), CONFIGS[request.param])


def test_the_controls_change_the_sample():
    """The controlled runs test something: their samples are not the plain ones (and no 4-gram repeats in them)."""
    from llmcreativity.llm.llamacpp_local import LlamaCppBackend
    lm = LlamaCppBackend.from_registry(MODEL)
    plain, controlled = (_sample(lm, [TARGET], 0, c) for c in (CONFIG, CONTROLLED))
    assert plain.ids != controlled.ids
    grams = [controlled.ids[i:i + 4] for i in range(len(controlled.ids) - 3)]
    assert len(set(grams)) == len(grams)


def test_the_prompt_is_story_length_and_the_sample_runs_its_full_budget(cpp_samples):
    from llmcreativity.llm.llamacpp_local import LlamaCppBackend
    ids = LlamaCppBackend.from_registry(MODEL)._prompt_ids(TARGET)
    assert 150 <= len(ids) <= 300
    fresh = cpp_samples["fresh"]
    if cpp_samples["config"] == "plain":
        assert fresh.finish == "length" and len(fresh.ids) == CONFIG.max_tokens
    else:  # the penalties make the model end its story itself (124 tokens), long enough to compare
        assert fresh.finish == "stop" and len(fresh.ids) >= 100


@pytest.mark.parametrize("case", CASES)
def test_llamacpp_sample_is_independent_of_history_and_batch(cpp_samples, case):
    """Every decode call takes llama.cpp's one-query-at-a-time attention path (`LlamaCppBackend._decode`), whose sum
    over a row's key/value cells runs in position order whatever cells they occupy: the same ids and the same
    log-probabilities, to the bit."""
    assert cpp_samples[case] == cpp_samples["fresh"] and cpp_samples["config"] in CONFIGS


@pytest.mark.parametrize("case", CASES)
def test_float32_transformers_sample_is_independent_of_history_and_batch(float32_samples, case):
    assert float32_samples[case].ids == float32_samples["fresh"].ids
    assert max(abs(x - y) for x, y in zip(float32_samples[case].logprobs, float32_samples["fresh"].logprobs,
                                          strict=True)) < 1e-4


def _next_token_logprobs(lm, prompts, at: int):
    """The next-token log-probabilities after prompt `at` when `prompts` are read together in one padded batch."""
    ids = [lm._prompt_ids(p) for p in prompts]
    _, last = lm._read(ids, [len(i) for i in ids])
    return last[at]


def test_bfloat16_transformers_numbers_change_with_the_batch_so_its_samples_are_not_independent():
    """What the README says of bfloat16: the same prompt read alone and inside a padded batch gives other numbers
    (while float32 agrees to 1e-4), so a sample drawn from them can differ once a draw falls near a boundary."""
    alone, batched = {}, {}
    for dtype in ("bfloat16", "float32"):
        lm = _transformers(dtype)
        alone[dtype] = _next_token_logprobs(lm, [TARGET], 0)
        batched[dtype] = _next_token_logprobs(lm, [UNRELATED, TARGET], 1)
    assert float((alone["float32"] - batched["float32"]).abs().max()) < 1e-4
    assert float((alone["bfloat16"] - batched["bfloat16"]).abs().max()) > 1e-3
