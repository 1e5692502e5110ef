"""Recording a run, replaying it from the record alone, and refusing records that cannot be replayed."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from llmcreativity.cli import main
from llmcreativity.jsonl import read_jsonl
from llmcreativity.pipeline.claim_records import read_claims
from llmcreativity.pipeline.execution import prepare_replay, run, run_stage
from llmcreativity.pipeline.ledger import claims_markdown
from llmcreativity.pipeline.manifest import read_manifest
from llmcreativity.pipeline.planning import plan
from llmcreativity.pipeline.record_compare import output_digests, replay_differences, unreplayable_stages
from llmcreativity.pipeline.record_export import call_log_file, export_record
from llmcreativity.pipeline.stages import Stage
from llmcreativity.record_file import Machine, RecordError, Sitting, read_record
from locations import TEST_DATA
from record_helpers import record_of, recorded_stage

NOTEBOOK = TEST_DATA / "book" / "recorded_stage.md"
STAGE = Stage("recorded", str(NOTEBOOK), "Recorded", (), {"default": {}, "paper": {"n": 4}, "smoke": {"n": 1}})


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A live run of the recorded stage, exported: (record folder, live results folder)."""
    root = tmp_path_factory.mktemp("record")
    env = {"LLMCREATIVITY_RESULTS": str(root / "results"), "LLMCREATIVITY_CACHE": str(root / "cache")}
    before = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        [entry] = run("default", stages=[STAGE], log=lambda *_: None)
        export_record(root / "record", plan("default", [], stages=[STAGE]), "default", root / "cache" / "calls.sqlite",
                      log=lambda *_: None)
    finally:
        for k, v in before.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return root / "record", root / "results", entry


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty results folder and an empty cache, as on a fresh clone."""
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    return tmp_path


@pytest.mark.kernel
def test_the_record_lists_every_call_with_its_role_and_the_files_hashes(recorded):
    folder, _, entry = recorded
    record = read_record(folder)
    stage = record.stages["recorded"]
    assert stage.calls == {"(none)": {"encode": 3}, "writer": {"answer_probs": 3, "generate": 6}}
    assert stage.run_id == entry.run_id and stage.resolved_parameters == {"n": 3}
    assert sorted(record.files) == ["recorded/calls.1.jsonl.gz", "recorded/embeddings.1.npz",
                                    "recorded/keys.1.jsonl.gz"]
    assert [c["claim_id"] for c in stage.claims] == ["B1"]


@pytest.mark.kernel
def test_a_replay_from_the_record_alone_rebuilds_the_outputs_and_claims(recorded, fresh):
    folder, live, entry = recorded
    plans, replay = prepare_replay(folder, stages=[STAGE])
    replayed = run_stage(plans[0], log=lambda *_: None, replay=replay)
    out = Path(os.environ["LLMCREATIVITY_RESULTS"])
    assert out == fresh / "results" / "replay"
    assert replayed.calls == read_record(folder).stages["recorded"].calls
    assert replayed.outputs == entry.outputs  # the same bytes
    assert replay_differences(replay.record, read_manifest("default").stages, out) == {"recorded": []}
    assert [u["cache_hits"] == u["calls"] for u in replayed.usage] == [True, True]
    claims = read_jsonl(out / "claims.jsonl")
    assert [c["run_id"] for c in claims] == [entry.run_id]  # the recorded run's id, not the replay's
    assert replayed.replay.replay_id != entry.run_id
    assert not (fresh / "cache" / "calls.sqlite").exists()  # nothing was computed or cached
    page = claims_markdown(read_claims(), [], read_manifest("default").stages)
    assert (f"rebuilt from the record `{folder.name}` of run(s) `{entry.run_id}`: 1 stage(s), 12 model calls "
            "answered from the record") in page
    # the first answer_probs and encode call are computed again; a scripted generation cannot be teacher-forced
    assert "Live spot check: 2 recorded calls computed again, 2 matched" in page
    assert f"The record holds 1 stage(s) of profile `default` from 1 run(s) (`{entry.run_id}`" in page


@pytest.mark.kernel
def test_a_replay_clears_the_caches_its_stage_keeps_beside_its_folder_and_asks_every_recorded_call(recorded, fresh):
    """The corpus stage keeps its built store beside its own folder and resumes from it. A second replay into the
    same folder starts without it, as without the stage's own folder, so it asks every recorded call again; a
    folder the stage does not declare is left alone."""
    from llmcreativity.output_files import CORPUS_STORE_FOLDER
    from llmcreativity.paths import results_dir
    from llmcreativity.pipeline.stages import STAGES

    assert [(s.name, s.caches) for s in STAGES if s.caches] == [("corpus", (CORPUS_STORE_FOLDER,))]
    folder, _, _ = recorded
    stage = replace(STAGE, caches=("scratch",))
    plans, replay = prepare_replay(folder, stages=[stage])
    base = results_dir(plans[0].profile)
    for name in ("scratch", "recorded", "other"):
        (base / name).mkdir(parents=True)
        (base / name / "left.txt").write_text("an earlier run's")
    replayed = run_stage(plans[0], log=lambda *_: None, replay=replay)
    assert not (base / "scratch").exists() and not (base / "recorded" / "left.txt").exists()
    assert (base / "other" / "left.txt").exists()
    assert replayed.calls == read_record(folder).stages["recorded"].calls


@pytest.mark.kernel
def test_a_replay_that_meets_an_unrecorded_call_stops_naming_stage_and_fix(recorded, fresh, tmp_path):
    folder, _, _ = recorded
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    record = json.loads((copy / "record.json").read_text())
    record["stages"]["recorded"]["resolved_parameters"]["n"] = 4  # pretend the record was made with n=4
    (copy / "record.json").write_text(json.dumps(record))
    plans, replay = prepare_replay(copy, [("n", "4")], stages=[STAGE])
    with pytest.raises(Exception, match="replay miss in stage 'recorded', role 'writer'.*prompt number 3"):
        run_stage(plans[0], log=lambda *_: None, replay=replay)


def _damaged(folder: Path, tmp_path: Path, damage) -> Path:
    copy = tmp_path / "damaged"
    shutil.copytree(folder, copy)
    damage(copy)
    return copy


def _truncate(copy: Path) -> None:
    path = copy / "recorded" / "calls.1.jsonl.gz"
    path.write_bytes(path.read_bytes()[:-20])


def _corrupt_row(copy: Path) -> None:
    path = copy / "recorded" / "calls.1.jsonl.gz"
    rows = gzip.decompress(path.read_bytes()).decode().splitlines()
    rows[0] = rows[0].replace("reply", "rep1y")
    path.write_bytes(gzip.compress(("\n".join(rows) + "\n").encode()))


def _change_parameters(copy: Path) -> None:
    record = json.loads((copy / "record.json").read_text())
    record["stages"]["recorded"]["resolved_parameters"]["n"] = 5
    (copy / "record.json").write_text(json.dumps(record))


def _drop_stage(copy: Path) -> None:
    record = json.loads((copy / "record.json").read_text())
    del record["stages"]["recorded"]
    (copy / "record.json").write_text(json.dumps(record))


def _declare_endpoint_settings(copy: Path) -> None:
    record = json.loads((copy / "record.json").read_text())
    record["stages"]["recorded"]["resolved_parameters"].update(api_key_env="MY_KEY", max_concurrency=32)
    (copy / "record.json").write_text(json.dumps(record))


def _lack_a_parameter(copy: Path) -> None:
    record = json.loads((copy / "record.json").read_text())
    del record["stages"]["recorded"]["resolved_parameters"]["n"]
    (copy / "record.json").write_text(json.dumps(record))


def test_a_record_holding_parameters_the_notebook_no_longer_declares_is_replayed(recorded, fresh, tmp_path):
    """Records made while every notebook declared `api_key_env` and `max_concurrency` hold them among a stage's
    parameters; no code reads a parameter the notebook no longer declares, so it is not compared."""
    folder, _, _ = recorded
    plans, replay = prepare_replay(_damaged(folder, tmp_path, _declare_endpoint_settings), stages=[STAGE])
    recorded_parameters = replay.record.stages["recorded"].resolved_parameters
    assert [p.stage.name for p in plans] == ["recorded"]
    assert recorded_parameters == {"n": 3, "api_key_env": "MY_KEY", "max_concurrency": 32}


@pytest.mark.parametrize(("damage", "message"), [
    (_truncate, r"calls\.1\.jsonl\.gz: truncated or altered.*restore it from git"),
    (_corrupt_row, r"calls\.1\.jsonl\.gz: truncated or altered"),
    (_change_parameters, r"stage 'recorded': the parameters differ.*n: recorded 5, now 3.*re-record the stage"),
    (_drop_stage, r"holds no stage \['recorded'\].*record them"),
    (_lack_a_parameter, r"stage 'recorded': the parameters differ.*n: recorded '\(none\)', now 3"),
])
def test_a_damaged_or_mismatched_record_is_refused_before_anything_runs(recorded, fresh, tmp_path, damage, message):
    folder, _, _ = recorded
    copy = _damaged(folder, tmp_path, damage)
    with pytest.raises(RecordError, match=message):
        prepare_replay(copy, stages=[STAGE])
    out = Path(os.environ["LLMCREATIVITY_RESULTS"])
    assert not (out / "recorded").exists() and not read_manifest("default").stages


def test_a_record_is_complete_only_with_every_stage_at_the_profiles_generating_parameters(recorded, tmp_path):
    """`make book` replays the published record only when this holds, and runs the default profile live otherwise
    (an interim sitting records a stage at a smaller size)."""
    folder, _, _ = recorded
    assert unreplayable_stages(folder, plan("default", [], stages=[STAGE])) == {}
    assert unreplayable_stages(tmp_path / "none", plan("default", [], stages=[STAGE])) == {
        "recorded": f"no record at {tmp_path / 'none'}"}
    assert unreplayable_stages(folder, plan("paper", [], stages=[STAGE])) == {
        "recorded": "the record is of profile 'default', not 'paper'"}
    assert unreplayable_stages(_damaged(folder, tmp_path, _drop_stage), plan("default", [], stages=[STAGE])) == {
        "recorded": "not recorded yet"}
    later = unreplayable_stages(_damaged(folder, tmp_path / "b", _change_parameters),
                                plan("default", [], stages=[STAGE]))
    assert later == {"recorded": "recorded with other generating parameters (n: recorded 5, now 3)"}


@pytest.mark.kernel
def test_exporting_again_after_a_rerun_adds_files_and_never_rewrites_them(recorded, tmp_path, monkeypatch):
    folder, live, _ = recorded
    copy = tmp_path / "grown"
    shutil.copytree(folder, copy)
    before = {p.name: p.read_bytes() for p in (copy / "recorded").iterdir()}
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(live))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(live.parent / "cache"))
    unchanged = export_record(copy, plan("default", [], stages=[STAGE]), "default", log=lambda *_: None)
    assert unchanged.stages["recorded"].keys_file == "recorded/keys.1.jsonl.gz"
    run("default", [("n", "4")], stages=[STAGE], log=lambda *_: None)
    grown = export_record(copy, plan("default", [("n", "4")], stages=[STAGE]), "default", log=lambda *_: None)
    assert grown.stages["recorded"].keys_file == "recorded/keys.2.jsonl.gz"
    # the answers' files stay as they were; the superseded keys file goes (the new one holds its calls too)
    assert not (copy / "recorded" / "keys.1.jsonl.gz").exists()
    before.pop("keys.1.jsonl.gz")
    assert {p.name: p.read_bytes() for p in (copy / "recorded").iterdir() if p.name in before} == before
    assert grown.stages["recorded"].calls["writer"] == {"answer_probs": 4, "generate": 8}


def test_a_sitting_without_new_calls_whose_outputs_changed_is_recorded_with_the_same_files(recorded, tmp_path,
                                                                                         monkeypatch):
    """A test split scored once its choice was committed asks no new call (the record answers all), yet changes the
    stage's outputs: the entry takes the new digests as a sitting of its own, keeping its keys and answers files."""
    folder, live, _ = recorded
    copy, results = tmp_path / "rescored", tmp_path / "results"
    shutil.copytree(folder, copy)
    shutil.copytree(live, results)
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(results))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(live.parent / "cache"))
    # up to date with the live folder's calls first (an earlier test may have grown it)
    first = export_record(copy, plan("default", [], stages=[STAGE]), "default",
                          log=lambda *_: None).stages["recorded"]
    name = sorted(first.output_digests)[0]
    (results / name).write_text('{"rescored": 1}\n')
    again = export_record(copy, plan("default", [], stages=[STAGE]), "default", log=lambda *_: None)
    entry = again.stages["recorded"]
    assert entry.output_digests[name] != first.output_digests[name]
    assert entry.keys_file == first.keys_file and entry.shards == first.shards
    assert len(entry.sittings) == len(first.all_sittings()) + 1 and entry.sittings[-1].calls == {}


