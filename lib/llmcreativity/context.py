"""The run's context as a process sees it: the only module that reads or writes the environment.

Two kinds of variable carry it, every name `LLMCREATIVITY_` followed by a field of `KernelContext` in capitals:

- **the user's** (`USER_VARIABLES`): where the public datasets are read (`LLMCREATIVITY_DATA`) and the papers'
  summaries (`LLMCREATIVITY_PAPERS`), where models and the call cache live (`LLMCREATIVITY_CACHE`) and where
  results are written (`LLMCREATIVITY_RESULTS`); they work in any
  process, a notebook opened by hand included, and `NO_LOCAL_LM` proves a run used its endpoints only;
- **the runner's**: `llmcreativity run` starts one papermill kernel per stage and writes that stage's context into
  the kernel's environment once (`kernel_environment`): its profile, stage, run id and parameter hash, the files
  where its calls, usage and spot checks go, a replay's cache-only switch and call cache, the run settings (dtype,
  device) and the endpoint settings (key variable, requests in flight).

`kernel_context()` is the one reader: every module asks it, never `os.environ`. The values stay as the runner wrote
them (strings, paths and flags); the modules that own a setting check it (`llm.device.run_dtype`,
`llm.endpoint_settings.run_max_concurrency`). This module imports nothing of the project, so any layer may use it.
An endpoint's key is read only where a request is sent (`endpoint_key`), and never stored in the context.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")

PREFIX = "LLMCREATIVITY_"
"""Every variable of the context is this prefix and its field's name in capitals."""

INTERACTIVE_RUN = "interactive"
"""Run id of a kernel the runner did not start (a notebook opened by hand): never the latest run of a stage."""

_FLAG_OFF = ("", "0")
"""A flag's values that mean "off" (unset included)."""


@dataclass(frozen=True)
class KernelContext:
    """What a process knows of its run; None (a flag: False) where the variable is unset or empty."""

    data: Path | None = None
    """The public datasets' folder (`paths.data_dir`; default `../shared/data` beside the project). The user's."""
    papers: Path | None = None
    """The papers' summaries (`paths.papers_dir`; default `../shared/papers` beside the data folder), which the
    excerpt test reads. The user's."""
    cache: Path | None = None
    """Materialized models and the call cache (`paths.cache_dir`; default `~/.cache/llmcreativity`). The user's."""
    results: Path | None = None
    """The results folder of every profile (`paths.results_root`; default `results/`). The user's; the runner
    moves it for a replay (`results/replay/`) or a run against a record (`results/from-record/`)."""
    no_local_lm: bool = False
    """Any local language-model load raises (`llm.local_engine.refuse_local_lm`): proves a run used its endpoints
    only. The user's."""
    profile: str | None = None
    """The profile the stage runs under (`paths.current_profile`; "interactive" when unset)."""
    stage: str | None = None
    """The stage the kernel runs."""
    run_id: str | None = None
    """The run's id, shared by its stages (`pipeline.provenance.current_run`)."""
    params_sha256: str | None = None
    """The hash of the stage's parameters (`pipeline.provenance.parameters_hash`)."""
    usage_file: Path | None = None
    """Where the stage's cached models count calls, cache hits and tokens (`llm.usage_file`)."""
    call_log: Path | None = None
    """Where every model call the stage asks for is logged (`llm.call_log`)."""
    calls: Path | None = None
    """The call cache every model wrapper uses by default (`llm.call_log.calls_path`; a replay's imported record);
    unset: `cache_dir()/calls.sqlite`."""
    cache_only: bool = False
    """Every model wrapper answers from its cache only (a replay): a miss raises `CacheMiss`."""
    spot_check: Path | None = None
    """Where a replay's live spot checks are appended (`llm.spot_check`)."""
    spot_check_later: bool = False
    """A replay's drawn calls of local models are filed for the spot-check worker (`llm.spot_worker`), which computes
    them after the stage with each model loaded once, instead of computed in the stage's kernel."""
    record: Path | None = None
    """The record a replay answers from (a replay's stage only): a stage that would otherwise read the state of the
    working tree reads what the record holds instead (the judge laboratory's choice commits)."""
    registration: Path | None = None
    """The registration folder whose minimum samples the run's verdicts read (`claims.declarations.min_n`): the runner
    sets it for a recorded profile (`paths.registration_folder`); unset, a claim is decided at its declaration's."""
    dtype: str | None = None
    """The run's dtype, the default of `get_backend(dtype=)` (`-p dtype`; checked by `llm.device.run_dtype`)."""
    device: str | None = None
    """The run's device, the default of `get_backend(device=)` and `get_embedder(device=)` (`-p device`; checked
    by `llm.device.run_device`)."""
    api_key_env: str | None = None
    """The *name* of the variable holding the endpoints' key (`-p api_key_env`; checked by
    `llm.endpoint_settings`)."""
    max_concurrency: str | None = None
    """The most requests in flight to one endpoint (`-p max_concurrency`; checked by `llm.endpoint_settings`)."""

    def environment(self) -> dict[str, str]:
        """The variables that carry this context (a field left None is not written; a flag is "1" or "0")."""
        out: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool):
                out[variable(f.name)] = "1" if value else "0"
            elif value is not None:
                out[variable(f.name)] = str(value)
        return out


