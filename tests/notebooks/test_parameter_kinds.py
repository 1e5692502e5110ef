"""The kind of every stage parameter is stated, and true: analysis parameters change no model call.

Every stage notebook states, for each parameter but a model role, whether it is `analysis` or `generating`
(`pipeline.parameters`). The replay test shows the classification on the committed smoke record: the two cheapest
stages replayed with all their analysis parameters changed ask nothing the record lacks (zero misses, every call
answered from it), while a changed generating parameter is refused before anything runs. It loads the smallest
model and an embedder for the spot check (about half a minute on two cores), so it is marked slow.
"""

from __future__ import annotations

import pandas as pd
import pytest

from llmcreativity.paths import results_dir
from llmcreativity.pipeline.execution import prepare_replay, run_stage
from llmcreativity.pipeline.parameters import unstated_kinds
from llmcreativity.pipeline.planning import declared_parameters
from llmcreativity.pipeline.stages import STAGES
from llmcreativity.record_file import RecordError
from locations import TEST_DATA

RECORD = TEST_DATA / "records" / "smoke"
CHEAP = [s for s in STAGES if s.name in ("backends", "entailment_validation")]
"""The stages replayed: the smallest model (a few short samples, answer probabilities) and an embedder, so the spot
check computes its calls again in seconds (scifi100's, 128-token candidates sampled again, take minutes)."""
ANALYSIS = [("estimator", "median"), ("thresholds", "[0.3, 0.9]")]
"""Every analysis parameter of the cheap stages, each away from the recorded value."""


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_every_stage_parameter_states_its_kind(stage):
    assert unstated_kinds(declared_parameters(stage), stage.notebook) == []


def test_the_replayed_overrides_are_every_analysis_parameter_of_the_cheap_stages():
    analysis = {n for s in CHEAP for n, p in declared_parameters(s).items() if p.analysis}
    assert analysis == {name for name, _ in ANALYSIS}


@pytest.mark.slow
def test_analysis_parameters_changed_replay_the_smoke_record_with_zero_misses(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    plans, replay = prepare_replay(RECORD, ANALYSIS, stages=CHEAP)
    entries = {p.stage.name: run_stage(p, replay=replay, log=lambda *_: None) for p in plans}
    for name, entry in entries.items():
        assert entry.status == "ok", name
        assert entry.record_calls.new == 0 and entry.record_calls.from_record > 0, name
        assert all(u["cache_hits"] == u["calls"] for u in entry.usage), name  # nothing was computed
        assert entry.spot_check.mismatches == (), name
    assert entries["entailment_validation"].against_record.analysis_changed == {
        "thresholds": [[0.5, 0.6], [0.3, 0.9]]}
    sweep = pd.read_csv(results_dir("smoke") / "entailment_validation" / "embedding_sweep.csv")
    assert {m for m in sweep["method"] if m.startswith("embedding")} == {"embedding cos>=0.3", "embedding cos>=0.9"}


@pytest.mark.parametrize("name", ["embedding_sample", "llm_thresholds", "seed"])
def test_a_changed_generating_parameter_is_refused_before_anything_runs(name, tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    value = {"embedding_sample": "40", "llm_thresholds": "[0.7]", "seed": "1"}[name]
    with pytest.raises(RecordError, match=rf"stage 'entailment_validation'.*generating parameters.*{name}: recorded "):
        prepare_replay(RECORD, [(f"entailment_validation.{name}", value)], stages=CHEAP)
