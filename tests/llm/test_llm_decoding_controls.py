"""The decoding controls against repetition loops (`GenerateConfig.repetition_penalty`, `frequency_penalty`,
`presence_penalty`, `no_repeat_ngram`, `min_p`) in the row sampler: off by default and then invisible in every
recorded key and row seed; computed from a row's own generated ids only; greedy decoding included; the recorded
log-probabilities stay the model's raw ones. The smollm2 tests (llama.cpp) take about half a minute.
"""

from __future__ import annotations

import gzip
import json

import pytest
import torch

from llmcreativity.llm import GenerateConfig, cache_key
from llmcreativity.llm.call_log import LoggedCall
from llmcreativity.llm.generate_config import DECODING_CONTROLS
from llmcreativity.llm.openai_http import FeatureMissing, OpenAIBackend
from llmcreativity.llm.row_sampling import (
    min_p_filter,
    next_tokens,
    penalized_logits,
    row_generators,
    row_seed,
    sampling_probs,
)
from llmcreativity.paths import REPO_ROOT
from locations import TEST_DATA

RECORDS = [REPO_ROOT / "published" / "run", TEST_DATA / "records" / "smoke"]
ON = {"repetition_penalty": 1.3, "frequency_penalty": 0.4, "presence_penalty": 0.2, "no_repeat_ngram": 4,
      "min_p": 0.05}


def _recorded_generate_calls():
    for record in RECORDS:
        for path in sorted(record.glob("*/keys.*.jsonl.gz")):
            with gzip.open(path, "rt", encoding="utf-8") as f:
                for line in f:
                    call = json.loads(line)
                    if call["kind"] == "lm" and call["method"] == "generate":
                        yield path.parent.name, call


def _config(recorded: dict) -> GenerateConfig:
    return GenerateConfig(**{**recorded, "stop": tuple(recorded.get("stop", ()))})


PILOT = "writing_pilot"
"""The one stage whose recorded calls set controls: the writing pilot screens them."""


def test_every_recorded_generate_key_is_computed_again_with_the_controls_at_their_defaults():
    """Each call of the published record and of the smoke record: its config read back into a `GenerateConfig`
    (which now has the controls, at their defaults) gives the same plain JSON and the same key per sample. Every
    stage but the writing pilot was recorded with the controls off."""
    calls = list(_recorded_generate_calls())
    assert len(calls) > 500 and any(stage == PILOT for stage, _ in calls)
    for stage, call in calls:
        config = _config(call["inputs"]["config"])
        assert (stage == PILOT or not config.controls_repetition) and config.to_dict() == call["inputs"]["config"]
        assert [cache_key(call["identity"], "generate", call["inputs"]["prompt"], config.to_dict(), i)
                for i in range(config.n)] == call["keys"]


def test_row_seeds_are_those_of_the_sampler_before_the_controls():
    """Literals computed with `row_seed` and `GenerateConfig` as they were before the controls existed (0323a64):
    a story call's settings and a step-wise SE call's."""
    assert row_seed([1, 2, 3], GenerateConfig(temperature=0.8, top_p=0.95, max_tokens=466, logprobs=False), 0) == \
        8449320902549078774
    assert row_seed([5], GenerateConfig(n=6, temperature=0.9, max_tokens=24, stop=("\n",)), 2) == \
        5810038679750493437


@pytest.mark.parametrize("name", list(ON))
def test_a_control_enters_the_dict_only_when_on_and_then_changes_the_key_and_the_row_seed(name):
    off, on = GenerateConfig(temperature=0.8), GenerateConfig(temperature=0.8, **{name: ON[name]})
    assert name not in off.to_dict() and on.to_dict()[name] == ON[name] and on.controls_repetition
    assert row_seed([1, 2], off, 0) != row_seed([1, 2], on, 0)
    assert cache_key("m", "generate", "x", off.to_dict(), 0) != cache_key("m", "generate", "x", on.to_dict(), 0)
    assert set(DECODING_CONTROLS) == set(ON)


