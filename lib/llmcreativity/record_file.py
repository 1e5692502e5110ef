"""A run record's index file, `record.json`: its format, its version, its typed form and the one reader that checks
them.

The record folder and how it is written and imported are `pipeline.record_export`'s, how a run is compared with it
`pipeline.record_compare`'s; what is here is what any layer may read from a record without the pipeline: the judge
laboratory reads the published run's judge-validity rows from it (`judgelab.score.confirmed_judge`), the book its
claims. It imports nothing of the project but `dataclass_json`, which stores the typed form.

The file is `Record`: per stage a `RecordedStage` (with the `Sitting`s that built it), the listed files' `StoredFile`
facts and the recording machine (`Machine`). `write_record` writes it as the JSON it always was (sorted keys, one
space of indent), so a record read and written again is the same bytes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .dataclass_json import from_json, to_json

FORMAT = "llmcreativity-record"
"""The `format` field of every record.json."""
VERSION = 1
"""The record layout's version; a record of another version is refused with the fix."""
RECORD_FILE = "record.json"
"""The index file of a record folder."""

CallCounts = dict[str, dict[str, int]]
"""Distinct calls per role and method: {role: {method: n}} (`pipeline.record_export.calls_by_role`)."""


def calls_total(calls: CallCounts) -> int:
    """Distinct calls over every role and method of `calls`."""
    return sum(n for by_method in calls.values() for n in by_method.values())

JsonObject = dict[str, Any]
"""A JSON object kept as it was written, not a record of this project: a stage's parameter values (name -> value, as
its notebook declares them), a claims or judge-validity row compared byte for byte, a model's usage row."""


class RecordError(ValueError):
    """A record that cannot be used: the message names the file or stage and the fix."""


@dataclass(frozen=True)
class Sitting:
    """One sitting that recorded (part of) a stage: the run that made it and the calls it added."""

    run_id: str
    """The run id of the sitting's stage run."""
    commit: str
    """The code commit it ran at."""
    seconds: float | None
    """Its wall time (None when its manifest had none)."""
    exported: str
    """When it was exported (local time, ISO 8601 to the second)."""
    calls: CallCounts
    """The calls it added to the record, per role and method."""


@dataclass(frozen=True)
class RecordedStage:
    """A stage's entry in `record.json`: how it ran, what it asked and wrote, and the files that hold its calls."""

    run_id: str
    """The run id of its last sitting (a replay runs under it)."""
    profile: str
    """The profile it ran under."""
    notebook: str
    """Its notebook, relative to the repository root."""
    source_sha256: str
    """SHA-256 of the notebook's source when it ran."""
    commit: str
    """The code commit of its last sitting."""
    parameters: JsonObject
    """The parameters its run was given (`-p` and the profile's), as run."""
    parameters_sha256: str
    """The hash of `parameters` (`provenance.parameters_hash`)."""
    resolved_parameters: JsonObject
    """Every parameter its notebook declares, with the value it ran with."""
    resolved_sha256: str
    """The hash of `resolved_parameters`."""
    seconds: float | None
    """The last sitting's wall time."""
    usage: list[JsonObject]
    """Its models' usage rows (`llm.usage_file.ModelUsage` as JSON)."""
    items: int | None
    """How many items it made (None when they could not be counted)."""
    items_unit: str
    """What an item is."""
    outputs: dict[str, str]
    """Output file (relative to the results folder) -> SHA-256 of its bytes."""
    output_digests: dict[str, str]
    """Output file -> SHA-256 of its content without wall-clock fields (`record_compare.output_digest`)."""
    calls: CallCounts
    """The distinct calls it asked for, per role and method."""
    keys_file: str
    """The file (relative to the record folder) listing every call it asked for."""
    shards: tuple[str, ...]
    """The files holding the answers it first stored."""
    exported: str
    """When it was last exported."""
    claims: tuple[JsonObject, ...] = ()
    """The claims records it wrote (`pipeline.claim_records`)."""
    judge_validity: tuple[JsonObject, ...] = ()
    """The judge-validity records it wrote (`claims.judge_validity`)."""
    sittings: tuple[Sitting, ...] | None = None
    """The sittings that built it, oldest first; None in an entry exported before sittings were kept (its file then
    has no `sittings` key, and `write_record` writes none)."""

    def all_sittings(self) -> tuple[Sitting, ...]:
        """The sittings that built it, oldest first; an entry exported before sittings were kept: its one run."""
        return self.sittings or (Sitting(self.run_id, self.commit, self.seconds, self.exported, self.calls),)

    def computing_seconds(self) -> float:
        """Its computing time: the wall times of all the sittings that built it, summed (a sitting's calls that the
        call cache answered count only the time they then took)."""
        return sum(float(s.seconds or 0.0) for s in self.all_sittings())

    def call_count(self) -> int:
        """Distinct calls it asked for, over its roles and methods."""
        return calls_total(self.calls)


