"""Running again against a record: a replay re-analyses with analysis parameters changed (every call answered from
the record), one stage alone after a full replay, and a run live against the record computes only the calls a
changed generating parameter asks anew; the manifest and the claims page say which."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from llmcreativity.cli import main
from llmcreativity.jsonl import read_jsonl
from llmcreativity.llm.response_cache import ResponseCache
from llmcreativity.pipeline.claim_records import read_claims
from llmcreativity.pipeline.execution import (
    LIVE_FOLDER,
    REPLAY_FOLDER,
    Replay,
    prepare_from_record,
    prepare_replay,
    run,
    run_stage,
    upstream_to_replay,
)
from llmcreativity.pipeline.ledger import claims_markdown
from llmcreativity.pipeline.manifest import ManifestEntry, RecordCalls, read_manifest, update_manifest
from llmcreativity.pipeline.parameters import ParameterError
from llmcreativity.pipeline.planning import plan
from llmcreativity.pipeline.record_export import export_record
from llmcreativity.pipeline.stages import Stage
from llmcreativity.record_file import RecordError, read_record
from locations import TEST_DATA

NOTEBOOK = str(TEST_DATA / "book" / "reanalysed_stage.md")
PROFILES = {"default": {}}
FIRST = Stage("first", NOTEBOOK, "First", (), PROFILES, claims=("B1",))
SECOND = Stage("second", NOTEBOOK, "Second", ("first",), PROFILES, claims=("B2",))
STAGES = [FIRST, SECOND]
QUIET = {"log": lambda *_: None}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A live run of both stages with the notebook's defaults (n 3, min_length 0), exported: the record folder."""
    root = tmp_path_factory.mktemp("reanalysis")
    mp = pytest.MonkeyPatch()
    mp.setenv("LLMCREATIVITY_RESULTS", str(root / "results"))
    mp.setenv("LLMCREATIVITY_CACHE", str(root / "cache"))
    try:
        run("default", stages=STAGES, **QUIET)
        export_record(root / "record", plan("default", [], stages=STAGES), "default", root / "cache" / "calls.sqlite",
                      **QUIET)
    finally:
        mp.undo()
    return root / "record"


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty results folder and an empty call cache, as on a fresh clone."""
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    return tmp_path


def replies(stage: str) -> list[dict]:
    return read_jsonl(Path(os.environ["LLMCREATIVITY_RESULTS"]) / stage / "replies.jsonl")


def page() -> str:
    return claims_markdown(read_claims(), [], read_manifest("default").stages)


@pytest.mark.kernel
def test_a_replay_refuses_a_changed_generating_parameter_naming_the_live_mode(recorded, fresh):
    with pytest.raises(RecordError, match=r"stage 'first': the parameters differ from the record .* in generating "
                                          r"parameters, which change model calls \(n: recorded 3, now 4\).*analysis "
                                          r"parameters only \(this stage's: min_length\).*`--from-record "):
        prepare_replay(recorded, [("n", "4")], stages=STAGES)


@pytest.mark.kernel
def test_a_replay_re_analyses_one_stage_alone_answering_every_call_from_the_record(recorded, fresh):
    plans, replay = prepare_replay(recorded, stages=STAGES)
    for p in plans:
        run_stage(p, replay=replay, **QUIET)
    assert "| B1 |" in page() and "Against the record its stage ran with: recorded" in page()
    first = read_manifest("default").stages["first"]
    assert first.record_differences == () and read_manifest("default").stages["second"].record_differences == ()
    assert "Every replayed stage rebuilt its outputs and claims exactly as recorded." in page()

    plans, replay = prepare_replay(recorded, [("min_length", "26")], "second", stages=STAGES)
    assert [p.stage.name for p in plans] == ["second"]  # its upstream outputs are the full replay's
    entry = run_stage(plans[0], replay=replay, **QUIET)
    stages = read_manifest("default").stages
    assert stages["first"] == first  # not run again
    assert entry.calls == read_record(recorded).stages["second"].calls
    assert all(u["cache_hits"] == u["calls"] for u in entry.usage)  # nothing was computed
    assert entry.record_calls == RecordCalls(from_record=3, new=0, new_calls={})
    assert entry.against_record.analysis_changed == {"min_length": [0, 26]}
    assert [r["kept"] for r in replies("second")] == [False, True, True]  # the analysis did change
    assert [r["upstream"] for r in replies("second")] == [3, 3, 3]
    [b2] = [c for c in read_claims() if c.claim_id == "B2"]
    assert b2.statistic == 2.0 and b2.run_id == read_record(recorded).stages["second"].run_id
    text = page()
    assert "Against the record its stage ran with: recorded; re-analysed with min_length: recorded 0, now 26." in text
    assert "Re-analysed against the record, no call computed: second with min_length: recorded 0, now 26." in text
    assert entry.record_differences  # its replies are kept by another rule
    assert "**These pages no longer match the record:** second (" in text and "exactly as recorded" not in text


def test_one_stage_against_a_record_needs_its_upstream_outputs_made_against_that_record(recorded, fresh):
    with pytest.raises(ParameterError, match=r"stage 'second' reads the outputs of \['first'\]"):
        prepare_replay(recorded, only="second", stages=STAGES)
    update_manifest("first", ManifestEntry(status="ok", run_id="live"), "default")  # a live run's outputs here
    with pytest.raises(RecordError, match=r"reads the outputs of 'first', which in .* come from no run against a "
                                          r"record, not from .*record: run every stage against this record first"):
        prepare_replay(recorded, only="second", stages=STAGES)


@pytest.mark.kernel
def test_a_live_run_against_the_record_computes_only_the_calls_it_lacks(recorded, fresh):
    plans, replay = prepare_from_record(recorded, [("n", "4")], stages=STAGES)
    assert Path(os.environ["LLMCREATIVITY_RESULTS"]) == fresh / "results" / LIVE_FOLDER
    entries = [run_stage(p, replay=replay, **QUIET) for p in plans]
    for entry in entries:
        assert entry.record_calls == RecordCalls(from_record=3, new=1, new_calls={"writer": {"generate": 1}})
        assert entry.against_record.generating_changed == {"n": [3, 4]}
        assert [(u["calls"], u["cache_hits"]) for u in entry.usage] == [(4, 3)]
        assert entry.run_id != read_record(recorded).stages["first"].run_id  # a run of its own
    assert len(replies("second")) == 4 and replies("second")[0]["upstream"] == 4
    assert not (fresh / "cache" / "calls.sqlite").exists()  # the user's call cache is not touched
    assert len(ResponseCache(replay.calls)) == len(replay.keys) + 2  # the record's answers and the two computed
    text = page()
    assert "Against the record its stage ran with: fresh: 1 of 4 calls new" in text
    assert ("Run live against the record `record` (the calls it holds answered from it, the others computed): "
            "first: 3 calls from the record, 1 new (n: recorded 3, now 4); second: 3 calls from the record, 1 new") \
        in text


def test_a_run_against_a_record_never_clears_a_live_runs_results(recorded, fresh):
    [p] = plan("default", [], stages=[FIRST])
    record = read_record(recorded)
    live = fresh / "results" / "first"
    live.mkdir(parents=True)
    with pytest.raises(RecordError, match="a run against a record writes under a folder named 'replay'"):
        run_stage(p, replay=Replay(recorded, record, fresh / "calls.sqlite"), **QUIET)
    assert live.exists() and REPLAY_FOLDER == "replay"


def test_the_user_cache_option_belongs_to_the_live_mode(capsys):
    assert main(["run", "--replay", "x", "--user-cache"]) == 2
    assert "--user-cache imports a record into your call cache: use it with --from-record" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--replay", "x", "--from-record", "y"])


SMOKE_RECORD = TEST_DATA / "records" / "smoke"


def test_the_live_mode_prints_the_projected_cost_before_anything_runs(fresh, capsys):
    """Against the committed smoke record, `--dry-run` plans and projects, and runs nothing."""
    assert main(["run", "--from-record", str(SMOKE_RECORD), "-p", "semantic_entropy.n_samples", "6", "-p", "keep", "1",
                 "--dry-run"]) == 0
    out = capsys.readouterr().out
    # 19.1 recorded seconds x (4 chains x (6 + 1) calls + 4 novelty ratings = 32) / (4 x (4 + 1) + 4 = 24)
    assert "[cost] semantic_entropy: n_samples changed: at most 25 s (recorded 19 s x model calls" in out
    assert " 24 -> 32 x max_tokens x1; calls the record holds are answered from it)" in out
    assert "[cost] backends: no generating parameter changed: every call from the record" in out
    assert "[re-analysis] scifi100: keep: recorded 2, now 1" in out
    assert out.index("[cost]") < out.index("backends (notebooks/backends.md)") < out.index("nothing was run")
    assert not (fresh / "results" / LIVE_FOLDER / "smoke" / "semantic_entropy").exists()


@pytest.mark.kernel
def test_one_stage_live_against_the_record_reads_its_upstream_from_the_records_replay(recorded, fresh, capsys):
    """`--from-record RECORD --stage S` after a replay of RECORD: S's upstream stages are taken as the replay rebuilt
    them (not run again), a bare `-p` changes S alone, and a replay re-analysed at other values is not taken."""
    assert upstream_to_replay(recorded, "second", STAGES) == ["first"]  # nothing replayed yet
    plans, replay = prepare_replay(recorded, stages=STAGES)
    replayed = {p.stage.name: run_stage(p, replay=replay, **QUIET) for p in plans}
    assert upstream_to_replay(recorded, "second", STAGES) == []

    [p], live = prepare_from_record(recorded, [("n", "4")], "second", stages=STAGES)
    assert f"second reads first as the replay of this record rebuilt them ({fresh / 'results' / 'replay'})" \
        in capsys.readouterr().out
    assert p.parameters["n"] == 4  # the bare -p is the asked stage's
    entry = run_stage(p, replay=live, **QUIET)
    assert read_manifest("default").stages["first"] == replayed["first"]  # taken, not run again
    assert (fresh / "results" / LIVE_FOLDER / "first" / "replies.jsonl").read_bytes() == \
        (fresh / "results" / REPLAY_FOLDER / "first" / "replies.jsonl").read_bytes()
    assert [r["upstream"] for r in replies("second")] == [3, 3, 3, 3]  # first's three replies, as recorded
    assert entry.record_calls == RecordCalls(from_record=3, new=1, new_calls={"writer": {"generate": 1}})
    assert {c.claim_id for c in read_claims()} == {"B1", "B2"}  # first's claim rows came with it

    [p], again = prepare_replay(recorded, [("min_length", "26")], "first", stages=STAGES)
    run_stage(p, replay=again, **QUIET)  # first re-analysed at another value: no longer the record's replay
    assert upstream_to_replay(recorded, "second", STAGES) == ["first"]
