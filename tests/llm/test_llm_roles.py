"""Model roles and endpoint probes against a scripted OpenAI-compatible server (no model runs)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fake_endpoint import BOS, FakeServer
from llmcreativity.context import variable
from llmcreativity.llm import get_backend
from llmcreativity.llm.device import resolve_dtype
from llmcreativity.llm.probes import EndpointError, check_endpoint, echo_shift
from llmcreativity.llm.registry import llamacpp_identity, local_identity
from llmcreativity.llm.roles import (
    get_role_backend,
    get_role_embedder,
    local_model,
    parse_role,
    role_label,
    role_uses,
    with_endpoint,
)
from llmcreativity.pipeline.parameters import ParameterError
from llmcreativity.pipeline.planning import declared_parameters, plan
from llmcreativity.pipeline.stages import STAGES

SECRET = "sk-test-7d1f0c-never-print-me"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A fresh cache folder (probe reports, call cache) and results folder for every test."""
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    monkeypatch.delenv("LLMCREATIVITY_PROFILE", raising=False)
    monkeypatch.delenv(variable("no_local_lm"), raising=False)


# -- specs -----------------------------------------------------------------------------------------------
def test_a_spec_is_a_local_name_or_url_hash_model():
    assert parse_role("smollm2-135m") == replace(parse_role("smollm2-135m"), base_url="")
    spec = parse_role("https://api.example/v1/#org/model-7b")
    assert (spec.base_url, spec.model, spec.is_endpoint) == ("https://api.example/v1", "org/model-7b", True)
    assert spec.spec == "https://api.example/v1#org/model-7b"