@dataclass(frozen=True)
class StoredFile:
    """A file of the record folder as `record.json` lists it."""

    sha256: str
    """SHA-256 of its bytes."""
    bytes: int
    """Its size."""


@dataclass(frozen=True)
class Machine:
    """The machine a record was exported on: the facts that change arithmetic."""

    model: str
    """The processor's model name."""
    machine: str
    """The architecture (`platform.machine()`)."""
    cores: int | None
    """Its logical cores."""
    flags: tuple[str, ...]
    """Its AVX, AMX, FMA and F16C flags."""


@dataclass(frozen=True)
class Record:
    """A record folder's `record.json`."""

    format: str
    """Always `FORMAT`."""
    version: int
    """Always `VERSION` for a record this code reads."""
    profile: str
    """The profile every stage of it ran under."""
    stages: dict[str, RecordedStage] = field(default_factory=dict)
    """Stage name -> its entry, in the order they were first exported."""
    commit: str = ""
    """The code commit of the last export."""
    cpu: Machine | None = None
    """The machine of the last export."""
    updated: str = ""
    """When it was last exported."""
    files: dict[str, StoredFile] = field(default_factory=dict)
    """Every file of the folder but `record.json` -> its facts."""
    bytes: int = 0
    """The listed files' size, summed."""

    @classmethod
    def new(cls, profile: str) -> Record:
        """An empty record of `profile`, before its first export."""
        return cls(FORMAT, VERSION, profile)


def _read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        folder = path.parent
        raise RecordError(f"{path}: no record here (no {RECORD_FILE}); export one with `llmcreativity record export "
                          f"{folder}` or give the folder that holds {RECORD_FILE}")
    try:
        raw: dict[str, Any] = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not valid JSON ({e}): the file is truncated or corrupted; restore it from git "
                          "(`git checkout -- <path>`) or export the record again") from e
    return raw


def read_record(folder: str | Path) -> Record:
    """The record.json of a record folder, checked for format and version."""
    path = Path(folder) / RECORD_FILE
    raw = _read_json(path)
    if raw.get("format") != FORMAT:
        raise RecordError(f"{path}: not an llmcreativity record (format {raw.get('format')!r})")
    if raw.get("version") != VERSION:
        raise RecordError(f"{path}: record version {raw.get('version')!r}, this code reads version {VERSION}: "
                          "replay it with the code that wrote it, or export the run again")
    try:
        return from_json(Record, raw)
    except (TypeError, ValueError) as e:
        raise RecordError(f"{path}: not a record this code reads ({e}): replay it with the code that wrote it, or "
                          "export the run again") from e


def write_record(folder: str | Path, record: Record) -> None:
    """Write `record` as the folder's record.json, beside the target and renamed into place."""
    folder = Path(folder)
    tmp = folder / f".{RECORD_FILE}.tmp"
    stored = to_json(record)
    for entry in stored["stages"].values():
        if entry["sittings"] is None:
            del entry["sittings"]
    tmp.write_text(json.dumps(stored, indent=1, sort_keys=True, ensure_ascii=False))
    os.replace(tmp, folder / RECORD_FILE)
