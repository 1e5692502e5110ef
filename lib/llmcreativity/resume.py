"""Resumable runs: compute only the jobs whose records are not yet in a JSONL file, appending each as it finishes.

With D = done(rows already in the file), the run computes every job j with key(j) not in D (each key once,
in job order) and appends compute(j) in one write as soon as j finishes. A run killed at any point
therefore resumes without loss (finished jobs are in the file) or duplication (they are skipped); a job
killed mid-write leaves a torn last line that `read_jsonl` ignores, so that job is computed again.

With `workers` > 1 (items sent to an endpoint, `llm.concurrency.item_workers`) up to that many jobs are
computed at once in threads, but their records are still appended by one thread in job order: the rows
of job j are written once j and every job before it have finished. The file is therefore the same as a
one-at-a-time run's, whatever order the jobs finish in; a kill loses only jobs not yet written, which the
next run computes again (their model calls come back from the call cache).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from tqdm.auto import tqdm

from .jsonl import append_jsonl, read_jsonl

Job = TypeVar("Job")
Row = dict[str, Any]


def run_resumable(path: str | Path, jobs: Sequence[Job], *, key: Callable[[Job], Hashable],
                  done: Callable[[list[Row]], set[Hashable]], compute: Callable[[Job], list[Row]],
                  desc: str = "", progress: bool = True, workers: int = 1) -> list[Job]:
    """Append compute(j) to the JSONL `path` for every job j whose key(j) is not in done(stored rows).

    `done` reads the rows already stored and returns the keys of finished jobs (it may raise when the
    stored rows belong to another setup). Jobs sharing a key are computed once. `workers`: how many
    jobs are computed at once (threads; the rows are still appended in job order). Returns the jobs
    computed by this call, in order.
    """
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r}: must be an integer >= 1")
    finished = done(read_jsonl(path))
    todo: list[Job] = []
    queued: set[Hashable] = set()
    for job in jobs:
        k = key(job)
        if k not in finished and k not in queued:
            queued.add(k)
            todo.append(job)
    with tqdm(total=len(todo), desc=desc, disable=not progress or not todo) as bar:
        if workers == 1 or len(todo) < 2:
            for job in todo:
                append_jsonl(path, compute(job))
                bar.update()
        else:
            _append_in_order(path, todo, compute, workers, bar.update)
    return todo


def _append_in_order(path: str | Path, todo: list[Job], compute: Callable[[Job], list[Row]], workers: int,
                     written: Callable[[], object]) -> None:
    """compute(j) for every job in `workers` threads; the rows are appended in job order by this thread.

    When a job fails (or the caller is interrupted) the jobs not yet started are cancelled and the
    exception propagates at once; jobs still running finish in the background and their rows are dropped.
    """
    pool = ThreadPoolExecutor(max_workers=min(workers, len(todo)), thread_name_prefix="resumable")
    try:
        futures = [pool.submit(compute, job) for job in todo]
        for future in futures:
            append_jsonl(path, future.result())
            written()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def unique_keys(keys: Sequence[Hashable], what: str) -> None:
    """Raise a ValueError naming the repeated values when `keys` (the ids of a run's inputs) repeat."""
    repeated = sorted(str(k) for k, count in Counter(keys).items() if count > 1)
    if repeated:
        raise ValueError(f"items have duplicate {what} values {repeated}: give every item its own {what}")
