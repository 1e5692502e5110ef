import pytest

from llmcreativity.llm import CachedBackend, GenerateConfig, ScriptedBackend, cache_key, get_backend, get_embedder


@pytest.mark.parametrize("field,value", [("temperature", -0.1), ("n", 0), ("top_p", 0.0), ("max_tokens", 0)])
def test_bad_sampling_settings_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        GenerateConfig(**{field: value})


def test_stop_given_as_string_becomes_a_tuple():
    assert GenerateConfig(stop="\n").stop == ("\n",)


def test_unknown_model_names_the_model_and_lists_known_ones():
    with pytest.raises(KeyError, match="no-such-model.*smollm2-135m"):
        get_backend("no-such-model")


def test_embedder_name_given_to_get_backend_is_refused():
    with pytest.raises(ValueError, match="get_embedder"):
        get_backend("all-minilm-l6-v2")


def test_language_model_given_to_get_embedder_is_refused():
    with pytest.raises(ValueError, match="get_backend"):
        get_embedder("smollm2-135m")


@pytest.mark.parametrize("prompt",
                         ["", "   ", [], [{"role": "user", "content": ""}], [{"role": "robot", "content": "x"}]])
def test_empty_or_malformed_prompt_is_refused(prompt):
    lm = CachedBackend(ScriptedBackend(lambda p, i: "x"), cache=None)
    with pytest.raises(ValueError, match="prompt|message"):
        lm.generate([prompt], GenerateConfig())


def test_answer_probs_needs_two_distinct_answers():
    lm = CachedBackend(ScriptedBackend(lambda p, i: "x"), cache=None)
    with pytest.raises(ValueError, match="answers"):
        lm.answer_probs("Is it?", ["yes", "yes"])


def test_unreachable_url_raises_connection_error_naming_the_url():
    from llmcreativity.llm.openai_http import OpenAIBackend

    lm = OpenAIBackend("http://127.0.0.1:9/v1", "m", max_retries=1, timeout=2)
    with pytest.raises(ConnectionError, match="127.0.0.1:9"):
        lm.generate(["hello"], GenerateConfig())


def test_base_url_without_scheme_is_refused():
    from llmcreativity.llm.openai_http import OpenAIBackend

    with pytest.raises(ValueError, match="base_url"):
        OpenAIBackend("localhost:8000", "m")


@pytest.mark.parametrize("spec", ["http://127.0.0.1:8000/v1#m", "llama.cpp:smollm2-135m"])
def test_a_role_spec_given_to_get_backend_is_refused_naming_get_role_backend(spec):
    with pytest.raises(ValueError, match=r"role's spec.*get_role_backend"):
        get_backend(spec)


def test_a_cached_run_never_loads_the_local_model(tmp_path):
    """The identity is known before loading, so answers from the cache need no weights (and no torch import)."""
    from llmcreativity.llm.local_models import DeferredLocalBackend

    lazy = DeferredLocalBackend("smollm2-135m", "float32", 4)
    assert lazy.identity == "transformers:smollm2-135m:float32:row-seeded" and "backend" not in vars(lazy)
    cache = tmp_path / "c.sqlite"
    lm = get_backend("smollm2-135m", cache=cache)
    lm.cache.put(cache_key(lm.identity, "answer_probs", "Is it? ", ["yes", "no"]),
                 {"probs": {"yes": 0.7, "no": 0.3}, "logprobs": {"yes": -0.5, "no": -1.3}, "usage": {}})
    assert lm.answer_probs("Is it? ", ["yes", "no"]).probs["yes"] == 0.7
    assert "backend" not in vars(lm.inner)  # the weights were never loaded


def test_unknown_local_model_is_refused_before_anything_loads():
    with pytest.raises(KeyError, match="smollm2-135m"):
        get_backend("no-such-model")


def test_flat_form_round_trips_with_renames_and_leftover_keys():
    cfg = GenerateConfig(temperature=0.7, max_tokens=64, seed=3)
    flat = cfg.to_flat(omit=("n",), rename={"max_tokens": "budget"})
    assert flat == {"temperature": 0.7, "top_p": 1.0, "budget": 64, "seed": 3}  # no "stop" while it is unset
    back, rest = GenerateConfig.from_flat({**flat, "rounds": 2}, rename={"max_tokens": "budget"})
    assert back == cfg and rest == {"rounds": 2}
    stopping = cfg.merge(stop=("\n",))
    assert GenerateConfig.from_flat(stopping.to_flat())[0] == stopping
