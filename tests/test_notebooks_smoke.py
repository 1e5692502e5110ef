"""Every real stage notebook, executed end to end in the smoke profile through the real runner (slow).

The stages run on the embedded tiny models (smollm2-135m in every model role, all-minilm-l6-v2) with
an empty call cache, so every model call is really made; only the assembled model files are shared
with the machine's cache. A notebook that breaks fails here, naming its stage, cell and error.
"""

from __future__ import annotations

import json
import time

import nbformat
import pytest

from llmcreativity.paths import cache_dir
from llmcreativity.pipeline.execution import run
from llmcreativity.pipeline.manifest import read_manifest
from llmcreativity.pipeline.order import ordered_stages
from llmcreativity.pipeline.stages import STAGES

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """(results root, the smoke profile's folder, manifest entries, seconds) of one smoke run of every stage."""
    root = tmp_path_factory.mktemp("smoke")
    models = cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    (root / "cache").mkdir()
    (root / "cache" / "models").symlink_to(models)  # assembled weights are an install step, not under test
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(root / "results"))
        mp.setenv("LLMCREATIVITY_CACHE", str(root / "cache"))
        mp.delenv("LLMCREATIVITY_PROFILE", raising=False)
        start = time.monotonic()
        entries = run("smoke", [], log=print)
        seconds = time.monotonic() - start
        print(f"smoke run of {len(entries)} stages: {seconds:.0f} s "
              + ", ".join(f"{s.name} {e['seconds']:.0f} s" for s, e in zip(ordered_stages(), entries, strict=True)))
        yield root / "results", root / "results" / "smoke", read_manifest("smoke")["stages"], seconds


def test_every_stage_ran_to_the_end_without_an_error_output(smoke):
    _, folder, manifest, _ = smoke
    assert sorted(manifest) == sorted(s.name for s in STAGES)
    for stage in STAGES:
        assert manifest[stage.name]["status"] == "ok", stage.name
        nb = nbformat.read(folder / "executed" / f"{stage.name}.ipynb", as_version=4)
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                  if o.get("output_type") == "error"]
        assert errors == [], f"{stage.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}" if errors else ""
        assert "profile `smoke`" in nb.cells[-1].outputs[0]["data"]["text/markdown"]


def test_every_stage_that_computes_writes_its_outputs_inside_the_smoke_folder(smoke):
    _, folder, manifest, _ = smoke
    for stage in STAGES:
        outputs = manifest[stage.name]["outputs"]
        assert all((folder / rel).is_file() for rel in outputs), stage.name
        if stage.name != "backends":  # the backends chapter only shows samples
            assert outputs, f"stage {stage.name!r} wrote no output file under {folder}"


def test_a_smoke_run_writes_nothing_outside_its_folder_and_records_no_claims(smoke):
    results, folder, _, _ = smoke
    assert [p.name for p in results.iterdir()] == ["smoke"]
    assert not (results / "claims.jsonl").exists()
    recorded = folder / "claims.jsonl"
    assert not recorded.exists(), [json.loads(line)["claim_id"] for line in recorded.read_text().splitlines()]


def test_every_stage_reports_its_model_calls_and_items_in_the_smoke_folders_run_report(smoke):
    from llmcreativity.pipeline.run_report import read_run_report

    _, folder, manifest, _ = smoke
    lines = {r.stage: r for r in read_run_report("smoke")}
    assert (folder / "run_report.jsonl").is_file() and sorted(lines) == sorted(manifest)
    for stage in STAGES:
        line = lines[stage.name]
        assert line.lm_calls + line.texts_embedded > 0, f"{stage.name}: no model call was counted"
        assert line.lm_cache_hits <= line.lm_calls and line.seconds == manifest[stage.name]["seconds"]
        if stage.items_unit:
            assert line.items, f"{stage.name}: no {stage.items_unit} in {[o.path for o in stage.outputs if o.items]}"
        else:
            assert line.items is None