@pytest.mark.parametrize(("name", "bad"), [("repetition_penalty", 0.9), ("frequency_penalty", -0.1),
                                           ("presence_penalty", -1.0), ("no_repeat_ngram", 1),
                                           ("no_repeat_ngram", -2), ("min_p", 1.0), ("min_p", -0.1)])
def test_a_control_out_of_range_is_refused_naming_it(name, bad):
    with pytest.raises(ValueError, match=f"{name}={bad!r}"):
        GenerateConfig(**{name: bad})


def test_penalties_follow_their_formulas_on_the_generated_ids_only():
    z = torch.tensor([[2.0, -1.0, 0.5, 3.0], [2.0, -1.0, 0.5, 3.0]])
    raw = z.clone()
    rep = penalized_logits(z, GenerateConfig(repetition_penalty=2.0), [[0, 1, 0], []])
    assert rep.tolist() == [[1.0, -2.0, 0.5, 3.0], [2.0, -1.0, 0.5, 3.0]]  # row 1 generated nothing: untouched
    freq = penalized_logits(z, GenerateConfig(frequency_penalty=0.5, presence_penalty=0.25), [[3, 3, 1], [2]])
    assert freq.tolist() == [[2.0, -1.75, 0.5, 1.75], [2.0, -1.0, -0.25, 3.0]]
    assert torch.equal(z, raw)  # the raw logits (whose log-softmax is recorded) are never changed in place


def test_the_ngram_ban_removes_exactly_the_tokens_that_would_repeat_a_k_gram():
    z = torch.zeros(1, 6)
    banned = penalized_logits(z, GenerateConfig(no_repeat_ngram=3), [[1, 2, 4, 1, 2, 5, 1, 2]])
    assert [v for v in range(6) if banned[0, v] == float("-inf")] == [4, 5]  # (1, 2, 4) and (1, 2, 5) were written
    assert torch.equal(penalized_logits(z, GenerateConfig(no_repeat_ngram=3), [[1, 2]]), z)  # no 3-gram yet


def test_min_p_keeps_the_tokens_within_a_share_of_the_most_likely_one():
    p = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    assert min_p_filter(p, 0.2)[0].tolist() == pytest.approx([0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0.0])
    assert min_p_filter(p, 0.0) is p


def test_greedy_decoding_gets_the_controls_too():
    z = torch.tensor([[5.0, 4.0, 0.0]])
    g = row_generators([[1]], GenerateConfig(temperature=0))
    assert next_tokens(z, GenerateConfig(temperature=0), g, [[0, 0]]).tolist() == [0]
    assert next_tokens(z, GenerateConfig(temperature=0, repetition_penalty=2.0), g, [[0, 0]]).tolist() == [1]
    assert next_tokens(z, GenerateConfig(temperature=0, no_repeat_ngram=2), g, [[0, 0]]).tolist() == [1]


def test_with_the_controls_off_the_draw_is_the_nucleus_draw_as_before():
    logits = torch.randn(2, 50, generator=torch.Generator().manual_seed(1))
    config = GenerateConfig(temperature=0.8, top_p=0.9, seed=2)
    expected = torch.cat([torch.multinomial(sampling_probs(logits, 0.8, 0.9)[r], 1, generator=g)
                          for r, g in enumerate(row_generators([[1], [2]], config))])
    assert torch.equal(next_tokens(logits, config, row_generators([[1], [2]], config), [[3, 3], [4]]), expected)


def test_a_rows_draw_depends_on_its_own_history_not_its_batch_companions():
    logits = torch.randn(2, 40, generator=torch.Generator().manual_seed(3))
    config = GenerateConfig(temperature=1.0, **ON)
    histories = [[1, 2, 3, 1, 2, 3, 1, 2], [7, 7, 7]]
    together = next_tokens(logits, config, row_generators([[1], [2]], config), histories)
    gens = row_generators([[1], [2]], config)
    alone = [int(next_tokens(logits[r:r + 1], config, [gens[r]], [histories[r]])) for r in range(2)]
    assert together.tolist() == alone
    with pytest.raises(ValueError, match="one per row"):
        next_tokens(logits, config, gens, histories[:1])


