"""The llama.cpp engine on the packaged 135M GGUF (98 MB, loads in about a second): same prompt ids, row-seeded
samples, greedy = scoring's argmax, stop strings, answer probabilities; selection through `get_backend`."""

import llama_cpp
import pytest

from llmcreativity.hashing import sha256_file
from llmcreativity.llm import GenerateConfig, get_backend, materialize
from llmcreativity.llm.device import resolve_dtype
from llmcreativity.llm.llamacpp_local import LlamaCppBackend, gguf_text_side, physical_cores
from llmcreativity.llm.local_engine import prompt_ids
from llmcreativity.llm.registry import local_identity
from llmcreativity.paths import cache_dir

MODEL = "smollm2-135m"
CHAT = [{"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Write one sentence about a lighthouse keeper on Europa. Ünïcödé 🚀 ok?"}]
YES_NO = [{"role": "user", "content": "Is the sky blue on a clear day? Answer Yes or No."}]
SCORE_GAP = 0.5
"""Largest |log p_llama.cpp - log p_transformers| of one token allowed (nats); the mean must stay below 0.15.

Measured on the scoring test's story: largest 0.20, mean 0.072 (qwen2.5-coder-0.5b: 0.18, 0.044). A prompt read
with other ids or positions would miss by several nats."""


@pytest.fixture(scope="module")
def cpp():
    return LlamaCppBackend.from_registry(MODEL)


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_engine_is_chosen_by_name_and_its_identity_names_the_gguf_digest_and_the_engine_version(cpp):
    """Deliberately changed (exact-replay issue, item 1): before, `llama.cpp:<model>:<gguf file>:row-seeded`; now
    the GGUF's SHA-256 prefix and the llama-cpp-python version follow the file name, so another GGUF or another
    engine build never answers from these entries."""
    lm = get_backend(MODEL, engine="llama.cpp", cache=None)
    digest = sha256_file(materialize(MODEL))[:16]
    assert lm.identity == (f"llama.cpp:smollm2-135m:SmolLM2-135M-Instruct.Q4_1.gguf:sha256-{digest}"
                           f":llama-cpp-python-{llama_cpp.__version__}:row-seeded")
    assert "backend" not in vars(lm.inner)  # nothing loaded until the first real call
    assert cpp.identity == lm.identity  # the loaded engine and the deferred one agree
    assert get_backend(MODEL, cache=None).identity == local_identity(MODEL, resolve_dtype("auto"))
    with pytest.raises(ValueError, match="engine='cuda'.*choose one of"):
        get_backend(MODEL, engine="cuda")
    with pytest.raises(ValueError, match="registry's GGUF language models"):
        get_backend("all-mpnet-base-v2", engine="llama.cpp")


def test_physical_cores_counts_distinct_cores_not_hyperthreads():
    two_threads_each = "".join(f"processor\t: {p}\nphysical id\t: 0\ncore id\t\t: {p // 2}\n\n" for p in range(4))
    assert physical_cores(two_threads_each) <= 2
    assert physical_cores("processor\t: 0\n") >= 1  # no core ids: the usable CPUs


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_prompt_ids_are_the_tokenizers_and_llamacpp_reads_the_same_vocabulary(cpp):
    """The ids fed to llama.cpp are the transformers path's; llama.cpp splits the templated text identically."""
    ids = cpp._prompt_ids(CHAT)
    text = cpp.tokenizer.apply_chat_template(CHAT, add_generation_prompt=True, tokenize=False)
    assert ids == cpp._model.tokenize(text.encode(), add_bos=False, special=True)
    assert cpp.tokenizer.decode(ids) == cpp._model.detokenize(ids, special=True).decode()


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_a_sample_does_not_depend_on_its_batch_companions(cpp):
    cfg = GenerateConfig(n=2, temperature=0.9, max_tokens=12, seed=5)
    alone = cpp.generate([CHAT], cfg)[0]
    others = [[{"role": "user", "content": "Name a colour."}], [{"role": "user", "content": "Count to three."}]]
    inside = cpp.generate([others[0], CHAT, others[1]], cfg)[1]
    assert [c.text for c in alone] == [c.text for c in inside]
    assert alone[0].text != alone[1].text  # two samples, two seeds
    first_of_three = cpp.generate([CHAT], cfg.merge(n=3))[0][:2]  # sample i is the same whatever n
    assert [c.text for c in first_of_three] == [c.text for c in alone]


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_greedy_generation_is_the_argmax_of_teacher_forcing(cpp):
    (out,) = cpp.generate([CHAT], GenerateConfig(n=1, temperature=0, max_tokens=16))
    ids = cpp._prompt_ids(CHAT)
    new = cpp.tokenizer(out[0].text, add_special_tokens=False)["input_ids"]
    seq = ids + new
    scored, _ = cpp._read([seq], [len(ids)])
    import torch
    for t in range(len(ids), len(seq)):
        _, last = cpp._read([seq[:t]], [t])
        assert int(torch.argmax(last[0])) == seq[t]
    assert max(abs(a - b) for a, b in zip(out[0].logprobs, scored[0], strict=False)) < 1e-3


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_sampled_logprobs_agree_with_scoring(cpp):
    (out,) = cpp.generate([CHAT], GenerateConfig(n=2, temperature=0.8, max_tokens=16, seed=5))
    for c in out:
        s = cpp.score(CHAT, c.text)
        assert s.tokens == c.tokens
        assert max(abs(a - b) for a, b in zip(s.logprobs, c.logprobs, strict=True)) < 1e-3


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_without_logprobs_the_same_samples_come_back_with_their_tokens(cpp):
    # the engine computes the log-probabilities anyway; a recorded sample is checked by teacher-forcing its tokens
    cfg = GenerateConfig(n=2, temperature=0.8, max_tokens=16, seed=5)
    weighed, plain = (cpp.generate([CHAT], cfg.merge(logprobs=on))[0] for on in (True, False))
    assert [(c.text, c.tokens, c.logprobs) for c in plain] == [(c.text, c.tokens, c.logprobs) for c in weighed]
    assert all(len(c.tokens) == len(c.logprobs) == c.usage.completion_tokens > 0 for c in plain)


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_stop_string_cuts_the_text_where_the_unstopped_sample_has_it(cpp):
    """Same seed, same rows: the stopped sample is the unstopped one cut before its first stop string."""
    cfg = GenerateConfig(n=1, temperature=0.0, max_tokens=24)
    full = cpp.generate([CHAT], cfg)[0][0].text
    stop = next(w for w in full.split() if len(w) > 3)
    cut = cpp.generate([CHAT], cfg.merge(stop=(stop,)))[0][0]
    assert cut.finish_reason == "stop" and cut.text == full[:full.index(stop)] and stop not in cut.text
    assert cpp.tokenizer.convert_tokens_to_string(cut.tokens) in full and len(cut.logprobs) == len(cut.tokens)


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_answer_probs_sum_to_one_and_batch_equals_one_by_one(cpp):
    answers = ["Yes", "No", "maybe so"]
    prompts = [YES_NO, [{"role": "user", "content": "Is fire cold? Answer Yes or No."}]]
    batch = cpp.answer_probs_batch(prompts, answers)
    for d, p in zip(batch, prompts, strict=True):
        assert sum(d.probs.values()) == pytest.approx(1.0, abs=1e-9)
        alone = cpp.answer_probs(p, answers)
        assert max(abs(alone.logprobs[a] - d.logprobs[a]) for a in answers) < 1e-3