@pytest.mark.parametrize("bad", ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1#", "http://#m", ""])
def test_a_malformed_endpoint_spec_is_refused_naming_the_role_and_the_form(bad):
    with pytest.raises(ValueError, match=r"rubric_judge=.*(URL#MODEL|local model name)"):
        parse_role(bad, "rubric_judge")


def test_the_run_wide_endpoint_replaces_a_role_keeps_an_empty_one_and_collapses_a_list():
    assert with_endpoint("qwen2.5-coder-1.5b", "http://h:1/v1/", "m") == "http://h:1/v1#m"
    assert with_endpoint(["a", "b"], "http://h:1/v1", "m") == ["http://h:1/v1#m"]
    assert with_endpoint("", "http://h:1/v1", "m") == ""
    assert with_endpoint("qwen2.5-coder-1.5b", "", "smollm2-135m") == "smollm2-135m"


def test_a_role_label_is_safe_as_a_folder_name():
    assert role_label("qwen2.5-coder-0.5b") == "qwen2.5-coder-0.5b"
    assert "/" not in role_label("http://127.0.0.1:8000/v1#org/m") and ":" not in role_label("http://h:1/v1#m")
    assert role_label("llama.cpp:qwen2.5-coder-0.5b") == "qwen2.5-coder-0.5b@llama.cpp"


def test_a_llamacpp_spec_names_the_engine_and_only_a_registry_language_model():
    spec = parse_role("llama.cpp:qwen2.5-coder-0.5b", "writer")
    assert (spec.model, spec.engine, spec.is_endpoint, spec.spec) == (
        "qwen2.5-coder-0.5b", "llama.cpp", False, "llama.cpp:qwen2.5-coder-0.5b")
    assert parse_role("qwen2.5-coder-0.5b").engine == "transformers"
    assert local_model("llama.cpp:qwen2.5-coder-0.5b") == "qwen2.5-coder-0.5b"
    for bad in ("llama.cpp:all-minilm-l6-v2", "llama.cpp:no-such-model", "llama.cpp:"):
        with pytest.raises(ValueError, match=r"writer=.*llama\.cpp:NAME runs a registry language model"):
            parse_role(bad, "writer")


def test_a_llamacpp_role_is_the_llamacpp_engine_with_its_own_identity():
    lm = get_role_backend("writer", "llama.cpp:smollm2-135m", cache=None)
    assert lm.identity == llamacpp_identity("smollm2-135m") != local_identity("smollm2-135m", resolve_dtype("auto"))
    assert (role_uses()[-1].spec, role_uses()[-1].served_model) == ("llama.cpp:smollm2-135m", "smollm2-135m")


def test_a_llamacpp_role_is_checked_by_the_plan_before_anything_runs():
    with pytest.raises(ParameterError, match=r"writer='llama.cpp:gpt-9'.*registry language model"):
        plan("default", [("review.writer", "llama.cpp:gpt-9")], only=None)
    plans = plan("default", [("review.writer", "llama.cpp:smollm2-135m")])
    assert next(p for p in plans if p.stage.name == "review").parameters["writer"] == "llama.cpp:smollm2-135m"


# -- planning ----------------------------------------------------------------------------------------------
def _lm_roles(plans):
    for p in plans:
        for name, param in p.declared.items():
            if param.registry is not None:
                yield p.stage.name, name, param.registry, p.parameters.get(name, param.default)


def test_base_url_and_model_send_every_language_model_role_of_every_stage_to_the_server():
    with FakeServer(models=["served"]) as server:
        plans = plan("smoke", [("base_url", server.url), ("model", "served"),
                               ("rubric_judge", f"{server.url}#served")])
    target = f"{server.url}#served"
    seen = set()
    for stage, name, kind, value in _lm_roles(plans):
        if kind == "embedder":
            assert not str(value).startswith("http"), (stage, name)
        elif value in ("", []):
            assert name == "weak_convergent_judge"  # an optional role left off stays off
        else:
            assert value in (target, [target]), (stage, name, value)
            seen.add(name)
    assert {"writer", "large_writer", "surprisal_scorer", "entailment_judges", "entailment_judge", "se_models",
            "novelty_judge", "convergent_judge", "rubric_judge"} <= seen


def test_a_role_set_by_its_own_parameter_keeps_its_value_under_the_run_wide_endpoint():
    with FakeServer(models=["served", "judge"]) as server:
        plans = plan("smoke", [("base_url", server.url), ("model", "served"),
                               ("rubric_judge", f"{server.url}#judge"), ("corpus.surprisal_scorer", "smollm2-135m")])
    by_stage = {p.stage.name: p.parameters for p in plans}
    assert by_stage["evaluation"]["rubric_judge"] == f"{server.url}#judge"
    assert by_stage["evaluation"]["surprisal_scorer"] == f"{server.url}#served"
    assert by_stage["corpus"]["surprisal_scorer"] == "smollm2-135m"


def test_without_base_url_the_plan_is_what_it_was():
    plans = plan("default", [])
    for p in plans:
        assert p.parameters == dict(p.stage.profiles["default"])


def test_base_url_without_a_model_name_is_refused_once():
    with pytest.raises(ParameterError) as err:
        plan("smoke", [("base_url", "http://127.0.0.1:9/v1")])
    assert str(err.value).count("needs -p model NAME") == 1


def test_model_alone_sets_every_language_model_role_to_that_local_model():
    plans = plan("smoke", [("model", "gemma3-270m")])
    for stage, name, kind, value in _lm_roles(plans):
        if kind == "model" and value not in ("", []):
            assert value in ("gemma3-270m", ["gemma3-270m"]), (stage, name)


def test_no_notebook_declares_a_run_wide_option():
    for stage in STAGES:
        assert not {"base_url", "model"} & set(declared_parameters(stage)), stage.name


# -- bad endpoints, before any work -------------------------------------------------------------------------
def test_an_unreachable_endpoint_is_refused_before_anything_runs():
    with pytest.raises(ParameterError, match=r"rubric_judge in stage evaluation: http://127.0.0.1:9/v1/models is "
                                             r"unreachable"):
        plan("smoke", [("rubric_judge", "http://127.0.0.1:9/v1#m")])


def test_a_model_the_server_does_not_list_is_refused_naming_what_it_lists():
    with FakeServer(models=["qwen-7b"]) as server, pytest.raises(ParameterError) as err:
        plan("smoke", [("base_url", server.url), ("model", "qwen2.5-coder-0.5b")])
    text = str(err.value)
    assert "does not serve a model named 'qwen2.5-coder-0.5b'; it lists ['qwen-7b']" in text
    assert text.count("does not serve") == 1  # one message for the endpoint, naming every role


def test_a_server_without_log_probabilities_is_refused_for_the_roles_that_need_them():
    with FakeServer(logprobs=False, top_logprobs=False, echo="none") as server, pytest.raises(ParameterError) as e:
        plan("smoke", [("base_url", server.url), ("model", "fake-model")])
    text = str(e.value)
    for role, capability in (("writer", "logprobs"), ("rubric_judge", "top_logprobs"),
                             ("surprisal_scorer", "echo"), ("entailment_judge", "top_logprobs")):
        assert f"role {role} on {server.url} (model 'fake-model'): the server does not offer {capability}" in text


@pytest.mark.parametrize("key", [None, "sk-wrong-key-value"])
def test_a_refused_key_is_named_by_its_variable_and_its_value_never_appears(key, monkeypatch, capsys):
    from llmcreativity.cli import main

    if key:
        monkeypatch.setenv("MY_KEY", key)
    else:
        monkeypatch.delenv("MY_KEY", raising=False)
    with FakeServer(api_key=SECRET) as server:
        status = main(["run", "--profile", "smoke", "--dry-run", "--stage", "backends", "-p", "api_key_env", "MY_KEY",
                       "-p", "writer", f"{server.url}#fake-model"])
    out = capsys.readouterr()
    assert status == 2
    assert "HTTP 401" in out.err and "$MY_KEY" in out.err
    assert ("is not set" in out.err) == (key is None)
    for text in (out.out, out.err):
        assert SECRET not in text and (key is None or key not in text)


def test_the_key_reaches_the_server_but_not_the_identity_or_the_provenance(monkeypatch):
    from llmcreativity.pipeline.provenance import collect, to_markdown

    monkeypatch.setenv("MY_KEY", SECRET)
    with FakeServer(api_key=SECRET) as server:
        lm = get_role_backend("rubric_judge", f"{server.url}#fake-model", api_key_env="MY_KEY", cache=None)
        lm.answer_probs([{"role": "user", "content": "Yes or no?"}], ["OK", "No"])
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in server.headers)
    text = to_markdown(collect("evaluation", {"api_key_env": "MY_KEY"}))
    assert SECRET not in text and SECRET not in lm.identity and server.url in text


