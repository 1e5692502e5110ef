"""Projected cost: the paper profile's token use (measured tokens per unit of work times the target's units and
lengths), a run against a record's seconds, and the units of work each stage's scale counts."""

from __future__ import annotations

import re
import shutil

import pytest

from llmcreativity.paths import DECISIVE_RECORD, PUBLISHED_RECORD, REPO_ROOT
from llmcreativity.pipeline.manifest import ManifestEntry, update_manifest
from llmcreativity.pipeline.planning import plan
from llmcreativity.pipeline.projection import (
    NO_COST,
    calibration_command,
    calibration_folder,
    paper_projection_markdown,
    project,
    project_calls,
    projection_markdown,
    record_call_costs,
    scale_parameters,
    seconds_lines,
    seconds_projection,
    stage_parameters,
)
from llmcreativity.pipeline.run_report import run_report, write_run_report
from llmcreativity.pipeline.stages import STAGES, Scale, Stage
from llmcreativity.record_file import read_record
from locations import TEST_DATA
from record_helpers import record_of, recorded_stage

pytestmark = pytest.mark.usefixtures("results")  # conftest: a fresh results folder per test

BOOK = TEST_DATA / "book"
SMOKE_RECORD = TEST_DATA / "records" / "smoke"
JUDGED = Stage("judge_validation", "nb.md", "Judged",
               scale=Scale(lambda p: p["n_items"], "n_items", lambda p: p["max_tokens"], "max_tokens"))
SURPRISAL = Stage("corpus", "nb.md", "Corpus", scale=Scale(lambda p: p["n_surprisal"], "n_surprisal"))
SIMPLE = [SURPRISAL, JUDGED]
"""Two stages with the scales these tests compute by hand (the real stages' scales are tested below)."""


def lm(calls, hits, prompt, completion, cached_prompt=0, cached_completion=0):
    return {"identity": "m", "kind": "language model", "calls": calls, "cache_hits": hits, "prompt_tokens": prompt,
            "completion_tokens": completion, "cached_prompt_tokens": cached_prompt,
            "cached_completion_tokens": cached_completion}


def entry(usage, parameters=None):
    return ManifestEntry(status="ok", run_id="r1", profile="default", seconds=1.0, items=1, items_unit="x",
                         usage=usage, parameters=parameters or {})


def test_tokens_scale_with_the_units_and_the_length_of_a_unit():
    rows = run_report({"judge_validation": entry([lm(10, 4, 900, 100, 50, 50)]),
                       "corpus": entry([lm(2, 0, 400, 0)])})
    measured = {"judge_validation": {"n_items": 4, "max_tokens": 128}, "corpus": {"n_surprisal": 8}}
    target = {"judge_validation": {"n_items": 300, "max_tokens": 256}, "corpus": {"n_surprisal": 96}}
    corpus, judges = project(rows, measured, target, SIMPLE)
    # 1,100 tokens needed (100 of them answered by the cache) x 300 / 4 items x 256 / 128 tokens per reply
    assert (judges.measured_tokens, judges.units_measured, judges.units_target, judges.length_ratio) \
        == (1100, 4, 300, 2.0)
    assert judges.projected_tokens == pytest.approx(1100 * 75 * 2)
    assert (corpus.length_formula, corpus.projected_tokens) == ("", pytest.approx(400 * 12))
    table = projection_markdown([corpus, judges], "default", "paper", "r1")
    assert "| judge_validation | 1,100 | 4 → 300 | x2 | 165,000 |" in table
    assert "| **total** | **1,500** | | | **169,800** |" in table.splitlines()
    # what a unit counts stands beneath the table, not in a column a phone squeezes
    assert table.splitlines()[-2:] == ["- corpus: n_surprisal", "- judge_validation: n_items; length: max_tokens"]


def test_a_stage_whose_outputs_were_read_back_is_listed_not_projected():
    rows = run_report({"corpus": entry([lm(2, 0, 400, 0)]), "judge_validation": entry([])})  # a warm re-run
    projections = project(rows, {"corpus": {"n_surprisal": 8}, "judge_validation": {"n_items": 4, "max_tokens": 1}},
                          {"corpus": {"n_surprisal": 16}, "judge_validation": {"n_items": 300, "max_tokens": 1}},
                          SIMPLE)
    table = projection_markdown(projections, "default", "paper", "r2")
    assert "| judge_validation | 0 | 4 → 300 | x1 | not measured |" in table
    assert "| **total** | **400** | | | **800** |" in table
    assert ("Not projected, and left out of the total: judge_validation. That run made no language-model "
            "call there (the outputs were read back from the results folder), so it measured no tokens; "
            "the report of a cold run projects every stage.") in table


