"""The provenance record shown at the end of every executed notebook."""

from __future__ import annotations

import hashlib

from llmcreativity.llm import CachedBackend, GenerateConfig, ScriptedBackend, cache_key, get_backend
from llmcreativity.llm.cache_wrapping import loaded_models
from llmcreativity.pipeline.provenance import collect, package_versions, start_recording, to_markdown


def test_provenance_lists_data_files_read_with_their_hash(tmp_path, monkeypatch):
    data, results = tmp_path / "data", tmp_path / "results"
    (data / "set").mkdir(parents=True)
    (results / "executed").mkdir(parents=True)
    monkeypatch.setenv("LLMCREATIVITY_DATA", str(data))
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(results))
    (data / "set" / "a.txt").write_text("alpha")
    (data / "unread.txt").write_text("beta")
    (results / "executed" / "run.json").write_text('{"stages": {}}')
    start_recording("test")
    with open(data / "set" / "a.txt") as f:
        f.read()
    with open(results / "written.jsonl", "w") as f:
        f.write("{}\n")
    with open(results / "written.jsonl") as f:  # read back its own output: still not an input
        f.read()
    (results / "executed" / "run.json").read_text()
    record = collect("test", {"n": 3})
    assert [(i.path, i.sha256) for i in record.inputs] == [("data/set/a.txt", hashlib.sha256(b"alpha").hexdigest())]


def test_provenance_lists_the_models_llm_handed_out_with_their_calls(tmp_path):
    cache = tmp_path / "calls.sqlite"
    lm = get_backend("smollm2-135m", cache=cache)  # deferred: answered from the cache, the weights never load
    lm.cache.put(cache_key(lm.identity, "answer_probs", "Is it? ", ["yes", "no"]),
                 {"probs": {"yes": 0.7, "no": 0.3}, "logprobs": {"yes": -0.5, "no": -1.3}, "usage": {}})
    again = get_backend("smollm2-135m", cache=cache)
    for backend in (lm, again, again):
        backend.answer_probs("Is it? ", ["yes", "no"])
    direct = CachedBackend(ScriptedBackend(lambda prompt, i: "reply"), cache=None)  # not handed out by llm
    direct.generate(["hello"], GenerateConfig(n=1, max_tokens=4))
    before = {m.identity: m.calls for m in collect("test", {}).models}
    assert before[lm.identity] >= 3 and direct.identity not in before
    lm.answer_probs("Is it? ", ["yes", "no"])
    after = {m.identity: m.calls for m in collect("test", {}).models}
    assert after[lm.identity] == before[lm.identity] + 1
    assert [m.kind for m in loaded_models() if m.identity == lm.identity][-2:] == ["CachedBackend"] * 2


def test_to_markdown_shows_parameters_and_package_versions():
    record = collect("test", {"temperature": 0.7, "model": "smollm2-135m"})
    text = to_markdown(record)
    assert '| `temperature` | `0.7` |' in text and "| `model` | `'smollm2-135m'` |" in text
    assert f"numpy {package_versions()['numpy']}" in text


def test_provenance_shows_each_call_policy_in_words_with_its_models(tmp_path, monkeypatch):
    from llmcreativity.llm import cache_wrapping
    from llmcreativity.llm.call_policy import CallPolicy

    monkeypatch.setattr(cache_wrapping, "_loaded", [])
    replaying = ScriptedBackend(lambda prompt, i: "reply")
    replaying.identity = "scripted-replayed"
    policy = CallPolicy("replay-only", spot_check=tmp_path / "spot.jsonl", call_log=tmp_path / "calls.jsonl")
    cache_wrapping.wrap_backend(replaying, cache=tmp_path / "c.sqlite", policy=policy)
    cache_wrapping.wrap_backend(ScriptedBackend(lambda prompt, i: "reply"), cache=None, policy=CallPolicy())
    text = to_markdown(collect("test", {}))
    assert (f"- Calls of `scripted-replayed`: replay-only (the record's cache answers every call; a miss stops the "
            f"stage), spot-checked (a few answered calls computed again, filed in `{tmp_path / 'spot.jsonl'}`), "
            f"calls logged to `{tmp_path / 'calls.jsonl'}` and not counted.") in text
    assert "- Calls of `scripted`: computed (no call cache: the model answers every call), not spot-checked" in text


def test_provenance_shows_the_runs_policy_when_no_model_was_handed_out(monkeypatch):
    from llmcreativity.context import variable
    from llmcreativity.llm import cache_wrapping

    monkeypatch.setattr(cache_wrapping, "_loaded", [])
    monkeypatch.setenv(variable("cache_only"), "1")
    assert "- Model calls: replay-only (" in to_markdown(collect("test", {}))