@pytest.mark.kernel
def test_a_stage_resumed_in_a_later_sitting_is_recorded_with_the_calls_of_every_sitting(recorded, tmp_path,
                                                                                        monkeypatch):
    """A resumed sitting logs only the calls it did not read back from its results folder; the record's entry still
    holds (and counts) every call a replay of the stage asks, and names each sitting with its time."""
    folder, live, _ = recorded
    copy = tmp_path / "resumed"
    shutil.copytree(folder, copy)
    first = read_record(copy).stages["recorded"]
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(live))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(live.parent / "cache"))
    profile = plan("default", [("n", "4")], stages=[STAGE])
    [entry] = run("default", [("n", "4")], stages=[STAGE], log=lambda *_: None)
    log = call_log_file("recorded", "default")
    with gzip.open(copy / "recorded" / "keys.1.jsonl.gz", "rt") as f:
        asked_before = {tuple(json.loads(line)["keys"]) for line in f}
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows if tuple(r["keys"]) not in asked_before))
    stage = export_record(copy, profile, "default", log=lambda *_: None).stages["recorded"]
    assert stage.calls == {"(none)": {"encode": 4}, "writer": {"answer_probs": 4, "generate": 8}}
    assert [s.run_id for s in stage.sittings] == [first.run_id, entry.run_id]
    assert stage.sittings[1].calls == {"(none)": {"encode": 1}, "writer": {"answer_probs": 1, "generate": 2}}
    assert stage.computing_seconds() == pytest.approx(first.seconds + entry.seconds)
    assert sorted(p.name for p in (copy / "recorded").glob("keys.*")) == ["keys.2.jsonl.gz"]
    # exporting the same sitting again adds nothing
    assert export_record(copy, profile, "default", log=lambda *_: None).stages["recorded"] == stage


