"""Every chapter's exercises do what their folded answers say (`llmcreativity_book.exercises`): each answer's check
line parses and names real targets, and every re-analysis exercise, run against the committed smoke record, changes
what its answer says it changes and leaves the rest as it was."""

from __future__ import annotations

import fnmatch
from dataclasses import replace

import pytest

from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.stages import STAGES
from llmcreativity.record_file import read_record
from llmcreativity_book.exercises import (
    CELL_TARGET,
    COUNT_TARGETS,
    RECORD_TARGETS,
    Check,
    against,
    every_exercise,
    parse_check,
    run_exercise,
)
from locations import TEST_DATA

RECORD = TEST_DATA / "records" / "smoke"


def test_a_check_line_reads_its_two_halves_and_refuses_another_form():
    assert parse_check("% check: changed a.csv, cell:x(y); same calls", "nb") == Check(("a.csv", "cell:x(y)"),
                                                                                      ("calls",))
    assert parse_check("% check: same new-calls", "nb") == Check((), ("new-calls",))
    for bad in ("% check:", "% check: moved a.csv", "% check: changed a; changed b", "% check: same"):
        with pytest.raises(ValueError, match="nb: the check line|nb: the check line .* names no target"):
            parse_check(bad, "nb")


def test_every_chapter_has_exercises_whose_checks_name_real_targets():
    recorded = read_record(RECORD).stages
    exercises = every_exercise()
    assert {e.stage.name for e in exercises} == {s.name for s in STAGES}
    faults = []
    for e in exercises:
        code = (REPO_ROOT / e.stage.notebook).read_text()
        for target in e.check.changed + e.check.same:
            if target.startswith(CELL_TARGET):
                ok = target.removeprefix(CELL_TARGET) in code
            else:
                ok = target in (*RECORD_TARGETS, *COUNT_TARGETS) or any(
                    fnmatch.fnmatch(rel, target) for rel in recorded[e.stage.name].output_digests)
            faults += [] if ok else [f"{e.name}: {target}"]
    assert faults == []


def test_an_exercise_runs_against_the_given_record_and_a_live_one_live_against_it(tmp_path):
    replay = against(("llmcreativity", "run", "--replay", "published/run", "--stage", "corpus", "-p", "a", "1"),
                     RECORD, tmp_path)
    assert replay[1:] == ["run", "--replay", str(RECORD), "--stage", "corpus", "-p", "a", "1"]
    live = against(("llmcreativity", "run", "--stage", "review", "--profile", "smoke", "-p", "dataset_path",
                    "results/smoke/scifi100/x.json"), RECORD, tmp_path)
    assert live[1:] == ["run", "--stage", "review", "-p", "dataset_path", str(tmp_path / "from-record" / "smoke" /
                        "scifi100" / "x.json"), "--from-record", str(RECORD)]


@pytest.fixture(scope="module")
def replayed(smoke_replay, tmp_path_factory):
    """The smoke record replayed once (the replay guard's): (the folder the replay wrote, a work folder)."""
    return smoke_replay[3], tmp_path_factory.mktemp("exercises")


@pytest.mark.slow
@pytest.mark.parametrize("exercise", [e for e in every_exercise() if e.replay], ids=lambda e: e.stage.name)
def test_every_re_analysis_exercise_does_what_its_answer_says(exercise, replayed):
    base, work = replayed
    faults, changed = run_exercise(exercise, RECORD.resolve(), base, work, "smoke")
    assert faults == [], f"what changed: {changed}"


@pytest.mark.slow
def test_an_answer_that_says_the_wrong_thing_fails_naming_the_target(replayed):
    base, work = replayed
    exercise = next(e for e in every_exercise() if e.replay and e.stage.name == "baselines")
    shown = exercise.check.changed[0]  # the exposure table, which 3-grams change
    wrong = replace(exercise, check=Check(("new-calls",), (shown,)))
    faults, changed = run_exercise(wrong, RECORD.resolve(), base, work, "smoke")
    assert faults == [f"{exercise.name}: new-calls did not change", f"{exercise.name}: {shown} changed"]
    assert any(shown.removeprefix("cell:") in c for c in changed if c.startswith("cell:"))
