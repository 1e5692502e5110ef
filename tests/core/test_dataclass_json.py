"""One way to store a record (`dataclass_json`): every record class writes, byte for byte, what it wrote before.

`tests/data/json_records/before.jsonl` was captured with the hand-written `to_dict`/`from_dict` pairs and `asdict` calls
this module replaced, on rows of a default run (stories, transcript messages, rubric scores, chains, judgements,
claims, judge-validity records, run-report lines) and on a chain stored before greedy chaining: each line holds the
record class, the writer (`append_jsonl`, or `rewrite_jsonl` with sorted keys), the line it wrote and, where the
stored row it read differs from that line, the row.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

import pytest

from llmcreativity.claims.judge_validity import JudgeValidity
from llmcreativity.dataclass_json import SCHEMA_KEY, from_json, to_json
from llmcreativity.entropy.chains import Chain
from llmcreativity.jsonl import locked, read_records, upsert
from llmcreativity.judges.judgement import Judgement
from llmcreativity.judges.rubric.rubric_scores import RubricScore
from llmcreativity.pipeline.claim_records import Claim
from llmcreativity.pipeline.run_report import StageReport
from llmcreativity.writing.story_record import StoryRecord
from llmcreativity.writing.transcript import Message
from locations import TEST_DATA

BEFORE = TEST_DATA / "json_records" / "before.jsonl"
CLASSES = {c.__name__: c for c in (StoryRecord, Message, RubricScore, Chain, Judgement, Claim, JudgeValidity,
                                   StageReport)}
WRITERS = {"append": lambda row: json.dumps(row, ensure_ascii=False),  # jsonl.append_jsonl
           "rewrite": lambda row: json.dumps(row, sort_keys=True)}  # jsonl.rewrite_jsonl
CASES = [json.loads(line) for line in BEFORE.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['record']}-{k}" for k, c in enumerate(CASES)])
def test_every_record_class_writes_what_it_wrote_before(case):
    cls = CLASSES[case["record"]]
    record = from_json(cls, case.get("read", json.loads(case["written"])))
    assert isinstance(record, cls)
    assert WRITERS[case["writer"]](to_json(record)) == case["written"]


def test_the_fixture_covers_every_record_class_and_a_row_of_an_older_form():
    assert {c["record"] for c in CASES} == set(CLASSES)
    legacy = [c for c in CASES if "read" in c]
    assert [c["record"] for c in legacy] == ["Chain"] and all("ended" not in s for s in legacy[0]["read"]["steps"])


@dataclass(frozen=True)
class Point:
    x: float
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Shape:
    name: str
    corners: list[Point]
    centre: Point | None = None
    labels: dict[str, Point] = field(default_factory=dict)


@dataclass(frozen=True)
class Versioned:
    SCHEMA_VERSION = 2
    value: int
    unit: str

    @classmethod
    def upgrade_row(cls, row: dict, schema: int) -> dict:
        return {"unit": "m", **row} if schema < 2 else row


def test_nested_records_round_trip_through_json():
    shape = Shape("tri", [Point(0.0, ("a",)), Point(1.0)], Point(0.5), {"top": Point(2.0)})
    row = json.loads(json.dumps(to_json(shape)))
    assert row == {"name": "tri", "corners": [{"x": 0.0, "tags": ["a"]}, {"x": 1.0, "tags": []}],
                   "centre": {"x": 0.5, "tags": []}, "labels": {"top": {"x": 2.0, "tags": []}}}
    assert from_json(Shape, row) == shape
    assert from_json(Shape, {"name": "none", "corners": []}).centre is None


def test_unknown_or_missing_keys_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"unknown keys \['y'\] / lacks \[\]"):
        from_json(Point, {"x": 1.0, "y": 2.0})
    with pytest.raises(ValueError, match=r"lacks \['x'\]"):
        from_json(Point, {"tags": []})


def test_version_1_is_implied_written_from_2_on_and_upgraded_on_reading():
    assert SCHEMA_KEY not in to_json(Point(1.0))
    assert to_json(Versioned(3, "m")) == {"schema": 2, "value": 3, "unit": "m"}
    assert from_json(Versioned, {"value": 3}) == Versioned(3, "m")  # no "schema": version 1, upgraded
    assert from_json(Versioned, {"schema": 2, "value": 3, "unit": "km"}) == Versioned(3, "km")
    with pytest.raises(ValueError, match="schema 3: this code reads schemas up to 2"):
        from_json(Versioned, {"schema": 3, "value": 3, "unit": "m"})


def test_upsert_replaces_records_by_key_and_keeps_the_others_in_order(tmp_path):
    path = tmp_path / "ledger.jsonl"
    upsert(path, [Point(1.0, ("a",)), Point(2.0)], key=lambda p: p.x, what="point")
    upsert(path, [Point(1.0, ("b",)), Point(3.0)], key=lambda p: p.x, what="point")
    assert read_records(path, Point, "point") == [Point(2.0), Point(1.0, ("b",)), Point(3.0)]
    assert path.read_text().splitlines()[0] == '{"tags": [], "x": 2.0}'  # sorted keys, as every ledger
    path.write_text('{"x": 1.0, "z": 0}\n')
    with pytest.raises(ValueError, match="line 1 is not a point record"):
        upsert(path, [Point(2.0)], key=lambda p: p.x, what="point")


def test_upsert_waits_for_the_ledgers_lock_so_two_writers_keep_each_others_records(tmp_path):
    path, wrote = tmp_path / "ledger.jsonl", threading.Event()
    with locked(path):  # another writer (a stage side by side) in the middle of its read-modify-write
        writer = threading.Thread(target=lambda: (upsert(path, [Point(1.0)], key=lambda p: p.x, what="point"),
                                                  wrote.set()))
        writer.start()
        time.sleep(0.3)
        assert not wrote.is_set()
        theirs = [Point(2.0)]
        path.write_text("".join(json.dumps(to_json(r), sort_keys=True) + "\n" for r in theirs))
    writer.join(10)
    assert wrote.is_set() and read_records(path, Point, "point") == [Point(2.0), Point(1.0)]