@pytest.mark.kernel
def test_a_sitting_at_an_interim_size_is_recorded_at_that_size_until_the_stage_runs_at_the_profiles(
        recorded, tmp_path, monkeypatch):
    """`record export --profile P` plans with P's parameters; the record keeps what the stage ran with (a -p
    override of a sitting), so `make book` does not take an interim sitting for the published run."""
    _, live, _ = recorded
    copy = tmp_path / "sittings"
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(live))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(live.parent / "cache"))
    profile = plan("default", [], stages=[STAGE])
    run("default", [("n", "2")], stages=[STAGE], log=lambda *_: None)
    interim = export_record(copy, profile, "default", log=lambda *_: None)
    assert interim.stages["recorded"].resolved_parameters["n"] == 2
    assert unreplayable_stages(copy, profile) == {"recorded": "recorded with other generating parameters (n: recorded "
                                                             "2, now 3)"}
    run("default", stages=[STAGE], log=lambda *_: None)
    full = export_record(copy, profile, "default", log=lambda *_: None).stages["recorded"]
    assert unreplayable_stages(copy, profile) == {}
    assert full.calls["writer"] == {"answer_probs": 3, "generate": 6} and len(full.sittings) == 2


def test_a_record_read_and_written_again_is_the_same_bytes(tmp_path):
    """The typed form of record.json loses nothing: every committed record comes back byte for byte."""
    from llmcreativity.paths import REPO_ROOT
    from llmcreativity.record_file import write_record

    folders = [f.parent for f in sorted((REPO_ROOT / "published").glob("*/record.json"))]
    assert folders, "no committed record under published/"
    for folder in [*folders, REPO_ROOT / "tests" / "data" / "records" / "smoke"]:
        write_record(tmp_path, read_record(folder))
        assert (tmp_path / "record.json").read_bytes() == (folder / "record.json").read_bytes(), folder


