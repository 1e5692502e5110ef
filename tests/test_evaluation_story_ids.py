"""Story ids of the evaluation table stay unique when one model's run is also evaluated as its own system."""

from __future__ import annotations

import pandas as pd

from llmcreativity.evaluation import load_story_table
from llmcreativity.jsonl import append_jsonl
from test_evaluation import _record


def test_a_run_loaded_under_its_own_system_keeps_ids_apart_from_the_same_models_baseline(tmp_path):
    baseline, large = tmp_path / "baselines.jsonl", tmp_path / "large.jsonl"
    for path in (baseline, large):
        append_jsonl(path, [_record("single", "p0", "Humanistic", "the same tale")])
    table = pd.concat([load_story_table(baseline), load_story_table(large, system="single (m)")], ignore_index=True)
    assert table["story_id"].tolist() == ["m::single/p0/r1/revision/Humanistic",
                                          "single (m)::m::single/p0/r1/revision/Humanistic"]
    assert table["system"].tolist() == ["single", "single (m)"]
