"""The provenance record shown at the end of every executed notebook."""

from __future__ import annotations

import hashlib

from llmcreativity.book.provenance import collect, package_versions, start_recording, to_markdown
from llmcreativity.llm import CachedBackend, GenerateConfig, ScriptedBackend


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


def test_provenance_lists_models_created_in_the_process():
    lm = CachedBackend(ScriptedBackend(lambda prompt, i: "reply"), cache=None)
    lm.generate(["hello"], GenerateConfig(n=2, max_tokens=4))
    record = collect("test", {})
    scripted = [m for m in record.models if m.identity == lm.identity]
    assert scripted and max(m.calls or 0 for m in scripted) >= 1


def test_to_markdown_shows_parameters_and_package_versions():
    record = collect("test", {"temperature": 0.7, "model": "smollm2-135m"})
    text = to_markdown(record)
    assert '| `temperature` | `0.7` |' in text and "| `model` | `'smollm2-135m'` |" in text
    assert f"numpy {package_versions()['numpy']}" in text