def test_a_stage_without_a_scale_or_without_target_parameters_is_left_out():
    rows = run_report({"corpus": entry([lm(2, 0, 400, 0)]), "unknown_stage": entry([lm(1, 0, 5, 5)])})
    assert project(rows, {"corpus": {"n_surprisal": 8}}, {}, SIMPLE) == []
    assert projection_markdown([], "default", "paper", "r1") == \
        "*Run `r1` has no stage with a known scale to project to the `paper` profile.*"
    assert [p.stage for p in project(rows, {"corpus": {"n_surprisal": 8}}, {"corpus": {"n_surprisal": 8}}, SIMPLE)] \
        == ["corpus"]


def resolved(profile: str, **changes: dict) -> dict[str, dict]:
    """Every stage's parameters under `profile`, with `changes` (stage -> values) on top."""
    return {s.name: stage_parameters(s, {**s.profiles[profile], **changes.get(s.name, {})}) for s in STAGES}


def units(stage_name: str, params: dict[str, dict]) -> float:
    stage = next(s for s in STAGES if s.name == stage_name)
    return stage.scale.units(scale_parameters(stage, params))


@pytest.mark.parametrize("profile", ["smoke", "default", "paper"])
def test_every_stage_has_a_scale_that_reads_its_parameters_and_its_upstream_stages(profile):
    params = resolved(profile)
    for stage in STAGES:
        read = scale_parameters(stage, params)
        assert stage.scale.units(read) > 0 and stage.scale.length(read) > 0, (stage.name, profile)


@pytest.mark.parametrize(("stage", "profile", "changes", "expected"), [
    # 1 judge x 1 repeat x 1 threshold x 4 x 3 questions + 3 B7 sets x 3 x 2
    ("entailment_validation", "smoke", {}, 12 + 18),
    # 2 judges x 3 repeats x 2 thresholds x 60 x 59 + 30 sets x 5 x 4
    ("entailment_validation", "paper", {}, 2 * 3 * 2 * 60 * 59 + 30 * 20),
    # chains: 2 models x 2 temperatures x (5 + 5) problems = 40, x 2 steps x (6 samples + the greedy step)
    ("semantic_entropy", "default", {}, 40 * 2 * 7),
    # judge "llm" asks up to 6 x 5 entailment questions per step besides
    ("semantic_entropy", "default", {"semantic_entropy": {"judge": "llm"}}, 40 * 2 * (7 + 30)),
    # the embedding judge with 3 steps re-clustered by the LLM judge, and a novelty rating per chain
    ("semantic_entropy", "default", {"semantic_entropy": {"llm_check_steps": 3, "novelty_judge": "smollm2-135m"}},
     40 * 2 * 7 + 3 * 30 + 40),
    # 4 items x (single, CoT, p(yes), ChatEval 3 x 3, retrieval 3 x 3 + 1 twice) + 2 ablation items x 10 + the sweep's
    # (k 1, T 0.8) on 4 items x 10 + p(yes) on the 40 chains of the semantic-entropy stage
    ("judge_validation", "default", {}, 4 * (1 + 1 + 1 + 9 + 2 * 10) + 2 * 10 + 4 * 10 + 40),
    ("judge_validation", "default", {"judge_validation": {"se_judge": "retrieval"}}, 188 + 40 * 10),
    ("judge_validation", "default", {"judge_validation": {"criteria": "macgyver", "criteria_mode": "per_criterion"}},
     228 * 3),
    # the semantic-entropy stage's chains are read from its parameters: 3 models instead of 2
    ("judge_validation", "default", {"semantic_entropy": {"se_models": ["a", "b", "c"]}}, 188 + 60),
    # 1 of review's 2 prompts judged: Single Agent's story, 1 of each 3-writer framework's 4, the bigger Single Agent's,
    # and 12 HANNA stories, each on 5 dimensions
    ("evaluation", "default", {}, (1 + 4 + 1 + 12) * 5),
    ("evaluation", "default", {"evaluation": {"judge_prompts": None, "stories_per_run": None}},
     (2 * (1 + 4 * 3) + 1 + 12) * 5),
])
def test_the_scales_count_the_expensive_calls(stage, profile, changes, expected):
    assert units(stage, resolved(profile, **changes)) == expected


def test_the_rubric_scale_counts_the_gradings_the_smoke_record_made():
    """One expected-score pass per grading: the smoke record's evaluation asked exactly that many."""
    record = read_record(SMOKE_RECORD)
    assert units("evaluation", resolved("smoke")) == record.stages["evaluation"].calls["rubric_judge"][
        "answer_probs"]