def test_replay_differences_names_changed_and_missing_outputs_and_changed_claims(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.jsonl").write_text('{"x": 1, "steps": [{"y": 2, "sample_seconds": 0.5}]}\n')
    (tmp_path / "s" / "b.csv").write_text("x,seconds\n1,0.5\n")
    (tmp_path / "claims.jsonl").write_text(json.dumps({"stage": "s", "claim_id": "B1", "statistic": 0.4,
                                                       "recorded_at": "later"}) + "\n")
    digests = output_digests({"s/a.jsonl": "", "s/b.csv": ""}, tmp_path)
    claim = {"stage": "s", "claim_id": "B1", "statistic": 0.4, "recorded_at": "then"}
    record = record_of(s=recorded_stage(output_digests={**digests, "s/c.jsonl": "1" * 64}, claims=(claim,)))
    assert replay_differences(record, {"s"}, tmp_path) == {"s": ["s/c.jsonl: missing"]}
    # other wall-clock times are the same content; another value is not
    (tmp_path / "s" / "a.jsonl").write_text('{"x": 1, "steps": [{"y": 2, "sample_seconds": 9.0}]}\n')
    (tmp_path / "s" / "b.csv").write_text("x,seconds\n2,0.5\n")
    assert replay_differences(record, {"s"}, tmp_path)["s"][:2] == ["s/b.csv: differs", "s/c.jsonl: missing"]
    claim["statistic"] = 0.5
    assert replay_differences(record, {"s"}, tmp_path)["s"][-1] == "claims records differ"
    assert replay_differences(record, set(), tmp_path) == {}  # a stage the replay did not run is not compared


def test_a_failed_export_leaves_no_file_behind(recorded, tmp_path, monkeypatch):
    folder, live, _ = recorded
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(live))
    empty = tmp_path / "empty.sqlite"  # a call cache without the run's answers: the export must fail
    with pytest.raises(RecordError, match="have no answer in the call cache"):
        export_record(tmp_path / "new", plan("default", [], stages=[STAGE]), "default", empty, log=lambda *_: None)
    assert [p for p in (tmp_path / "new").rglob("*") if p.is_file()] == []


