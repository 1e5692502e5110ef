"""The run report: per-stage lines built from manifest entries, items counted from output files, the printed table
and the claims page's section."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest

from llmcreativity.jsonl import append_jsonl
from llmcreativity.output_files import count_records
from llmcreativity.pipeline.manifest import ManifestEntry, update_manifest
from llmcreativity.pipeline.run_report import (
    read_run_report,
    report_markdown,
    report_text,
    run_report,
    run_report_file,
    stage_items,
    write_run_report,
)
from llmcreativity.pipeline.stages import STAGES

pytestmark = pytest.mark.usefixtures("results")  # conftest: a fresh results folder per test


def lm(identity, calls, hits, prompt, completion):
    return {"identity": identity, "kind": "language model", "calls": calls, "cache_hits": hits,
            "prompt_tokens": prompt, "completion_tokens": completion, "cached_prompt_tokens": 0,
            "cached_completion_tokens": 0}


def embedder(identity, texts, hits):
    return {"identity": identity, "kind": "embedder", "calls": texts, "cache_hits": hits, "prompt_tokens": 0,
            "completion_tokens": 0, "cached_prompt_tokens": 0, "cached_completion_tokens": 0}


MANIFEST = {
    "evaluation": ManifestEntry(status="failed", run_id="r1", profile="default", seconds=30.0, items=4,
                                items_unit="rubric gradings", usage=[lm("judge", 10, 0, 500, 20)]),
    "baselines": ManifestEntry(status="ok", run_id="r1", profile="default", seconds=90.5, items=12,
                               items_unit="stories",
                               usage=[lm("writer", 40, 10, 4000, 3000), lm("large", 4, 4, 0, 0),
                                      embedder("mini", 12, 2)]),
    "backends": ManifestEntry(status="ok", run_id="r1", profile="default", seconds=5.0, items=None,
                              items_unit=""),  # an entry written before usage was recorded
}


def test_lines_follow_stage_order_and_sum_usage_over_models_by_kind():
    rows = run_report(MANIFEST)
    assert [r.stage for r in rows] == ["backends", "baselines", "evaluation"]
    backends, baselines, evaluation = rows
    assert (backends.lm_calls, backends.items) == (0, None)
    assert (baselines.lm_calls, baselines.lm_cache_hits, baselines.prompt_tokens, baselines.completion_tokens) \
        == (44, 14, 4000, 3000)
    assert (baselines.texts_embedded, baselines.embedding_cache_hits) == (12, 2)
    assert (evaluation.status, evaluation.seconds, evaluation.items, evaluation.items_unit) \
        == ("failed", 30.0, 4, "rubric gradings")


def test_the_printed_table_has_a_line_per_stage_and_the_totals():
    text = report_text(run_report(MANIFEST))
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["stage", "status", "seconds"]
    assert lines[2].split()[:5] == ["baselines", "ok", "90.5", "12", "stories"]
    assert "44 (14)" in lines[2] and "4,000 / 3,000" in lines[2] and "12 (2)" in lines[2]
    assert lines[4].split()[:2] == ["total", "125.5"] and "54 (14)" in lines[4] and "4,500 / 3,020" in lines[4]
    assert lines[-1] == "3 stage(s), 2.1 minutes in all"


def test_the_page_section_gives_the_total_time_and_names_unfinished_stages_and_mixed_runs():
    page = report_markdown(run_report(MANIFEST))
    assert page.count("\n|") == 5  # separator, 3 stages, total
    assert "| total | 125.5 |" in page and "| evaluation (failed) |" in page
    assert page.splitlines()[0].count("|") == 7  # six columns: the status is folded into the stage
    assert "126 seconds (2.1 minutes) in all" in page and "every stage comes from run `r1`" in page
    assert "Not finished: evaluation." in page
    mixed = {**MANIFEST, "backends": replace(MANIFEST["backends"], run_id="r2")}
    assert "the stages come from 2 runs" in report_markdown(run_report(mixed))


def test_the_page_says_so_when_the_report_is_missing(results):
    assert read_run_report() == []
    note = report_markdown(read_run_report(), run_report_file())
    assert "No run report: `run_report.jsonl` is missing from the results folder" in note
    assert "|" not in note


def test_the_report_file_is_rewritten_from_the_manifest_and_read_back(results):
    for stage, entry in MANIFEST.items():
        update_manifest(stage, entry)
    path = write_run_report()
    assert path == results / "run_report.jsonl"
    assert read_run_report() == run_report(MANIFEST)
    update_manifest("backends", replace(MANIFEST["backends"], seconds=7.0))
    write_run_report()
    assert [r.seconds for r in read_run_report()] == [7.0, 90.5, 30.0]
    assert not list(results.glob(".*.tmp"))


def test_a_smoke_report_lies_in_the_smoke_folder_only(results):
    update_manifest("backends", MANIFEST["backends"], "smoke")
    assert write_run_report("smoke") == results / "smoke" / "run_report.jsonl"
    assert not (results / "run_report.jsonl").exists()


def test_records_are_counted_per_file_kind(tmp_path):
    jsonl = tmp_path / "a.jsonl"
    append_jsonl(jsonl, [{"k": 1}, {"k": 2}])
    with jsonl.open("a") as f:
        f.write('{"k": 3')  # a torn last line of a killed write is not a record
    pd.DataFrame({"x": range(5)}).to_parquet(tmp_path / "b.parquet")
    pd.DataFrame({"x": range(3)}).to_csv(tmp_path / "c.csv", index=False)
    (tmp_path / "d.json").write_text(json.dumps({"cat1": ["p", "q"], "cat2": ["r"], "note": "x"}))
    (tmp_path / "e.json").write_text(json.dumps([1, 2, 3, 4]))
    counts = [count_records(tmp_path / n) for n in ("a.jsonl", "b.parquet", "c.csv", "d.json", "e.json")]
    assert counts == [2, 5, 3, 3, 4]
    (tmp_path / "f.npy").write_bytes(b"")
    with pytest.raises(ValueError, match=r"f\.npy: cannot count the records of a \.npy file"):
        count_records(tmp_path / "f.npy")


def test_stage_items_sum_every_matching_file_of_the_profile(results):
    append_jsonl(results / "baselines" / "stories.jsonl", [{"s": 1}, {"s": 2}])
    append_jsonl(results / "baselines" / "single-big" / "stories.jsonl", [{"s": 3}])
    append_jsonl(results / "baselines" / "transcripts.jsonl", [{"m": 1}] * 9)  # not items
    stages = {s.name: s for s in STAGES}
    assert stage_items(stages["baselines"]) == (3, "stories")
    assert stage_items(stages["baselines"], "smoke") == (0, "stories")
    assert stage_items(stages["backends"]) == (None, "")


def test_a_folder_output_counts_the_records_of_the_files_in_it(results):
    append_jsonl(results / "judge_validation" / "runs" / "a.jsonl", [{"j": 1}, {"j": 2}])
    append_jsonl(results / "judge_validation" / "runs" / "b.jsonl", [{"j": 3}])
    assert stage_items(next(s for s in STAGES if s.name == "judge_validation")) == (3, "judgements")


def test_the_claims_page_has_the_line_the_run_report_replaces():
    from llmcreativity.paths import REPO_ROOT
    from llmcreativity_book.site import RUN_REPORT_MARKER

    assert RUN_REPORT_MARKER in (REPO_ROOT / "book" / "claims.md").read_text()
