"""Append-only JSONL records keyed by id, so long runs resume without loss or duplication."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield each complete JSON line of `path` (none if the file does not exist).

    A last line cut short by a killed run is skipped, so it is recomputed on the next run.
    """
    p = Path(path)
    if not p.exists():
        return
    with p.open(encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            yield json.loads(line)


def done_ids(path: str | Path) -> set[str]:
    """Ids of the records already in `path`."""
    return {r["id"] for r in read_records(path)}


def append_record(path: str | Path, record: dict[str, Any]) -> None:
    """Append one record (which must carry an "id") as a JSON line, flushed to disk."""
    if "id" not in record:
        raise ValueError("record has no 'id': every stored record needs one so reruns can skip it")
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    _drop_partial_tail(p)
    with p.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
        f.flush()


def _drop_partial_tail(p: Path) -> None:
    """Cut a final line that has no newline (left by a killed run) before appending after it."""
    if not p.exists() or p.stat().st_size == 0:
        return
    data = p.read_bytes()
    if not data.endswith(b"\n"):
        p.write_bytes(data[: data.rfind(b"\n") + 1])
