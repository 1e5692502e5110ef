"""The run manifest `results_dir(profile)/executed/run.json`: one `ManifestEntry` per stage, updated under a file lock.

Each entry holds the stage's status (`running`, `ok`, `failed`), profile, parameters, the SHA-256 of its notebook
source, its time, the output files it wrote with their hashes, and what it did: its models' usage per identity
(`usage`, from its kernel's usage file) and its items (`items`, `items_unit`; see `run_report`); a stage run against
a record also says which (`against_record`, and `replay` for a replay) and how many of its calls the record held
(`record_calls`), a replay its spot check (`spot_check`). The executed notebooks lie beside it,
`executed/<stage>.ipynb`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..dataclass_json import from_json, to_json
from ..jsonl import locked
from ..llm.spot_check import SpotSummary
from ..paths import results_dir
from ..record_file import CallCounts, JsonObject, calls_total
from .stages import Stage

MANIFEST_FILE = "run.json"
"""The manifest's file name, in a results folder's `executed/`."""

Status = Literal["running", "ok", "failed"]
"""A stage run's state: started and not ended (or killed), ended well, ended with an error."""


@dataclass(frozen=True)
class AgainstRecord:
    """A stage run against a record: which record, how, by which run, and the parameters that differ from it."""

    record: str
    """The record folder."""
    mode: Literal["replay", "live"]
    """A replay (every call from the record) or a live run against it (the calls it lacks computed)."""
    run: str
    """The run id of the run against the record."""
    analysis_changed: dict[str, list[Any]] = field(default_factory=dict)
    """Analysis parameter -> [recorded value, value now], for those that differ."""
    generating_changed: dict[str, list[Any]] = field(default_factory=dict)
    """Generating parameter -> [recorded value, value now], for those that differ (a live run only)."""


@dataclass(frozen=True)
class ReplayMark:
    """A replay: the record it rebuilt the stage from and the replay's own run id (its entry runs under the
    recorded one)."""

    record: str
    """The record folder."""
    replay_id: str
    """The replay's run id."""


@dataclass(frozen=True)
class RecordCalls:
    """How many of the distinct calls a stage asked the record it ran against holds."""

    from_record: int
    """Calls the record answered."""
    new: int
    """Calls it does not hold (computed, or answered by the run's own cache from an earlier sitting)."""
    new_calls: CallCounts
    """The new ones per role and method."""


@dataclass(frozen=True)
class ManifestEntry:
    """One stage's latest run under a profile."""

    status: Status
    """Where the run stands."""
    profile: str = ""
    """The profile it ran under."""
    notebook: str = ""
    """Its notebook, relative to the repository root."""
    parameters: JsonObject = field(default_factory=dict)
    """The parameters it was given (the profile's and `-p`'s)."""
    source_sha256: str = ""
    """SHA-256 of the notebook's source when it ran."""
    run_id: str = ""
    """The run it belongs to (a replay: the recorded run's id)."""
    parameters_sha256: str = ""
    """The hash of `parameters` (`provenance.parameters_hash`)."""
    started: str = ""
    """When it started (local time, ISO 8601 to the second)."""
    run_settings: dict[str, str] = field(default_factory=dict)
    """The run-wide settings it ran with (dtype, device)."""
    endpoint_settings: dict[str, Any] = field(default_factory=dict)
    """The endpoint settings it ran with (operational: never a parameter)."""
    commit: str = ""
    """The code commit it ran at."""
    against_record: AgainstRecord | None = None
    """The record it ran against, if any."""
    replay: ReplayMark | None = None
    """Set for a replay."""
    seconds: float | None = None
    """Its wall time, once it ended."""
    error: str = ""
    """The error it failed with."""
    outputs: dict[str, str] = field(default_factory=dict)
    """Output file (relative to the results folder) -> SHA-256, for the files it wrote or changed."""
    usage: list[JsonObject] = field(default_factory=list)
    """Its models' usage rows (`llm.usage_file.ModelUsage` as JSON)."""
    usage_error: str = ""
    """Why its usage file could not be read (the entry then counts no usage)."""
    calls: CallCounts = field(default_factory=dict)
    """The distinct calls it asked for, per role and method."""
    calls_error: str = ""
    """Why its call log could not be read."""
    record_calls: RecordCalls | None = None
    """Against a record: how many of its calls the record held."""
    spot_check: SpotSummary | None = None
    """A replay's spot check."""
    record_differences: tuple[str, ...] | None = None
    """A replay's outputs and claims that differ from its record's (`record_compare.replay_differences`): empty when
    it rebuilt the record exactly; None outside a replay, or when they could not be compared."""
    items: int | None = None
    """How many items it made (None when they could not be counted)."""
    items_unit: str = ""
    """What an item is."""
    items_error: str = ""
    """Why its items could not be counted."""

    def call_count(self) -> int:
        """Distinct calls it asked for, over its roles and methods."""
        return calls_total(self.calls)

    def made_against(self) -> str | None:
        """The record folder it ran against (a replay's, or a live run's), None for a plain run."""
        mark = self.against_record or self.replay
        return mark.record if mark is not None else None


@dataclass(frozen=True)
class Manifest:
    """A results folder's `executed/run.json`."""

    stages: dict[str, ManifestEntry] = field(default_factory=dict)
    """Stage name -> its latest run."""


def executed_dir(profile: str = "default") -> Path:
    """Where the executed notebooks and the run manifest of `profile` live."""
    return results_dir(profile) / "executed"


def executed_notebook(stage: Stage, profile: str = "default") -> Path:
    """Path of a stage's executed notebook under `profile`."""
    return executed_dir(profile) / f"{stage.name}.ipynb"


def manifest_path(profile: str = "default") -> Path:
    """The run manifest of `profile`."""
    return executed_dir(profile) / MANIFEST_FILE


def read_manifest_file(path: Path) -> Manifest:
    """The manifest in the file `path` (any results folder's `executed/run.json`), or an empty one when there is
    none."""
    return from_json(Manifest, json.loads(path.read_text())) if path.exists() else Manifest()


def read_manifest(profile: str = "default") -> Manifest:
    """The run manifest of `profile`, or an empty one when nothing has run."""
    return read_manifest_file(manifest_path(profile))


def update_manifest(stage: str, entry: ManifestEntry, profile: str = "default") -> None:
    """Set one stage's entry, re-reading the manifest under a file lock so concurrent runs keep each other's entries."""
    path = manifest_path(profile)
    with locked(path):
        manifest = read_manifest(profile)
        stored = to_json(Manifest({**manifest.stages, stage: entry}))
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(stored, indent=1, sort_keys=True, default=str))
        os.replace(tmp, path)
