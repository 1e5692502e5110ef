"""Append-only JSONL files: how every long run stores its records so a killed run resumes without loss or duplication.

A record is appended only once it is complete, in one write that is flushed and fsynced. A run killed
mid-write leaves a last line without its newline; readers ignore it and the next append cuts it off,
so that record is simply computed again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


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
