"""The local engine on a tiny randomly initialised Llama built on the spot: prefix reuse, batching, row seeds."""

import math

import pytest
import torch

from llm_tiny import tiny_backend, tiny_model_dir
from llmcreativity.llm import CachedBackend, GenerateConfig, ResponseCache, answer_probs_batch
from llmcreativity.llm.device import cpu_has_native_bf16, resolve_dtype
from llmcreativity.llm.prefix_cache import PrefixCache, batch_prefix_length, common_prefix_length
from llmcreativity.llm.row_sampling import row_seed, sampling_probs

STORY = "Writing prompt: a city under the ice.\n\nStory: The lamps of Vostok dimmed every winter, and Ana counted them."
DIMENSIONS = ["Integration of Scientific Concepts", "Speculative Logic", "Character Depth", "World-Building"]
TOLERANCE = {"float32": 1e-4, "bfloat16": 2e-2}


def rubric_like(dim: str) -> list[dict]:
    return [{"role": "system", "content": "You grade stories."},
            {"role": "user", "content": f"{STORY}\n\nGrade the story on this dimension only.\nDimension: {dim}."}]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_model_dir(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module", params=["float32", "bfloat16"])
def pair(request, model_dir):
    """(with prefix reuse, without) on the same weights and dtype."""
    return (tiny_backend(model_dir, dtype=request.param), tiny_backend(model_dir, dtype=request.param,
                                                                        prefix_reuse=False), request.param)


def test_common_prefix_lengths():
    assert common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_length([1, 2], [1, 2, 3]) == 2
    assert batch_prefix_length([[1, 2, 3], [1, 2, 4], [1, 5]]) == 1
    assert batch_prefix_length([[7, 8]]) == 2 and batch_prefix_length([]) == 0


def test_prefix_cache_returns_the_longest_shared_start_cut_to_its_length():
    def state(n):
        return ((torch.arange(n, dtype=torch.float32).view(1, 1, n, 1),) * 2,)

    cache = PrefixCache(max_entries=2)
    cache.put([1, 2, 3, 4], state(4))
    cache.put([1, 2, 9], state(3))
    length, kv = cache.longest([1, 2, 3, 7])
    assert length == 3 and kv[0][0].shape[2] == 3
    assert cache.longest([5])[0] == 0
    cache.put([6], state(1))  # evicts the least recently used entry, [1, 2, 9]
    assert cache.longest([1, 2, 9])[0] == 2  # only [1, 2, 3, 4] is left: it shares [1, 2]
    with pytest.raises(ValueError, match="positions"):
        cache.put([1, 2], state(3))


def test_answer_probs_with_prefix_reuse_match_full_recomputation(pair):
    reuse, full, dtype = pair
    for dim in DIMENSIONS:  # one call per dimension: the story's state comes from the LRU after the first
        a = reuse.answer_probs(rubric_like(dim), ["0", "1", "2"])
        b = full.answer_probs(rubric_like(dim), ["0", "1", "2"])
        for k in a.logprobs:
            assert a.logprobs[k] == pytest.approx(b.logprobs[k], abs=TOLERANCE[dtype])
    assert reuse.prefixes.reused_tokens > len(STORY) * (len(DIMENSIONS) - 1) // 2  # the story was read once
    assert full.prefixes.reused_tokens == 0


def test_stored_prefix_states_hold_no_autograd_graph(model_dir):
    """A stored state made with autograd on keeps its forward pass's activations alive while it stays in the store
    (the 0.5B model on three HANNA stories: 0.46 -> 6.5 GB, never given back; 0.5 GB with this held)."""
    lm = tiny_backend(model_dir, dtype="float32")
    assert any(p.requires_grad for p in lm.model.parameters())  # the weights would record a graph
    lm.answer_probs_batch([rubric_like(d) for d in DIMENSIONS[:2]], ["0", "1"])
    lm.score(rubric_like(DIMENSIONS[2]), " Three.")
    states = list(lm.prefixes._states.values())
    assert states
    assert all(t.grad_fn is None and not t.requires_grad for kv in states for layer in kv for t in layer)


def test_batched_answer_probs_match_one_call_per_prompt_without_reuse(pair):
    reuse, full, dtype = pair
    prompts = [rubric_like(d) for d in DIMENSIONS]
    for answers in (["yes", "no"], ["0", "5"]):  # multi-token and single-token answers
        batched = reuse.answer_probs_batch(prompts, answers)
        for p, got in zip(prompts, batched, strict=True):
            want = full.answer_probs(p, answers)
            for k in answers:  # a sum of len(k) token log-probabilities, each within the tolerance
                assert got.logprobs[k] == pytest.approx(want.logprobs[k], abs=TOLERANCE[dtype] * len(k))
            assert sum(got.probs.values()) == pytest.approx(1.0, abs=1e-9)


def test_score_with_prefix_reuse_matches_full_recomputation(pair):
    reuse, full, dtype = pair
    for dim in DIMENSIONS[:2]:
        a = reuse.score(rubric_like(dim), " Three out of five, because the ice is real.")
        b = full.score(rubric_like(dim), " Three out of five, because the ice is real.")
        assert a.tokens == b.tokens
        assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs, strict=True)) < TOLERANCE[dtype]


