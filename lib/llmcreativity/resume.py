"""Resumable runs: compute only the jobs whose records are not yet in a JSONL file, appending each as it finishes.

With D = done(rows already in the file), the run computes every job j with key(j) not in D (each key once,
in job order) and appends compute(j) in one write as soon as j finishes. A run killed at any point
therefore resumes without loss (finished jobs are in the file) or duplication (they are skipped); a job
killed mid-write leaves a torn last line that `read_jsonl` ignores, so that job is computed again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tqdm.auto import tqdm

from .jsonl import append_jsonl, read_jsonl

Job = TypeVar("Job")
Row = dict[str, Any]


def run_resumable(path: str | Path, jobs: Sequence[Job], *, key: Callable[[Job], Hashable],
                  done: Callable[[list[Row]], set[Hashable]], compute: Callable[[Job], list[Row]],
                  desc: str = "", progress: bool = True) -> list[Job]:
    """Append compute(j) to the JSONL `path` for every job j whose key(j) is not in done(stored rows).

    `done` reads the rows already stored and returns the keys of finished jobs (it may raise when the
    stored rows belong to another setup). Jobs sharing a key are computed once. Returns the jobs
    computed by this call, in order.
    """
    finished = done(read_jsonl(path))
    todo: list[Job] = []
    queued: set[Hashable] = set()
    for job in jobs:
        k = key(job)
        if k not in finished and k not in queued:
            queued.add(k)
            todo.append(job)
    for job in tqdm(todo, desc=desc, disable=not progress or not todo):
        append_jsonl(path, compute(job))
    return todo


def unique_keys(keys: Sequence[Hashable], what: str) -> None:
    """Raise a ValueError naming the repeated values when `keys` (the ids of a run's inputs) repeat."""
    repeated = sorted(str(k) for k, count in Counter(keys).items() if count > 1)
    if repeated:
        raise ValueError(f"items have duplicate {what} values {repeated}: give every item its own {what}")