def test_the_run_wide_endpoint_settings_are_a_roles_defaults_and_explicit_arguments_win(monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_API_KEY_ENV", "MY_KEY")  # what `llmcreativity run -p api_key_env` sets
    monkeypatch.setenv("LLMCREATIVITY_MAX_CONCURRENCY", "3")
    monkeypatch.setenv("MY_KEY", SECRET)
    with FakeServer(api_key=SECRET) as server:
        lm = get_role_backend("rubric_judge", f"{server.url}#fake-model", cache=None)
        lm.answer_probs([{"role": "user", "content": "Yes or no?"}], ["OK", "No"])
        two = get_role_backend("rubric_judge", f"{server.url}#fake-model", max_concurrency=2, cache=None)
        monkeypatch.setenv("LLMCREATIVITY_MAX_CONCURRENCY", "0")
        with pytest.raises(ValueError, match=r"\$LLMCREATIVITY_MAX_CONCURRENCY: max_concurrency='0'"):
            get_role_backend("rubric_judge", f"{server.url}#fake-model", cache=None)
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in server.headers)
    assert (lm.inner.max_concurrency, two.inner.max_concurrency) == (3, 2)


# -- capabilities --------------------------------------------------------------------------------------------
def test_probe_reports_are_cached_so_a_second_check_only_lists_the_models():
    with FakeServer() as server:
        check_endpoint(server.url, "fake-model", ["chat", "n", "logprobs", "top_logprobs", "echo"])
        first = len(server.requests)
        again = check_endpoint(server.url, "fake-model", ["chat", "logprobs", "echo"])
    assert server.paths()[first:] == ["/v1/models"]
    assert not again.missing(["chat", "logprobs", "echo"])


def test_a_missing_capability_is_probed_again_so_a_fixed_server_is_accepted():
    with FakeServer(logprobs=False) as server:
        assert check_endpoint(server.url, "fake-model", ["chat", "logprobs"]).missing(["logprobs"]) == ["logprobs"]
        server.logprobs = True
        assert check_endpoint(server.url, "fake-model", ["chat", "logprobs"]).missing(["logprobs"]) == []


def test_a_server_that_ignores_n_is_used_concurrently_and_says_so():
    with FakeServer(n=False) as server:
        lm = get_role_backend("writer", f"{server.url}#fake-model", cache=None)
    assert lm.inner.n_supported is False
    assert "samples are asked for one by one" in role_uses()[-1].notes


def test_echo_alignment_is_read_from_the_top_alternatives():
    tokens = ["1", ", ", "2", ", ", "3"]
    assert echo_shift(tokens, [None, {", ": -0.1}, {"2": -0.1}, {", ": -0.1}, {"3": -0.1}]) == 0
    assert echo_shift(tokens, [None, {"2": -0.1}, {", ": -0.1}, {"3": -0.1}, {"?": -0.1}]) == 1
    assert echo_shift(tokens, [None, None, None, None, None]) is None


def test_a_shifted_echo_is_corrected_with_a_bos_token_and_scores_pick_the_continuation():
    with FakeServer(echo="shifted-bos") as server:
        lm = get_role_backend("surprisal_scorer", f"{server.url}#fake-model", cache=None)
        scores = lm.score("Story: 1, 2", ", 3")
        sent = server.requests[-1][1]["prompt"]
    assert lm.inner.score_prefix == BOS and sent == BOS + "Story: 1, 2, 3"
    assert scores.tokens == [", ", "3"]
    # "Story: 1, 2" is 10 fake tokens, so the continuation's tokens are the 11th and 12th: -(i + 1) / 100.
    assert scores.logprobs == pytest.approx([-0.11, -0.12])
    assert "corrected by prepending '<s>'" in role_uses()[-1].notes


