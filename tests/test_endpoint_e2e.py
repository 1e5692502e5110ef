"""Every stage in the smoke profile with every language-model role on a llama.cpp server on loopback (slow).

One `llmcreativity run --profile smoke -p base_url URL -p model smollm2-135m` against llama-cpp-python serving
the packaged 135M GGUF, with $LLMCREATIVITY_NO_LOCAL_LM set so that any local language model would fail its
stage. Embedders stay local. The call cache starts empty, so every model call reaches the server.

It is part of `make test`; `pytest -m e2e` runs it alone. It checks what ran where, not how fast (the run's
seconds per stage are printed): on this project's 2-core machine the served smoke run takes about 11 minutes, because
llama-cpp-python's server reads prompts at the CPU's pace for the 135M model and reports each echoed prompt
token's log-probability after sorting the whole vocabulary in Python.
"""

from __future__ import annotations

import re
import time

import nbformat
import pytest

from llmcreativity.llm.local_engine import NO_LOCAL_LM_ENV
from llmcreativity.paths import cache_dir
from llmcreativity.pipeline.execution import run
from llmcreativity.pipeline.manifest import read_manifest
from llmcreativity.pipeline.stages import STAGES

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

SERVED = "smollm2-135m"
"""The name the test server lists (conftest's `llama_server`)."""


@pytest.fixture(scope="module")
def served(llama_server, tmp_path_factory):
    """(the smoke folder, manifest entries, seconds, base URL) of one smoke run with every LM role on the server."""
    root = tmp_path_factory.mktemp("served")
    models = cache_dir() / "models"
    (root / "cache").mkdir()
    (root / "cache" / "models").symlink_to(models)  # embedder weights are an install step, not under test
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(root / "results"))
        mp.setenv("LLMCREATIVITY_CACHE", str(root / "cache"))
        mp.setenv(NO_LOCAL_LM_ENV, "1")
        mp.delenv("LLMCREATIVITY_PROFILE", raising=False)
        start = time.monotonic()
        entries = run("smoke", [("base_url", llama_server), ("model", SERVED)], log=print)
        seconds = time.monotonic() - start
        print(f"served smoke run: {seconds:.0f} s; "
              + ", ".join(f"{s.name} {e['seconds']:.0f} s" for s, e in zip(STAGES, entries, strict=True)))
        yield root / "results" / "smoke", read_manifest("smoke")["stages"], seconds, llama_server


def _provenance(folder, stage: str) -> str:
    nb = nbformat.read(folder / "executed" / f"{stage}.ipynb", as_version=4)
    return nb.cells[-1].outputs[0]["data"]["text/markdown"]


def test_every_stage_ran_on_the_server(served):
    folder, manifest, _, _ = served
    assert sorted(manifest) == sorted(s.name for s in STAGES)
    assert all(manifest[s.name]["status"] == "ok" for s in STAGES)


def test_every_stage_that_computes_wrote_its_outputs(served):
    folder, manifest, _, _ = served
    for stage in STAGES:
        outputs = manifest[stage.name]["outputs"]
        assert all((folder / rel).is_file() for rel in outputs), stage.name
        if stage.name != "backends":
            assert outputs, stage.name


def test_no_local_language_model_was_loaded_and_every_role_names_the_endpoint_and_its_served_model(served):
    folder, _, _, url = served
    for stage in STAGES:
        text = _provenance(folder, stage.name)
        assert "transformers:" not in text, stage.name
        roles = re.findall(r"^\| `(\w+)` \| `([^`]+)` \| (\S+) \| `([^`]+)` \|", text, re.M)
        lm_roles = [r for r in roles if not r[0].endswith("embedder")]
        assert lm_roles, stage.name  # every stage has at least one language-model role
        for role, identity, endpoint, served_model in lm_roles:
            assert (endpoint, served_model) == (url, SERVED), (stage.name, role)
            assert identity == f"openai:{url}:{SERVED}", (stage.name, role)


def test_a3_is_not_testable_when_one_model_plays_every_role(served):
    folder, _, _, url = served
    nb = nbformat.read(folder / "executed" / "evaluation.ipynb", as_version=4)
    shown = "\n".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("data", {}).get("text/html", ""))
                       + str(o.get("text", ""))
                      for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert re.search(r"A3\s+not testable here", shown)
    assert f"one model (openai:{url}:{SERVED}) plays both the writer and the 'large' writer" in shown
