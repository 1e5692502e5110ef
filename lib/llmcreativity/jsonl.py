"""Append-only JSONL files: how every long run stores its records so a killed run resumes without loss or duplication.

A record is appended only once it is complete, in one write that is flushed and fsynced. A run killed
mid-write leaves a last line without its newline; readers ignore it and the next append cuts it off,
so that record is simply computed again. Small ledgers whose records are replaced by key (claims, judge
validity) are rewritten whole and atomically instead (`upsert`). Records are stored in their JSON form
(`dataclass_json.to_json`) and read back with `dataclass_json.from_json`.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from .dataclass_json import from_json, to_json

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
    if p.exists() and (size := p.stat().st_size):
        with p.open("r+b") as f:
            f.seek(size - 1)
            if f.read(1) != b"\n":  # a torn last line: read back only when there is one
                f.seek(0)
                f.truncate(f.read().rfind(b"\n") + 1)
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
    tmp = p.with_name(f".{p.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # a writer's own, in any thread
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


def record_interval(what: str, names: tuple[str, str, str], estimate: Any, low: Any, high: Any,
                    n: Any) -> tuple[float | None, float | None, float | None, int]:
    """An estimate, its interval and its sample size as a record stores them: each number by `record_number` (NaN
    as None), the interval in order, n a non-negative int. A bad value raises ValueError naming `what` (e.g. "claim
    A1") and the value's name in `names` (e.g. ("statistic", "ci_low", "ci_high"))."""
    est, lo, hi = (record_number(x, f"{what}: {name}") for x, name in zip((estimate, low, high), names, strict=True))
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"{what}: {names[1]}={lo} exceeds {names[2]}={hi}; pass the interval in order")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{what}: n={n!r} must be a non-negative int (the sample size)")
    return est, lo, hi, n


def read_records(path: str | Path, record_type: type[T], what: str) -> list[T]:
    """The records of a small ledger written by `rewrite_jsonl`, one `from_json(record_type, row)` per line, in file
    order. Missing file -> []; a malformed line raises ValueError naming the file, the line and `what` it should be."""
    p = Path(path)
    if not p.exists():
        return []
    out = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(from_json(record_type, json.loads(line)))
            except (json.JSONDecodeError, TypeError, ValueError) as e:
                raise ValueError(f"{p} line {i} is not a {what} record ({e}); delete the line and re-run its "
                                 "stage") from e
    return out


def upsert(path: str | Path, records: Sequence[T], key: Callable[[T], Hashable], what: str) -> None:
    """Record `records` in the small ledger at `path`, replacing the stored ones that share a key with them.

    The stored records whose `key` is not among `records`' keys stay, in their order, and `records` follow in theirs;
    the file is rewritten atomically (`rewrite_jsonl`), so recording a record twice keeps one line. `what` names a
    record in the error on a malformed stored line (`read_records`). No records: nothing is written.
    """
    if not records:
        return
    new = {key(r) for r in records}
    with locked(path):
        kept = [r for r in read_records(path, type(records[0]), what) if key(r) not in new] + list(records)
        rewrite_jsonl(path, [to_json(r) for r in kept])


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold the exclusive lock of the file at `path` (`flock` on `.<name>.lock` beside it) until the block ends, so
    that two writers' read-modify-writes of one file (two stages run side by side, in one process or two) follow each
    other."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p.with_name(f".{p.name}{LOCK_SUFFIX}"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


LOCK_SUFFIX = ".lock"
"""The ending of a lock file `locked` leaves beside its file (named `.<name>.lock`): bookkeeping, never an output."""


def is_lock_file(path: Path) -> bool:
    """Whether `path` is a lock file `locked` left."""
    return path.name.startswith(".") and path.name.endswith(LOCK_SUFFIX)


def write_json(path: str | Path, value: Any) -> Path:
    """`value` as one indented JSON document at `path`, keys sorted, NaN as null (parent folders created)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=1, sort_keys=True, default=float, allow_nan=True).replace("NaN", "null")
    p.write_text(text + "\n", encoding="utf-8")
    return p
