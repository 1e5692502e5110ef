"""The guard on exact replay: a committed record of the smoke profile replays with zero misses.

The record (`tests/data/records/smoke/`) holds every model call of a smoke run, across llama.cpp, transformers,
an embedder and the LLM entailment judge. A change that moves a prompt, a sampling setting, a model identity or a
stage parameter makes this test fail, naming the stage to re-record:

    .venv/bin/llmcreativity run --profile smoke
    .venv/bin/llmcreativity record export tests/data/records/smoke --profile smoke

(after deleting the folder, so that the record holds only the new run).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from llmcreativity.pipeline.record_compare import replay_differences
from llmcreativity.record_file import read_record
from locations import TEST_DATA

RECORD = TEST_DATA / "records" / "smoke"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replayed(smoke_replay):
    """Every stage of the smoke record replayed into a fresh results folder: (record, manifest entries, results)."""
    return smoke_replay[:3]


def test_every_recorded_stage_replays_asking_exactly_the_recorded_calls(replayed):
    record, stages, _ = replayed
    assert set(stages) == set(record.stages)
    for name, entry in stages.items():
        assert entry.status == "ok", name
        assert entry.calls == record.stages[name].calls, name
        assert all(u["cache_hits"] == u["calls"] for u in entry.usage), name  # nothing was computed


def test_the_spot_check_recomputes_every_model_identity_and_all_match(replayed):
    record, stages, _ = replayed
    checked = [r for e in stages.values() for r in e.spot_check.mismatches]
    assert checked == []
    compared = sum(e.spot_check.compared for e in stages.values())
    assert compared == sum(e.spot_check.matched for e in stages.values()) > 0


def test_each_stage_checks_the_calls_its_seeded_draw_picks_and_the_worker_computes_them_all(replayed):
    # the replay ran as `make book` runs it: its spot checks left to one worker that loads each model once; the
    # calls drawn are those a stage checking its own calls draws (the same `wants` over the calls it asked)
    from llmcreativity.llm.call_log import read_call_log
    from llmcreativity.llm.spot_check import SpotChecker

    _, stages, results = replayed
    for name, entry in stages.items():
        draw = SpotChecker(results / "unused.jsonl")
        drawn = sum(draw.wants(c) for c in read_call_log(results / "executed" / "calls" / f"{name}.jsonl"))
        assert (entry.spot_check.drawn, entry.spot_check.compared) == (drawn, drawn), name
    assert (results / "executed" / "spot_check" / "worker.log").exists()
    assert not list((results / "executed").rglob("*.pending.jsonl"))


def test_the_record_spans_both_engines_an_embedder_and_the_entailment_judge():
    record = read_record(RECORD)
    identities = {u["identity"] for e in record.stages.values() for u in e.usage}
    assert any(i.startswith("llama.cpp:") for i in identities)
    assert any(i.startswith("transformers:") and ":float32:" in i for i in identities)
    assert any(u["kind"] == "embedder" for e in record.stages.values() for u in e.usage)
    roles = {role for e in record.stages.values() for role in e.calls}
    assert {"entailment_judge", "writer", "embedder"} <= roles


def test_the_replay_rebuilds_the_recorded_outputs_and_claims(replayed):
    record, stages, results = replayed
    assert replay_differences(record, stages, results) == {name: [] for name in record.stages}


FULL_IDENTITY = re.compile(r"sha256-[0-9a-f]{8}|:row-seeded")
"""A model's full identity (`llm.registry`): the page shows its short label (`llmcreativity_book.display`)."""
RAW_FLOAT = re.compile(r"\d\.\d{6,}")
"""pandas' six decimals: a number shown without the display helper's rounding."""


def page_outputs(notebook: Path) -> list[tuple[str, str, str]]:
    """(cell source's first line, mime type or "stdout", text) of every output a chapter shows before its provenance
    section (the cell that calls `show_provenance`, which gives the full identities); a cell's printed lines are one
    output, as a page shows them in one box; stderr is not shown."""
    shown = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code" or "show_provenance(" in cell.source:
            continue
        first = cell.source.splitlines()[0] if cell.source else ""
        outputs = cell.get("outputs", [])
        printed = [out["text"] for out in outputs if out["output_type"] == "stream" and out["name"] == "stdout"]
        if printed:  # one box: the kernel may send one print in several stream messages (its text, then "\n")
            shown.append((first, "stdout", "".join(printed)))
        for out in outputs:
            for mime, text in out.get("data", {}).items():
                if mime.startswith("text/"):
                    shown.append((first, mime, "".join(text) if isinstance(text, list) else text))
    return shown


def test_every_chapter_shows_rounded_tables_short_model_names_and_no_empty_output(replayed):
    """Every executed chapter of the replay: each table comes from the display helper, no full model identity and
    no unrounded float stand outside the provenance section, and no output box is empty."""
    notebooks = sorted((replayed[2] / "executed").glob("*.ipynb"))
    assert {n.stem for n in notebooks} >= set(read_record(RECORD).stages)
    faults = []
    for notebook in notebooks:
        for first, mime, text in page_outputs(notebook):
            where = f"{notebook.stem}: {first[:60]!r} ({mime})"
            if FULL_IDENTITY.search(text):
                faults.append(f"{where}: full model identity")
            if mime in ("stdout", "text/html") and RAW_FLOAT.search(text):
                faults.append(f"{where}: unrounded float {RAW_FLOAT.search(text).group()}")
            if mime == "text/html" and "<table" in text and 'class="llmc-table"' not in text:
                faults.append(f"{where}: a table not made by llmcreativity_book.display")
            if mime == "stdout" and not text.strip():
                faults.append(f"{where}: an empty output box")
    assert faults == []