def test_an_endpoint_refuses_the_controls_instead_of_sampling_without_them():
    lm = OpenAIBackend("http://127.0.0.1:9/v1", "m")  # nothing listens: the refusal comes before any request
    with pytest.raises(FeatureMissing, match="repetition_penalty"):
        lm.generate(["Once"], GenerateConfig(repetition_penalty=1.2))


# -- on smollm2 (llama.cpp) --------------------------------------------------------------------------------------

MODEL = "smollm2-135m"
PROMPT = [{"role": "user", "content": "Write a short story about a lighthouse keeper. Begin with the word The."}]


@pytest.fixture(scope="module")
def cpp():
    from llmcreativity.llm.llamacpp_local import LlamaCppBackend
    return LlamaCppBackend.from_registry(MODEL)


def _ids(lm, completion) -> list[int]:
    return list(lm.tokenizer.convert_tokens_to_ids(list(completion.tokens)))


def _repeats_a_4gram(ids: list[int]) -> bool:
    grams = [tuple(ids[i:i + 4]) for i in range(len(ids) - 3)]
    return len(set(grams)) < len(grams)


@pytest.mark.slow
def test_smollm2_greedy_loops_and_the_ngram_ban_stops_it(cpp):
    greedy = GenerateConfig(temperature=0, max_tokens=200, logprobs=False)
    ((plain,), (banned,)) = (cpp.generate([PROMPT], greedy)[0], cpp.generate([PROMPT], greedy.merge(
        no_repeat_ngram=4))[0])
    assert _repeats_a_4gram(_ids(cpp, plain))
    assert not _repeats_a_4gram(_ids(cpp, banned))


@pytest.mark.slow
def test_smollm2_prompt_tokens_are_not_penalised(cpp):
    """The greedy reply begins "Once upon a time,", whose tokens after the first are all in the prompt: a presence
    penalty of 50 that counted the prompt would move them; counting the generated ids only, and these being
    distinct, it leaves them as they are."""
    prompt = [{"role": "user", "content": "Write a short story that begins: Once upon a time, a lighthouse keeper"}]
    greedy = GenerateConfig(temperature=0, max_tokens=5, logprobs=False)
    (plain,) = cpp.generate([prompt], greedy)[0]
    (penalised,) = cpp.generate([prompt], greedy.merge(presence_penalty=50.0))[0]
    ids = _ids(cpp, plain)
    assert plain.text == "Once upon a time," and len(set(ids)) == len(ids)
    assert set(ids[1:]) <= set(cpp._prompt_ids(prompt))
    assert _ids(cpp, penalised) == ids
    (longer,) = cpp.generate([prompt], greedy.merge(max_tokens=60, presence_penalty=50.0))[0]
    (longer_plain,) = cpp.generate([prompt], greedy.merge(max_tokens=60))[0]
    assert longer.text != longer_plain.text  # the penalty does act, once a generated token would recur


@pytest.mark.slow
def test_smollm2_recorded_logprobs_are_the_raw_models_under_the_controls(cpp):
    """The spot check teacher-forces a sample's ids with no controls at all: it passes (the same raw
    log-probabilities, the same sample drawn again), though the controls changed the sample."""
    from llmcreativity.llm.spot_check import check_generate, teacher_forced

    config = GenerateConfig(temperature=1.0, max_tokens=80, seed=4, **ON)
    (sample,) = cpp.generate([PROMPT], config)[0]
    (plain,) = cpp.generate([PROMPT], config.merge(**{k: v for k, v in DECODING_CONTROLS.items()}))[0]
    assert sample.text != plain.text
    call = LoggedCall("lm", "x", "generate", [cache_key("x", "generate", PROMPT, config.to_dict(), 0)],
                      {"prompt": PROMPT, "config": config.to_dict()}, "writer")
    result = check_generate(cpp, call, [sample])
    assert result.compared and result.matched, result.detail
    raw = torch.tensor(teacher_forced(cpp, PROMPT, _ids(cpp, sample)))
    assert float((raw - torch.tensor(sample.logprobs)).abs().max()) <= 1e-4
