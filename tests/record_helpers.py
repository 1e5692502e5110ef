"""Typed records for tests: a recorded stage or a record with only the fields a test sets."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from llmcreativity.record_file import Machine, Record, RecordedStage


def recorded_stage(**given: Any) -> RecordedStage:
    """A record's stage entry with the `given` fields, every other one empty."""
    empty: dict[str, Any] = dict(
        run_id="", profile="default", notebook="", source_sha256="", commit="", parameters={}, parameters_sha256="",
        resolved_parameters={}, resolved_sha256="", seconds=None, usage=[], items=None, items_unit="", outputs={},
        output_digests={}, calls={}, keys_file="", shards=(), exported="")
    return RecordedStage(**(empty | given))


def record_of(profile: str = "default", cpu: Machine | None = None, **stages: RecordedStage) -> Record:
    """A record of `profile` holding `stages`."""
    return replace(Record.new(profile), stages=stages, cpu=cpu)
