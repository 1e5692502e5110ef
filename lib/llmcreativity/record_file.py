"""A run record's index file, `record.json`: its format, its version, and the one reader that checks both.

The record folder and how it is written, imported and compared are `pipeline.record`'s; what is here is what any
layer may read from a record without the pipeline: the judge laboratory reads the published run's judge-validity
rows from it (`judgelab.score.confirmed_judge`), the book its claims. It imports nothing of the project.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMAT = "llmcreativity-record"
"""The `format` field of every record.json."""
VERSION = 1
"""The record layout's version; a record of another version is refused with the fix."""
RECORD_FILE = "record.json"
"""The index file of a record folder."""


class RecordError(ValueError):
    """A record that cannot be used: the message names the file or stage and the fix."""


def read_record(folder: str | Path) -> dict[str, Any]:
    """The record.json of a record folder, checked for format and version."""
    path = Path(folder) / RECORD_FILE
    if not path.exists():
        raise RecordError(f"{path}: no record here (no {RECORD_FILE}); export one with `llmcreativity record export "
                          f"{folder}` or give the folder that holds {RECORD_FILE}")
    try:
        record: dict[str, Any] = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not valid JSON ({e}): the file is truncated or corrupted; restore it from git "
                          "(`git checkout -- <path>`) or export the record again") from e
    if record.get("format") != FORMAT:
        raise RecordError(f"{path}: not an llmcreativity record (format {record.get('format')!r})")
    if record.get("version") != VERSION:
        raise RecordError(f"{path}: record version {record.get('version')!r}, this code reads version {VERSION}: "
                          "replay it with the code that wrote it, or export the run again")
    return record