@pytest.mark.slow  # loads the 135M GGUF on llama.cpp
def test_rows_that_do_not_fit_at_once_run_in_rounds():
    small = LlamaCppBackend.from_registry(MODEL, n_ctx=256, parallel=3)
    cfg = GenerateConfig(n=3, temperature=0.9, max_tokens=8, seed=1)
    wide = LlamaCppBackend.from_registry(MODEL)
    assert [c.text for c in small.generate([CHAT, YES_NO], cfg)[1]] == \
        [c.text for c in wide.generate([CHAT, YES_NO], cfg)[1]]
    with pytest.raises(ValueError, match="larger n_ctx"):
        small.generate([CHAT], cfg.merge(max_tokens=400))


@pytest.fixture(scope="module")
def transformers_lm():
    from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf

    return TransformersBackend(convert_gguf(MODEL, materialize(MODEL)), name=MODEL, dtype="float32")


@pytest.mark.slow
def test_the_tokenizer_read_from_the_gguf_is_the_converted_folders():
    """Without the converted folder the engine reads the tokenizer from the GGUF, as `convert_gguf` does."""
    folder = cache_dir() / "models" / MODEL / "hf"
    ours, eos = gguf_text_side(materialize(MODEL))
    theirs, their_eos = gguf_text_side(materialize(MODEL), folder)
    for prompt in (CHAT, YES_NO):
        assert prompt_ids(ours, prompt, chat=True, name=MODEL) == prompt_ids(theirs, prompt, chat=True, name=MODEL)
    assert eos == their_eos


@pytest.mark.slow
def test_prompt_ids_and_end_of_sequence_match_the_transformers_path(cpp, transformers_lm):
    for prompt in (CHAT, YES_NO, "A plain prompt: once upon a time"):
        assert cpp._prompt_ids(prompt) == transformers_lm._prompt_ids(prompt)
    assert cpp.eos_ids == transformers_lm.eos_ids


@pytest.mark.slow
def test_scores_agree_with_the_dequantized_transformers_model(cpp, transformers_lm):
    """Same tokens, quantized (Q4_1) vs dequantized float32 weights: per-token log-probabilities within SCORE_GAP.

    The dequantized model holds exactly the GGUF's weights in float32; llama.cpp rounds the activations to 8 bits
    for its quantized products (see SCORE_GAP for the measured gaps).
    """
    story = ("The keeper of the light on Europa watched Jupiter rise over the ice every morning. She kept a log of "
             "the cracks that opened in the night, and one day a crack spelled her name.")
    ours, theirs = cpp.score(CHAT, story), transformers_lm.score(CHAT, story)
    assert ours.tokens == theirs.tokens
    gaps = [abs(a - b) for a, b in zip(ours.logprobs, theirs.logprobs, strict=True)]
    assert max(gaps) < SCORE_GAP and sum(gaps) / len(gaps) < 0.15


@pytest.mark.slow
def test_answer_probs_rank_like_the_transformers_path(cpp, transformers_lm):
    """On prompts the 135M model answers clearly (it cannot answer factual yes/no questions: p(Yes) about 0.2 for
    "Is the sky blue?"), both engines pick the same answer with nearly the same probability (measured: p(Yes) 0.76 vs
    0.82 and 0.036 vs 0.041)."""
    answers = ["Yes", "No"]
    for word in answers:
        prompt = [{"role": "user", "content": f"Repeat after me: {word}"}]
        ours, theirs = cpp.answer_probs(prompt, answers), transformers_lm.answer_probs(prompt, answers)
        assert max(ours.probs, key=ours.probs.get) == max(theirs.probs, key=theirs.probs.get) == word
        assert abs(ours.probs["Yes"] - theirs.probs["Yes"]) < 0.1


@pytest.mark.slow
def test_a_model_with_sliding_window_layers_is_refused():
    with pytest.raises(ValueError, match="sliding-window.*engine='transformers'"):
        LlamaCppBackend.from_registry("gemma3-270m")