def test_a_shift_no_bos_corrects_is_refused_for_surprisal_but_not_for_a_writer():
    with FakeServer(echo="shifted") as server:
        with pytest.raises(EndpointError, match="role surprisal_scorer .* does not offer echo .*shifted by one token"):
            get_role_backend("surprisal_scorer", f"{server.url}#fake-model", cache=None)
        get_role_backend("writer", f"{server.url}#fake-model", cache=None)


def test_the_served_model_is_recorded_and_enters_the_identity_when_it_differs():
    with FakeServer(models=["judge"], root="/models/Qwen2.5-7B-Instruct") as server:
        lm = get_role_backend("rubric_judge", f"{server.url}#judge", cache=None)
    use = role_uses()[-1]
    assert lm.identity == f"openai:{server.url}:judge@/models/Qwen2.5-7B-Instruct"
    assert (use.role, use.endpoint, use.served_model) == ("rubric_judge", server.url, "/models/Qwen2.5-7B-Instruct")


def test_a_server_that_lists_no_models_has_the_answer_model_field_recorded():
    with FakeServer(models=None, response_model="gpt-4o-2024-08-06") as server:
        lm = get_role_backend("writer", f"{server.url}#gpt-4o", cache=None)
    assert lm.identity.endswith(":gpt-4o@gpt-4o-2024-08-06")


def test_an_embedder_role_on_an_endpoint_returns_unit_rows_of_the_probed_length():
    with FakeServer(embedding_dim=4) as server:
        emb = get_role_embedder("embedder", f"{server.url}#fake-model", cache=None)
        v = emb.encode(["a", "bcd"])
    assert v.shape == (2, 4) and emb.dim == 4
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)


def test_an_embedder_role_retries_a_busy_server_like_the_chat_backend(monkeypatch):
    monkeypatch.setattr("llmcreativity.llm.http_client.time.sleep", lambda s: None)
    with FakeServer() as server:
        emb = get_role_embedder("embedder", f"{server.url}#fake-model", cache=None)
        server.busy = 2
        rows = emb.encode(["a", "bb"])
        assert server.paths()[-3:] == ["/v1/embeddings"] * 3
        server.busy = 10
        with pytest.raises(RuntimeError, match=r"/v1/embeddings answered HTTP 503"):
            emb.encode(["ccc"])
    assert rows.shape == (2, 3) and np.allclose(np.linalg.norm(rows, axis=1), 1)
    assert (emb.inner.stats.counts().retries, emb.inner.stats.counts().failures) == (2 + 5, 1)


def test_an_embedder_role_on_a_server_without_embeddings_is_refused():
    with FakeServer(embedding_dim=None) as server, pytest.raises(EndpointError, match="does not offer embeddings"):
        get_role_embedder("embedder", f"{server.url}#fake-model")


# -- local roles and the guard ------------------------------------------------------------------------------------
def test_a_local_role_is_the_get_backend_model_with_the_same_identity():
    lm = get_role_backend("writer", "smollm2-135m", cache=None)
    assert lm.identity == get_backend("smollm2-135m", cache=None).identity
    assert lm.identity == local_identity("smollm2-135m", resolve_dtype("auto"))
    assert role_uses()[-1].endpoint == ""


def test_the_no_local_model_guard_refuses_a_local_role_and_allows_an_endpoint(monkeypatch):
    monkeypatch.setenv(variable("no_local_lm"), "1")
    refused = r"local language model 'smollm2-135m' requested while \$LLMCREATIVITY_NO_LOCAL_LM"
    with pytest.raises(RuntimeError, match=refused):
        get_role_backend("writer", "smollm2-135m", cache=None)
    with FakeServer() as server:
        get_role_backend("writer", f"{server.url}#fake-model", cache=None)


def test_a_claim_carries_the_endpoint_and_the_served_model(monkeypatch):
    from llmcreativity.claims.verdicts import not_testable
    from llmcreativity.pipeline.claim_records import read_claims, record_claims

    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    with FakeServer(models=["judge"], root="weights-7b") as server:
        lm = get_role_backend("rubric_judge", f"{server.url}#judge", cache=None)
    record_claims("evaluation", {"A3": not_testable("one model plays every role")})
    (claim,) = read_claims()
    assert lm.identity in claim.models and f"{server.url}:judge@weights-7b" in lm.identity
    assert f"rubric_judge: {lm.identity}" in claim.roles