def test_the_seconds_of_a_run_against_a_record_scale_from_the_recorded_parameters(results):
    stage = Stage("recorded", str(BOOK / "recorded_stage.md"), "Recorded", (), {"default": {}},
                  scale=Scale(lambda p: p["n"], "n"))
    record = record_of(recorded=recorded_stage(resolved_parameters={"n": 3}, seconds=30.0))
    [doubled] = seconds_projection(record, plan("default", [("n", "6")], stages=[stage]), [stage])
    assert (doubled.changed, doubled.units_recorded, doubled.units_target, doubled.projected_seconds) \
        == (("n",), 3, 6, 60.0)
    [same] = seconds_projection(record, plan("default", [], stages=[stage]), [stage])
    assert same.changed == () and same.projected_seconds == 0.0
    assert seconds_lines([doubled, same]) == [
        "[cost] recorded: n changed: at most 60 s (recorded 30 s x n 3 -> 6; calls the record holds are answered "
        "from it)",
        "[cost] recorded: no generating parameter changed: every call from the record (recorded 30 s cold; now a "
        "replay's time)",
        "[cost] projected at most 60 s (1.0 minutes) of new model work"]


def test_the_page_section_projects_the_latest_run_with_the_parameters_it_ran_with(results):
    assert "No run of the `default` profile" in paper_projection_markdown()
    update_manifest("judge_validation", entry([lm(10, 0, 1000, 200)], {"n_items": 8}))
    write_run_report()
    text = paper_projection_markdown()
    assert "run `r1` (profile `default`), projected to the `paper` profile" in text
    # judge calls 396 with 8 items (the semantic-entropy stage at its defaults), 91,600 in the paper profile
    # (its T sweep of six thresholds)
    assert "| 396 → 91600 | x2 | 555,152 |" in text


def test_the_rerun_guide_has_the_line_the_projection_replaces():
    from llmcreativity.paths import REPO_ROOT
    from llmcreativity_book.site import PROJECTION_MARKER

    assert PROJECTION_MARKER in (REPO_ROOT / "book" / "rerun.md").read_text()


PUBLISHED_RUN = REPO_ROOT / PUBLISHED_RECORD
DECISIVE = REPO_ROOT / DECISIVE_RECORD


def recorded_parameters(record) -> dict[str, dict]:
    return {s.name: stage_parameters(s, record.stages[s.name].resolved_parameters) for s in STAGES
            if s.name in record.stages}


@pytest.mark.parametrize("folder", [SMOKE_RECORD, PUBLISHED_RUN, DECISIVE], ids=["smoke", "published", "decisive"])
def test_every_calls_formula_counts_what_the_committed_records_asked(folder):
    """Each stage's `Scale.calls` at a record's parameters, against the distinct calls its `record.json` lists:
    within a factor of 1.5 per stage (early stops and duplicate texts, which the formulas do not know, make the
    records smaller; a projection carries their share over from its calibration record), and every role the record
    names is one the formula names."""
    record = read_record(folder)
    params = recorded_parameters(record)
    for stage in STAGES:
        entry = record.stages[stage.name]
        calls = stage.scale.calls(scale_parameters(stage, params))
        assert 1 / 1.5 <= sum(calls.values()) / entry.call_count() <= 1.5, (stage.name, calls, entry.calls)
        if folder != SMOKE_RECORD:  # the smoke record predates the entailment stage's role names
            assert set(entry.calls) <= set(calls), stage.name


def test_the_per_call_costs_of_a_record_are_its_stored_answers_usage():
    """The published run's backends stage: 2 answer-probability calls, 8 samples in 2 generate requests, 1 score;
    a request's prompt counts once, its samples' completion tokens and seconds each."""
    costs = record_call_costs(PUBLISHED_RUN)["backends"]
    assert {k: (c.calls, c.requests) for k, c in costs.items()} == {
        ("writer", "answer_probs"): (2, 2), ("writer", "generate"): (8, 2), ("writer", "score"): (1, 1)}
    generate = costs[("writer", "generate")]
    usage = read_record(PUBLISHED_RUN).stages["backends"].usage[0]  # every call of it answered by the cache
    assert generate.completion_tokens == usage["cached_completion_tokens"] == 300
    assert generate.seconds > 0


