"""The guard on exact replay: a committed record of the smoke profile replays with zero misses.

The record (`tests/data/records/smoke/`) holds every model call of a smoke run, across llama.cpp, transformers,
an embedder and the LLM entailment judge. A change that moves a prompt, a sampling setting, a model identity or a
stage parameter makes this test fail, naming the stage to re-record:

    .venv/bin/llmcreativity run --profile smoke
    .venv/bin/llmcreativity record export tests/data/records/smoke --profile smoke

(after deleting the folder, so that the record holds only the new run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llmcreativity.paths import results_dir
from llmcreativity.pipeline.execution import prepare_replay, run_stage
from llmcreativity.pipeline.manifest import read_manifest
from llmcreativity.pipeline.record import read_record, replay_differences

RECORD = Path(__file__).parent / "data" / "records" / "smoke"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """Every stage of the smoke record replayed into a fresh results folder: (record, manifest entries)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("LLMCREATIVITY_RESULTS", str(tmp_path_factory.mktemp("guard") / "results"))
    try:
        plans, replay = prepare_replay(RECORD)
        for p in plans:
            run_stage(p, log=lambda *_: None, replay=replay)
        yield replay.record, read_manifest("smoke")["stages"], results_dir("smoke")
    finally:
        mp.undo()


def test_every_recorded_stage_replays_asking_exactly_the_recorded_calls(replayed):
    record, stages, _ = replayed
    assert set(stages) == set(record["stages"])
    for name, entry in stages.items():
        assert entry["status"] == "ok", name
        assert entry["calls"] == record["stages"][name]["calls"], name
        assert all(u["cache_hits"] == u["calls"] for u in entry["usage"]), name  # nothing was computed


def test_the_spot_check_recomputes_every_model_identity_and_all_match(replayed):
    record, stages, _ = replayed
    checked = [r for e in stages.values() for r in e["spot_check"]["mismatches"]]
    assert checked == []
    compared = sum(e["spot_check"]["compared"] for e in stages.values())
    assert compared == sum(e["spot_check"]["matched"] for e in stages.values()) > 0


def test_the_record_spans_both_engines_an_embedder_and_the_entailment_judge():
    record = read_record(RECORD)
    identities = {u["identity"] for e in record["stages"].values() for u in e["usage"]}
    assert any(i.startswith("llama.cpp:") for i in identities)
    assert any(i.startswith("transformers:") and ":float32:" in i for i in identities)
    assert any(u["kind"] == "embedder" for e in record["stages"].values() for u in e["usage"])
    roles = {role for e in record["stages"].values() for role in e["calls"]}
    assert {"entailment_judge", "writer", "embedder"} <= roles


def test_the_replay_rebuilds_the_recorded_outputs_and_claims(replayed):
    record, stages, results = replayed
    assert replay_differences(record, stages, results) == {name: [] for name in record["stages"]}
