"""Append-only JSONL files: how every long run stores its records so a killed run resumes without loss or duplication.

A record is appended only once it is complete, in one write that is flushed and fsynced. A run killed
mid-write leaves a last line without its newline; readers ignore it and the next append cuts it off,
so that record is simply computed again.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file; a torn last line (a run killed mid-write) is ignored. Missing file -> [].

    Any other line that is not valid JSON raises ValueError naming the file and line.
    """
    p = Path(path)
    if not p.exists():
        return []
    lines = p.read_text(encoding="utf-8").split("\n")
    rows = []
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            if k == len(lines) - 1:  # the unterminated tail of an interrupted write
                continue
            raise ValueError(f"{p}, line {k + 1}: not valid JSON ({e}); "
                             "the file is corrupt, delete it to start over") from e
    return rows


def append_jsonl(path: str | Path, rows: list[dict[str, Any]]) -> None:
    """Append `rows` in one write, first cutting off any torn last line; flushed and fsynced."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.exists() and p.stat().st_size:
        data = p.read_bytes()
        if not data.endswith(b"\n"):
            with p.open("r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)
    blob = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    with p.open("a", encoding="utf-8") as f:
        f.write(blob)
        f.flush()
        os.fsync(f.fileno())


def rewrite_jsonl(path: str | Path, rows: list[dict[str, Any]]) -> None:
    """Replace the whole file with `rows` atomically (write a temporary file beside it, then rename): a run killed
    mid-write leaves the old file or the new one, never a mix. For small ledgers whose records are replaced by key."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    os.replace(tmp, p)


def record_number(value: Any, what: str) -> float | None:
    """`value` as a float for a JSON record: None for None or NaN (JSON has no NaN); a value that is not a number
    raises ValueError naming `what` (e.g. "claim A1: statistic")."""
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what}={value!r} is not a number; pass a float or None") from None
    return None if math.isnan(x) else x


def read_records(path: str | Path, record_type: Callable[..., T], what: str) -> list[T]:
    """The records of a small ledger written by `rewrite_jsonl`, one `record_type(**row)` per line, in file order.
    Missing file -> []; a malformed line raises ValueError naming the file, the line and `what` it should be."""
    p = Path(path)
    if not p.exists():
        return []
    out = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(record_type(**json.loads(line)))
            except (json.JSONDecodeError, TypeError) as e:
                raise ValueError(f"{p} line {i} is not a {what} record ({e}); delete the line and re-run its "
                                 "stage") from e
    return out