def test_calibrated_on_the_published_run_the_decisive_profile_projects_its_record():
    """Calibrate on `published/run` (recorded on an Intel Xeon), project the `decisive` profile, compare with
    `published/decisive` (recorded on an AMD EPYC: the per-call seconds of the two machines differ, and calls the
    re-decision imported from the published run keep the Xeon's seconds), per stage:

    - calls against `record.json`'s per-stage call counts, within 25 %;
    - hours against the sum of the decisive record's per-call seconds (each stored answer's `usage.seconds`, not the
      stage's `seconds`, which is its last sitting only), within a factor of 2; embeddings store no seconds and count
      none on either side;
    - prompt plus completion tokens against the same stored answers' (a request's prompt once), within a factor of 2.

    Only semantic entropy (n_samples 6 -> 10, step_cap 2 -> 3, 1 -> 6 problems per domain, judge llm -> lab) and
    entailment validation (100 B7 sets, clustered by the laboratory's judge) change size between the two; the
    others check that the same parameters project the same calls."""
    published, decisive = read_record(PUBLISHED_RUN), read_record(DECISIVE)
    assert (published.cpu.model, decisive.cpu.model) == ("Intel(R) Xeon(R) Processor", "AMD EPYC")
    target = {s.name: stage_parameters(s, s.profiles["decisive"]) for s in STAGES}
    projected = project_calls(record_call_costs(PUBLISHED_RUN), recorded_parameters(published), target)
    actual = record_call_costs(DECISIVE)
    assert [p.stage for p in projected] == [s.name for s in STAGES]
    for p in projected:
        seen = sum(actual[p.stage].values(), NO_COST)
        assert seen.calls == decisive.stages[p.stage].call_count()
        assert 0.75 <= p.cost.calls / seen.calls <= 1.25, (p.stage, p.cost.calls, seen.calls)
        assert 0.5 <= p.cost.seconds / seen.seconds <= 2, (p.stage, p.cost.seconds, seen.seconds)
        tokens = seen.prompt_tokens + seen.completion_tokens
        assert 0.5 <= (p.cost.prompt_tokens + p.cost.completion_tokens) / tokens <= 2, (p.stage, p.cost, tokens)
        assert p.notes == ()


def test_a_role_the_calibration_lacks_is_counted_by_its_formula_at_the_records_mean_cost():
    """The decisive record's semantic entropy clusters with the laboratory's judge, asking no entailment judge: asked
    to project judge "llm", the questions come from the formula, priced like the record's other calls."""
    decisive = read_record(DECISIVE)
    calibrated = recorded_parameters(decisive)
    target = calibrated | {"semantic_entropy": calibrated["semantic_entropy"] | {"judge": "llm"}}
    [lab] = [p for p in project_calls(record_call_costs(DECISIVE), calibrated, calibrated) if p.stage ==
             "semantic_entropy"]
    [llm] = [p for p in project_calls(record_call_costs(DECISIVE), calibrated, target) if p.stage ==
             "semantic_entropy"]
    questions = 48 * 3 * 10 * 9  # chains x steps x n_samples (n_samples - 1)
    assert llm.cost.calls == pytest.approx(lab.cost.calls + questions)
    assert llm.cost.seconds > lab.cost.seconds
    assert llm.notes == (f"entailment_judge: no recorded call to scale, {questions:,} calls by the formula at the "
                         "record's mean per-call cost",)


def test_the_dry_run_of_the_paper_profile_prints_calls_tokens_and_hours_per_stage(capsys):
    from llmcreativity import cli

    assert cli.main(["run", "--profile", "paper", "--dry-run"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[cost]")]
    for stage in STAGES:
        [line] = [x for x in lines if x.startswith(f"[cost] {stage.name}: ")]
        assert re.fullmatch(rf"\[cost\] {stage.name}: ~[\d,]+ calls \([\d,]+ in the record\), ~[\d,]+ prompt \+ "
                            r"[\d,]+ completion tokens, ~[\d,.]+ h", line), line
    total = next(x for x in lines if x.startswith("[cost] profile paper: "))
    hours = float(re.search(r"~([\d,.]+) h$", total).group(1).replace(",", ""))
    assert hours > 100  # the paper's sizes: hundreds of hours on a 2-core CPU, not minutes
    assert any(f"the record {DECISIVE}" in x and "AMD EPYC" in x and "order of magnitude" in x for x in lines)
    assert any(calibration_command() in x for x in lines)


def test_a_dry_run_projects_its_p_overrides_from_this_machines_calibration_record(capsys):
    """A calibration record exported where `calibration_command` puts it (here a copy of the smoke record) is the
    one the dry run reads; -p overrides change the projection."""
    from llmcreativity import cli

    shutil.copytree(SMOKE_RECORD, calibration_folder())
    assert calibration_command().endswith(f"record export {calibration_folder()} --profile smoke")

    def calls(argv):
        assert cli.main(argv) == 0
        out = capsys.readouterr().out
        [line] = [x for x in out.splitlines() if x.startswith("[cost] semantic_entropy: ")]
        assert f"the record {calibration_folder()} (profile smoke" in out
        return float(re.search(r"~([\d,]+) calls", line).group(1).replace(",", ""))

    base = ["run", "--profile", "smoke", "--stage", "semantic_entropy", "--dry-run"]
    assert calls(base + ["-p", "semantic_entropy.n_problems", "3"]) > calls(base)
