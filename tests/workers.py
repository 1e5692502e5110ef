"""How `make test` shares the machine between pytest-xdist's workers: each worker's compute threads sized to its
share of the CPUs, and the slow tests in groups that keep a shared fixture on one worker, the longest groups first.

Why sized: llama.cpp's and OpenMP's threads spin at their barriers, so two processes that each start a thread per
core slow each other many times over (the sample-independence module measured 56 s alone against 19 minutes beside
a busy process). A worker sets $OMP_NUM_THREADS to its share before anything starts a thread pool (`tests/conftest.py`
calls `share_this_worker` first); torch reads it, and so does llama.cpp's default (`llamacpp_local.compute_threads`),
in the worker and in every kernel, server and subprocess its tests start. OpenBLAS would read it too, but a stage
kernel keeps two OpenBLAS threads (`execution.PORTABLE_ARITHMETIC_ENV`), since their number moves a record's outputs.
(Pinning each worker to its CPUs would be simpler, but OpenBLAS never starts more threads than a process may use
CPUs, so a pinned kernel rebuilt the records' outputs differently.)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from xdist.scheduler import LoadScopeScheduling

SERVED_RUN = "tests/notebooks/test_endpoint_e2e.py"
"""The served end-to-end run: the longest group."""
SMOKE_REPLAY = "smoke replay"
"""The group of the modules that read the smoke record's replay (the session fixture `smoke_replay`), so that the
replay runs on one worker only."""
SMOKE_READERS = frozenset({"tests/book/test_exercises.py", "tests/book/test_method_code.py",
                           "tests/book/test_page_check.py", "tests/notebooks/test_smoke_replay_guard.py"})
"""Those modules. The scheduler sees test ids only, so they are named here; `tests/conftest.py` stops a collection
in which another module reads the replay (`unlisted_readers`)."""
FIRST = (SERVED_RUN, SMOKE_REPLAY, "tests/llm/test_llm_sample_independence.py")
"""Groups started before the others, longest first, so that neither worker is left with a long group at the end."""


def worker_cpus(worker: str, count: int, cpus: Sequence[int]) -> list[int]:
    """The CPUs of xdist worker `worker` ("gw0", "gw1", ...) among `count` workers: every `count`-th of `cpus`, from
    the worker's index; all of `cpus` outside xdist, with one worker, or with fewer CPUs than workers (where sharing
    cannot be avoided).

    >>> worker_cpus("gw1", 2, [0, 1, 2, 3]), worker_cpus("", 1, [0, 1]), worker_cpus("gw0", 4, [0, 1])
    ([1, 3], [0, 1], [0, 1])
    """
    ordered = sorted(cpus)
    if not worker or count < 2 or len(ordered) < count:
        return ordered
    return ordered[int(worker.removeprefix("gw")) % count::count]


def share_this_worker() -> int:
    """Set $OMP_NUM_THREADS (unless set) to this xdist worker's share of the CPUs (`worker_cpus`; all of them outside
    xdist, where nothing is set); return the count."""
    cpus = worker_cpus(os.environ.get("PYTEST_XDIST_WORKER", ""),
                       int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), sorted(os.sched_getaffinity(0)))
    if len(cpus) < len(os.sched_getaffinity(0)):
        os.environ.setdefault("OMP_NUM_THREADS", str(len(cpus)))
    return len(cpus)


def group_of(module: str) -> str:
    """The group of a test in `module` (its path as pytest names it): `SMOKE_REPLAY` for a module of `SMOKE_READERS`,
    else the module itself, so that a module's fixtures are made once."""
    return SMOKE_REPLAY if module in SMOKE_READERS else module


def rank(group: str) -> int:
    """Where `group` is started: `FIRST`'s order, then every other group in collection order."""
    return FIRST.index(group) if group in FIRST else len(FIRST)


def unlisted_readers(readers: set[str]) -> list[str]:
    """The modules among `readers` (those with a test that reads the smoke replay) missing from `SMOKE_READERS`."""
    return sorted(readers - SMOKE_READERS)


class ModuleGroups(LoadScopeScheduling):
    """xdist's scope scheduling with `group_of` as the scope: each group's tests go to one worker, the groups handed
    out in collection order (`--no-loadscope-reorder`) as workers come free. (xdist's own `--dist loadgroup` reads
    `xdist_group` marks through a test id that pytest 9 no longer rewrites, so it groups nothing here.)"""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid.split("::")[0])
