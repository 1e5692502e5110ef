"""Every stage notebook end to end in the smoke profile, live, with every language-model role on a llama.cpp server
on loopback (slow).

One `llmcreativity run --profile smoke -p base_url URL -p model smollm2-135m` against llama-cpp-python serving
the packaged 135M GGUF, with $LLMCREATIVITY_NO_LOCAL_LM set so that any local language model would fail its
stage. Embedders stay local. The call cache starts empty, so every model call reaches the server. It is the test
suite's one live run of every notebook: besides what ran where, it checks what any smoke run must do (no error
output, outputs and run report inside the smoke folder, no claim recorded). The same notebooks on the embedded
models are run by `test_smoke_replay_guard.py`, which replays the committed smoke record through every stage and
recomputes a spot check of its calls live on those models.

It is part of `make test`; `pytest -m e2e` runs it alone. It checks what ran where, not how fast (the run's
seconds per stage are printed): on this project's 2-core machine the served smoke run takes minutes, because
llama-cpp-python's server reads prompts at the CPU's pace for the 135M model and reports each echoed prompt
token's log-probability after sorting the whole vocabulary in Python.
"""

from __future__ import annotations

import json
import re
import time

import nbformat
import pytest

from llmcreativity.context import variable
from llmcreativity.llm.registry import short_label
from llmcreativity.paths import cache_dir
from llmcreativity.pipeline.execution import run
from llmcreativity.pipeline.manifest import read_manifest
from llmcreativity.pipeline.run_report import read_run_report
from llmcreativity.pipeline.stages import STAGES

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

SERVED = "smollm2-135m"
"""The name the test server lists (conftest's `llama_server`)."""

SMALLER = [("judge_lab.lm_items", "20"), ("evaluation.hanna_n", "0"), ("evaluation.repeats", "1")]
"""Fewer calls where the served run spends its minutes, each path still taken: the laboratory's checklist on 20
development solutions, not the smoke profile's 45 (its heads still find both labels in every inner fold), and the
rubric judge on the stories alone, one sample each (the HANNA check and the repeats' spread run in the smoke
replay, on the embedded models)."""


@pytest.fixture(scope="module")
def served(llama_server, tmp_path_factory):
    """(the smoke folder, manifest entries, seconds, base URL) of one smoke run with every LM role on the server."""
    root = tmp_path_factory.mktemp("served")
    models = cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)  # on a fresh machine no model is assembled yet: link a real folder
    (root / "cache").mkdir()
    (root / "cache" / "models").symlink_to(models)  # embedder weights are an install step, not under test
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(root / "results"))
        mp.setenv("LLMCREATIVITY_CACHE", str(root / "cache"))
        mp.setenv(variable("no_local_lm"), "1")
        mp.delenv("LLMCREATIVITY_PROFILE", raising=False)
        start = time.monotonic()
        entries = run("smoke", [("base_url", llama_server), ("model", SERVED), *SMALLER], log=print)
        seconds = time.monotonic() - start
        print(f"served smoke run: {seconds:.0f} s; "
              + ", ".join(f"{s.name} {e.seconds:.0f} s" for s, e in zip(STAGES, entries, strict=True)))
        yield root / "results" / "smoke", read_manifest("smoke").stages, seconds, llama_server


def _provenance(folder, stage: str) -> str:
    nb = nbformat.read(folder / "executed" / f"{stage}.ipynb", as_version=4)
    return nb.cells[-1].outputs[0]["data"]["text/markdown"]


def test_every_stage_ran_on_the_server_to_the_end_without_an_error_output(served):
    folder, manifest, _, _ = served
    assert sorted(manifest) == sorted(s.name for s in STAGES)
    for stage in STAGES:
        assert manifest[stage.name].status == "ok", stage.name
        nb = nbformat.read(folder / "executed" / f"{stage.name}.ipynb", as_version=4)
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                  if o.get("output_type") == "error"]
        assert errors == [], f"{stage.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}" if errors else ""
        assert "profile `smoke`" in _provenance(folder, stage.name)


def test_every_stage_that_computes_wrote_its_outputs(served):
    folder, manifest, _, _ = served
    for stage in STAGES:
        outputs = manifest[stage.name].outputs
        assert all((folder / rel).is_file() for rel in outputs), stage.name
        if stage.name != "backends":
            assert outputs, stage.name


def test_a_smoke_run_writes_nothing_outside_its_folder_and_records_no_claims(served):
    folder, _, _, _ = served
    results = folder.parent
    assert [p.name for p in results.iterdir()] == ["smoke"]
    assert not (results / "claims.jsonl").exists()
    recorded = folder / "claims.jsonl"
    assert not recorded.exists(), [json.loads(line)["claim_id"] for line in recorded.read_text().splitlines()]


def test_every_stage_reports_its_model_calls_and_items_in_the_smoke_folders_run_report(served):
    folder, manifest, _, _ = served
    lines = {r.stage: r for r in read_run_report("smoke")}
    assert (folder / "run_report.jsonl").is_file() and sorted(lines) == sorted(manifest)
    for stage in STAGES:
        line = lines[stage.name]
        assert line.lm_calls + line.texts_embedded > 0, f"{stage.name}: no model call was counted"
        assert line.lm_cache_hits <= line.lm_calls and line.seconds == manifest[stage.name].seconds
        if stage.items_unit:
            assert line.items, f"{stage.name}: no {stage.items_unit} in {[o.path for o in stage.outputs if o.items]}"
        else:
            assert line.items is None


def test_no_local_language_model_was_loaded_and_every_role_names_the_endpoint_and_its_served_model(served):
    folder, _, _, url = served
    for stage in STAGES:
        text = _provenance(folder, stage.name)
        assert "transformers:" not in text, stage.name
        roles = re.findall(r"^\| `(\w+)` \| `([^`]+)` \| (\S+) \| `([^`]+)` \|", text, re.M)
        assert roles, stage.name  # every stage names the models it used
        lm_roles = [r for r in roles if not r[0].endswith(("embedder", "embedders"))]
        assert lm_roles or stage.name == "judge_lab", stage.name  # only the laboratory runs on embedders alone
        for role, identity, endpoint, served_model in lm_roles:
            assert (endpoint, served_model) == (url, SERVED), (stage.name, role)
            assert identity == f"openai:{url}:{SERVED}", (stage.name, role)


def test_a3_is_not_testable_when_one_model_plays_every_role(served):
    folder, _, _, url = served
    nb = nbformat.read(folder / "executed" / "evaluation.ipynb", as_version=4)
    kinds = ("text/plain", "text/html", "text/markdown")
    shown = "\n".join("".join(str(o.get("data", {}).get(kind, "")) for kind in kinds) + str(o.get("text", ""))
                      for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert re.search(r"A3(\s|<[^>]+>)+not testable here", shown)
    # the page names the one model by its short label (llmcreativity_book.display), the served model's
    reason = f"one model (openai:{url}:{SERVED}) plays both the writer and the 'large' writer"
    assert short_label(reason) == f"one model ({SERVED} (endpoint)) plays both the writer and the 'large' writer"
    assert short_label(reason) in shown