def test_a_sample_does_not_depend_on_its_batch_companions(model_dir):
    lm = tiny_backend(model_dir, dtype="float32", batch_size=4)
    cfg = GenerateConfig(n=3, temperature=1.0, top_p=0.9, max_tokens=10, seed=7)
    target = rubric_like("Speculative Logic")
    alone = [c.text for c in lm.generate([target], cfg)[0]]
    others = [[{"role": "user", "content": "Name a colour."}], rubric_like("Character Depth"), "A plain prompt."]
    inside = [c.text for c in lm.generate([others[0], target, *others[1:]], cfg)[1]]
    assert alone == inside
    assert len(set(alone)) > 1  # the three samples differ from each other
    assert lm.generate([target], cfg.merge(n=1))[0][0].text == alone[0]  # sample 0 does not depend on n
    assert [c.text for c in lm.generate([target], cfg.merge(seed=8))[0]] != alone


def test_generation_logprobs_match_teacher_forcing_on_the_same_tokens(model_dir):
    lm = tiny_backend(model_dir, dtype="float32")
    prompt = rubric_like("World-Building")
    (c,) = lm.generate([prompt], GenerateConfig(n=1, temperature=1.0, max_tokens=8, seed=3))[0]
    ids = lm.tokenizer.convert_tokens_to_ids(c.tokens)
    ctx = lm._prompt_ids(prompt)
    (forced,), _ = lm._read([ctx + ids], [len(ctx)])
    assert max(abs(x - y) for x, y in zip(forced, c.logprobs, strict=True)) < 1e-4


def test_prefix_reuse_gives_the_same_greedy_generation(pair):
    reuse, full, _ = pair
    cfg = GenerateConfig(n=1, temperature=0.0, max_tokens=6)
    prompts = [rubric_like(d) for d in DIMENSIONS[:3]]
    assert [o[0].tokens for o in reuse.generate(prompts, cfg)] == [o[0].tokens for o in full.generate(prompts, cfg)]


def test_row_seeds_depend_on_prompt_settings_and_index_but_not_n():
    cfg = GenerateConfig(n=2, temperature=0.7, seed=1)
    assert row_seed([1, 2], cfg, 0) == row_seed([1, 2], cfg.merge(n=5), 0)
    assert len({row_seed([1, 2], cfg, 0), row_seed([1, 2], cfg, 1), row_seed([1, 3], cfg, 0),
                row_seed([1, 2], cfg.merge(seed=2), 0), row_seed([1, 2], cfg.merge(temperature=0.8), 0)}) == 5


def test_nucleus_keeps_the_smallest_set_reaching_top_p():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    p = sampling_probs(logits, 1.0, 0.8)
    assert p[0].tolist() == pytest.approx([0.625, 0.375, 0.0, 0.0])
    assert sampling_probs(logits, 1.0, 1.0)[0].tolist() == pytest.approx([0.5, 0.3, 0.15, 0.05])


def test_cached_batch_answers_compute_only_the_misses(model_dir, tmp_path):
    lm = CachedBackend(tiny_backend(model_dir, dtype="float32"), ResponseCache(tmp_path / "c.sqlite"))
    prompts = [rubric_like(d) for d in DIMENSIONS]
    first = lm.answer_probs(prompts[1], ["0", "1"])
    batch = answer_probs_batch(lm, prompts, ["0", "1"])
    assert [r.cached for r in lm.records] == [False, False, True, False, False]
    assert batch[1].probs == first.probs
    assert all(math.isclose(sum(d.probs.values()), 1.0) for d in batch)
    with pytest.raises(ValueError, match="distinct"):
        lm.answer_probs_batch(prompts, ["0", "0"])


def test_auto_dtype_is_bfloat16_only_on_a_cpu_with_native_bfloat16():
    amx = "processor\t: 0\nflags\t\t: fpu sse avx2 avx512f amx_bf16 amx_tile\n"
    avx2 = "processor\t: 0\nflags\t\t: fpu sse avx2 fma\n"
    assert cpu_has_native_bf16(amx) and not cpu_has_native_bf16(avx2)
    assert resolve_dtype("auto", amx) == "bfloat16" and resolve_dtype("auto", avx2) == "float32"
    assert resolve_dtype("float32", amx) == "float32"
    with pytest.raises(ValueError, match="float16"):
        resolve_dtype("float16")