def test_the_record_provenance_names_its_runs_dates_commits_machine_and_hours():
    from llmcreativity.pipeline.record_page import record_provenance

    stages = {"a": recorded_stage(run_id="20261201T170909-2784a6", commit="bf6b3a02e5e9", seconds=5400.0),
              "b": recorded_stage(run_id="20261203T090000-aaaaaa", commit="bf6b3a02e5e9", seconds=1800.0),
              "c": recorded_stage(run_id="20261203T090000-aaaaaa", commit="1234567890ab", seconds=3600.0)}
    record = record_of("published", Machine("AMD EPYC 9B14", "x86_64", 2, ()), **stages)
    text = record_provenance(record)
    assert "3 stage(s) of profile `published` from 2 run(s)" in text
    assert "2026-12-01 to 2026-12-03" in text and "`1234567` " not in text
    assert "`bf6b3a0`" in text and "`1234567`" in text
    assert "AMD EPYC 9B14, 2 cores: 3.00 hours of computing" in text
    # a stage recorded over two sittings: both runs named, both wall times counted
    stages["a"] = replace(stages["a"], sittings=(Sitting("20261130T100000-bbbbbb", "bf6b3a02e5e9", 1800.0, "", {}),
                                                 Sitting("20261201T170909-2784a6", "bf6b3a02e5e9", 5400.0, "", {})))
    text = record_provenance(replace(record, stages=stages))
    assert "from 3 run(s)" in text and "2026-11-30 to 2026-12-03" in text
    assert "3.50 hours of computing" in text


def test_reproduce_runs_each_planned_stage_and_exports_it_to_the_profiles_record(monkeypatch, tmp_path, capsys):
    """`llmcreativity reproduce` (a sitting): the records imported first, then each stage run and exported at once,
    the record's size said from the typed record the export returns."""
    from llmcreativity.pipeline import execution, planning
    from llmcreativity.pipeline import record_export as record_module

    done: list[str] = []
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    cache = type("Cache", (), {"path": tmp_path / "calls.sqlite"})()
    monkeypatch.setattr(record_module, "import_record",
                        lambda folder, calls, fresh: done.append(f"import {folder.name}") or cache)
    monkeypatch.setattr(planning, "plan", lambda profile, overrides, stage: [type("Plan", (), {"stage": STAGE})()])
    monkeypatch.setattr(execution, "run_stage", lambda p, run_id: done.append(f"run {p.stage.name}"))
    monkeypatch.setattr(record_module, "export_record", lambda folder, plans, profile, calls: done.append(
        f"export {[p.stage.name for p in plans]} {profile}") or replace(record_of(profile), bytes=3 * 2**20))
    assert main(["reproduce", "--profile", "decisive", "--stage", "recorded"]) == 0
    assert done == ["import run", "import decisive", "run recorded", "export ['recorded'] decisive"]
    assert "exported recorded to published/decisive (3.0 MiB in all): commit it" in capsys.readouterr().out
