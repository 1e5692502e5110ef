"""The paper profile's projected token use: measured tokens per unit of work times the target's units and lengths."""

from __future__ import annotations

import pytest

from llmcreativity.pipeline.manifest import update_manifest
from llmcreativity.pipeline.projection import (
    paper_projection_markdown,
    project,
    projection_markdown,
    stage_parameters,
)
from llmcreativity.pipeline.run_report import run_report, write_run_report
from llmcreativity.pipeline.stages import STAGES

pytestmark = pytest.mark.usefixtures("results")  # conftest: a fresh results folder per test


def lm(calls, hits, prompt, completion, cached_prompt=0, cached_completion=0):
    return {"identity": "m", "kind": "language model", "calls": calls, "cache_hits": hits, "prompt_tokens": prompt,
            "completion_tokens": completion, "cached_prompt_tokens": cached_prompt,
            "cached_completion_tokens": cached_completion}


def entry(usage, parameters=None):
    return {"status": "ok", "run_id": "r1", "profile": "default", "seconds": 1.0, "items": 1, "items_unit": "x",
            "usage": usage, "parameters": parameters or {}}


def test_tokens_scale_with_the_units_and_the_length_of_a_unit():
    rows = run_report({"judge_validation": entry([lm(10, 4, 900, 100, 50, 50)]),
                       "corpus": entry([lm(2, 0, 400, 0)])})
    measured = {"judge_validation": {"n_items": 4, "max_tokens": 128}, "corpus": {"n_surprisal": 8}}
    target = {"judge_validation": {"n_items": 300, "max_tokens": 256}, "corpus": {"n_surprisal": 96}}
    corpus, judges = project(rows, measured, target)
    # 1,100 tokens needed (100 of them answered by the cache) x 300 / 4 items x 256 / 128 tokens per reply
    assert (judges.measured_tokens, judges.units_measured, judges.units_target, judges.length_ratio) \
        == (1100, 4, 300, 2.0)
    assert judges.projected_tokens == pytest.approx(1100 * 75 * 2)
    assert (corpus.length_formula, corpus.projected_tokens) == ("", pytest.approx(400 * 12))
    table = projection_markdown([corpus, judges], "default", "paper", "r1")
    assert "| judge_validation | 1,100 | n_items | 4 → 300 | max_tokens: x2 | 165,000 |" in table
    assert table.splitlines()[-1] == "| **total** | **1,500** | | | | **169,800** |"


def test_a_stage_whose_outputs_were_read_back_is_listed_not_projected():
    rows = run_report({"corpus": entry([lm(2, 0, 400, 0)]), "judge_validation": entry([])})  # a warm re-run
    projections = project(rows, {"corpus": {"n_surprisal": 8}, "judge_validation": {"n_items": 4, "max_tokens": 1}},
                          {"corpus": {"n_surprisal": 16}, "judge_validation": {"n_items": 300, "max_tokens": 1}})
    table = projection_markdown(projections, "default", "paper", "r2")
    assert "| judge_validation | 0 | n_items | 4 → 300 | max_tokens: x1 | not measured |" in table
    assert "| **total** | **400** | | | | **800** |" in table
    assert table.endswith("Not projected, and left out of the total: judge_validation. That run made no language-model "
                          "call there (the outputs were read back from the results folder), so it measured no tokens; "
                          "the report of a cold run projects every stage.")


def test_a_stage_without_a_scale_or_without_target_parameters_is_left_out():
    rows = run_report({"corpus": entry([lm(2, 0, 400, 0)]), "unknown_stage": entry([lm(1, 0, 5, 5)])})
    assert project(rows, {"corpus": {"n_surprisal": 8}}, {}) == []
    assert projection_markdown([], "default", "paper", "r1") == \
        "*Run `r1` has no stage with a known scale to project to the `paper` profile.*"
    assert [p.stage for p in project(rows, {"corpus": {"n_surprisal": 8}}, {"corpus": {"n_surprisal": 8}})] \
        == ["corpus"]


def test_every_stage_has_a_scale_that_reads_its_default_and_paper_parameters():
    for stage in STAGES:
        scale = stage.scale
        for profile in ("default", "paper"):
            params = stage_parameters(stage, stage.profiles[profile])
            assert scale.units(params) > 0 and scale.length(params) > 0, (stage.name, profile)


def test_the_page_section_projects_the_latest_run_with_the_parameters_it_ran_with(results):
    assert "No run of the `default` profile" in paper_projection_markdown()
    update_manifest("judge_validation", entry([lm(10, 0, 1000, 200)], {"n_items": 8}))
    write_run_report()
    text = paper_projection_markdown()
    assert "run `r1` (profile `default`), projected to the `paper` profile" in text
    assert "| judge_validation | 1,200 | n_items | 8 → 300 | max_tokens: x2 | 90,000 |" in text


def test_the_rerun_guide_has_the_line_the_projection_replaces():
    from llmcreativity.paths import REPO_ROOT
    from llmcreativity_book.site import PROJECTION_MARKER

    assert PROJECTION_MARKER in (REPO_ROOT / "book" / "rerun.md").read_text()