USER_VARIABLES = ("data", "papers", "cache", "results", "no_local_lm")
"""The fields a user sets (the others are the runner's, written for each stage kernel)."""

_PATHS = frozenset(f.name for f in fields(KernelContext) if f.type == "Path | None")
_FLAGS = frozenset(f.name for f in fields(KernelContext) if f.type == "bool")


def variable(name: str) -> str:
    """The environment variable of field `name`.

    >>> variable("results"), variable("spot_check")
    ('LLMCREATIVITY_RESULTS', 'LLMCREATIVITY_SPOT_CHECK')
    """
    if name not in {f.name for f in fields(KernelContext)}:
        raise ValueError(f"{name!r} is not a field of the kernel context: choose one of "
                         f"{[f.name for f in fields(KernelContext)]}")
    return PREFIX + name.upper()


def kernel_context() -> KernelContext:
    """This process's context, read from its environment now (so a changed variable is seen at once)."""
    values: dict[str, object] = {}
    for f in fields(KernelContext):
        raw = os.environ.get(variable(f.name), "")
        if f.name in _FLAGS:
            values[f.name] = raw not in _FLAG_OFF
        elif raw:
            values[f.name] = Path(raw) if f.name in _PATHS else raw
    return KernelContext(**values)  # type: ignore[arg-type]  # each value has its field's type by construction


def kernel_variables(context: KernelContext, defaults: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables a stage kernel gets on top of this process's environment: `context`'s, and `defaults` (other
    variables), each unless already set here."""
    values = dict(context.environment())
    values.update({name: os.environ.get(name, value) for name, value in (defaults or {}).items()})
    return values


def kernel_start_environment(context: KernelContext, defaults: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment a stage kernel starts with: this process's, `kernel_variables` on top."""
    return {**os.environ, **kernel_variables(context, defaults)}


def compute_threads_asked() -> int | None:
    """The compute threads this process was asked to use ($OMP_NUM_THREADS, where it is a positive number), or
    None."""
    raw = os.environ.get("OMP_NUM_THREADS", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


@contextmanager
def kernel_environment(context: KernelContext, defaults: Mapping[str, str] | None = None) -> Iterator[None]:
    """Write `kernel_variables(context, defaults)` into this process's environment, where a kernel started meanwhile
    inherits them; restore every variable it touched afterwards."""
    values = kernel_variables(context, defaults)
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def use_results(folder: Path, *, unless_set: bool = False) -> None:
    """Make `folder` this process's results folder, and so its stage kernels' (`unless_set`: only when the user
    set none)."""
    if unless_set and kernel_context().results is not None:
        return
    os.environ[variable("results")] = str(folder)


def child_environment(**changes: Path | str) -> dict[str, str]:
    """This process's environment for a child process, with context fields changed (`results=PATH`, ...)."""
    current = kernel_context()
    return {**os.environ, **replace(current, **changes).environment()}  # type: ignore[arg-type]


def endpoint_key(key_variable: str) -> str | None:
    """The endpoint key held by the variable `key_variable` names (None when unset or empty); never logged."""
    return os.environ.get(key_variable) or None


class PerFile(Generic[T]):
    """One object per file that the context names, for the life of the process: the call log's usage account and
    the replay's spot checker each keep their state in one such object, shared by every thread of the kernel.

    `make` builds the object of a file on its first use; `on_first` (if given) runs once, when the first object is
    built (for example to register an exit hook that writes them all).
    """

    def __init__(self, make: Callable[[Path], T], on_first: Callable[[], object] | None = None):
        self._make = make
        self._on_first = on_first
        self._objects: dict[Path, T] = {}
        self._lock = threading.Lock()

    def get(self, path: Path | None) -> T | None:
        """The object of `path` (built on first use), or None when the context names no file (`path` is None)."""
        if path is None:
            return None
        with self._lock:
            if path not in self._objects:
                if not self._objects and self._on_first is not None:
                    self._on_first()
                self._objects[path] = self._make(path)
            return self._objects[path]

    def all(self) -> list[T]:
        """Every object built so far, in order of first use."""
        with self._lock:
            return list(self._objects.values())
