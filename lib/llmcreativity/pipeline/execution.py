"""Executing planned stages with papermill.

For each stage the MyST notebook is converted with jupytext, two provenance cells are added (one
after the parameters, one at the end), and papermill executes it with the project root as working
directory into `executed/.running/<name>.ipynb` under `results_dir(profile)`; only a notebook that
ran to the end is moved to `executed/<name>.ipynb`, a failed one to `executed/failed/`. The runner
process itself runs under no profile: the kernel learns it through its context (`context.kernel_context`), so its
own `results_dir()` is the plan's folder. The manifest records each stage's status, parameters,
source hash, the output files it wrote, the run id (one per `run`, shared by its stages) and the hash
of its parameters; the kernel gets both through the environment (`provenance.current_run`). The kernel
also learns its usage file (the context's `usage_file`, emptied before the stage starts), where its cached
models count calls, cache hits and tokens; after the stage the runner adds that usage and the stage's
items to the manifest entry and rewrites the run report (`run_report`) after every change of an entry.

Three ways to run against a record (`pipeline.record_export`), each into a results folder of its own:

- **replay** (`prepare_replay`, `run --replay RECORD`): every call answered from the record alone (a miss stops the
  stage), a few spot-checked live; under `results/replay/`.
- **re-analysis**: a replay with analysis parameters changed (`-p NAME VALUE`, `parameters` says which parameters
  are analysis-only); with `--stage S` after a full replay only S runs again, reading its upstream outputs from
  the earlier replay. Generating parameters are refused (`record.check_parameters`).
- **live against the record** (`prepare_from_record`, `run --from-record RECORD`): the record's answers are
  imported into the run's own call cache, and the stages run live: the calls the record holds are cache hits,
  the others are computed; under `results/from-record/`.

A replay of several stages runs two at a time where two CPUs are free (`run_side_by_side`): each stage as soon as
the stages it reads have run, in its own kernel started with its own context (`_kernel_manager`, never through this
process's environment), its outputs the files of its own folders, its models' threads its share of the cores.

A stage run against a record starts from an empty folder of its own (`_clear_stage_folder`), so that no output of
an earlier run under other parameters is resumed; its calls come back from the record or the run's call cache. Its
manifest entry says what differs from the record (`against_record`: the analysis and generating parameters
changed) and how many of the calls it asked the record held (`record_calls`), which the claims page shows
(`record.record_origin`).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

import nbformat

from ..context import KernelContext, kernel_context, kernel_start_environment, use_results
from ..dataclass_json import to_json
from ..hashing import sha256_file
from ..jsonl import is_lock_file, read_jsonl, rewrite_jsonl
from ..llm.call_log import LoggedCall, calls_path, read_call_log
from ..llm.spot_check import pending_file, read_summary
from ..llm.spot_worker import Checked, SpotWorker
from ..llm.usage_file import read_usage
from ..paths import REPO_ROOT, SCRATCH_PROFILES, cache_dir, registration_folder, results_dir, results_root
from ..record_file import Record, RecordError, read_record
from .manifest import (
    MANIFEST_FILE,
    AgainstRecord,
    ManifestEntry,
    RecordCalls,
    ReplayMark,
    executed_dir,
    read_manifest,
    read_manifest_file,
    update_manifest,
)
from .order import find_stage, ordered_stages
from .parameters import ParameterError
from .planning import Plan, load_notebook, missing_input, parameters_cell_index, plan, upstream_line
from .provenance import parameters_hash
from .record_compare import check_parameters, parameter_differences, replay_differences
from .record_export import (
    call_log_file,
    calls_by_role,
    code_commit,
    import_record,
    spot_check_file,
    stored_keys,
    verify_record,
)
from .run_report import RUN_REPORT_FILE, stage_items, stage_report, usage_path, write_run_report
from .stages import Stage

__all__ = ["LAST_RUN", "LIVE_FOLDER", "REPLAY_FOLDER", "Replay", "StageFailed", "new_run_id", "prepare_from_record",
           "prepare_notebook", "prepare_replay", "remember_run", "run", "run_stage", "use_last_run"]

REPLAY_FOLDER = "replay"
"""A replay (and a re-analysis) writes under `results_root()/replay/`, never over a live run's results."""
LIVE_FOLDER = "from-record"
"""A run live against a record writes under `results_root()/from-record/`, apart from live runs and replays."""
RECORD_CALLS = "record_calls.sqlite"
"""The call cache a run against a record imports the record into, in its `executed/` folder."""


@dataclass(frozen=True)
class Replay:
    """A run against a record: a replay (every model call answered from `calls`, a few spot-checked live) or, with
    `live`, a live run whose call cache `calls` holds the record's answers, so only the calls the record lacks are
    computed."""

    folder: Path
    """The record folder."""
    record: Record
    """Its record.json (`record_file.read_record`)."""
    calls: Path
    """The call cache the record was imported into."""
    live: bool = False
    """False: a replay (cache-only, spot-checked); True: a run live against the record (`prepare_from_record`)."""
    keys: frozenset[str] = frozenset()
    """Every call key the record holds an answer for (`record.stored_keys`): a stage's calls are counted as from the
    record or new against it."""


def _use_results_folder(name: str) -> None:
    """Make `results_root()/name` this process's results folder (and so its stage kernels'), beside a live run's;
    a results folder that is already a replay's or a live-against-record run's is replaced by its sibling."""
    root = results_root()
    if root.name in (REPLAY_FOLDER, LIVE_FOLDER):
        root = root.parent
    use_results(root / name)


LAST_RUN = ".last-run"
"""The file in the results root that names the results folder of the last `llmcreativity run` (a replay's, a run's
against a record, or the root itself): `build` and `pdf` read that folder, so `make pdf` right after `make book`
prints the pages the book was built from (`remember_run`, `use_last_run`)."""


def _base(root: Path) -> Path:
    return root.parent if root.name in (REPLAY_FOLDER, LIVE_FOLDER) else root


def remember_run() -> Path:
    """Note `results_root()` as the last run's results folder (in the root it belongs to); return the note's path."""
    root = results_root()
    note = _base(root) / LAST_RUN
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(f"{root}\n")
    return note


def use_last_run() -> Path:
    """Make the last run's results folder this process's (`remember_run`), when one is noted in `results_root()` and
    still exists; return the results folder now in use."""
    note = results_root() / LAST_RUN
    if note.exists():
        folder = Path(note.read_text().strip())
        if folder.is_dir():
            use_results(folder)
    return results_root()


def _check_upstream(plans: list[Plan], folder: Path) -> None:
    """Refuse `--stage S` against the record at `folder` when a stage S reads from has, in this results folder,
    outputs that were not made against this record (a replay of another record, or none), naming the fix."""
    planned = {p.stage.name for p in plans}
    for p in plans:
        for name in p.stage.depends:
            if name in planned:
                continue
            entry = read_manifest(p.profile).stages.get(name)
            made = entry.made_against() if entry is not None else None
            if made != str(folder):
                raise RecordError(f"stage {p.stage.name!r} reads the outputs of {name!r}, which in "
                                  f"{results_dir(p.profile)} come from {made or 'no run against a record'}, not from "
                                  f"{folder}: run every stage against this record first (the same command without "
                                  "--stage)")


def _upstream(only: str, stages: list[Stage] | None) -> list[str]:
    """Every stage `only` reads from, directly or through another, in run order."""
    ordered = ordered_stages(stages)
    by_name = {s.name: s for s in ordered}
    needed: set[str] = set()
    todo = list(find_stage(only, ordered).depends)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo += by_name[name].depends
    return [s.name for s in ordered if s.name in needed]


def _replayed_here(folder: Path, record: Record, names: list[str], stages: list[Stage] | None,
                   results: Path) -> list[str]:
    """Those of `names` that the results folder `results` holds as a replay of the record at `folder` made at the
    parameters a replay gives them (the profile's: no re-analysis with other values), and ran to the end."""
    made = read_manifest_file(results / "executed" / MANIFEST_FILE).stages
    plans = {p.stage.name: p for p in plan(record.profile, [], None, stages)}

    def same(entry: ManifestEntry, name: str) -> bool:
        given, planned = (json.dumps(x, default=str, sort_keys=True)
                          for x in (entry.parameters, plans[name].parameters))
        return given == planned

    return [n for n in names if (e := made.get(n)) is not None and e.status == "ok" and e.replay is not None
            and e.made_against() == str(folder) and same(e, n)]


def upstream_to_replay(folder: str | Path, only: str, stages: list[Stage] | None = None) -> list[str]:
    """The stages `--from-record folder --stage only` reads from that `results_root()/replay` does not hold as this
    record's replay (`_replayed_here`), in run order: they are replayed from the record first."""
    folder = Path(folder).resolve()
    record = read_record(folder)
    upstream = _upstream(only, stages)
    base = results_root().parent if results_root().name in (REPLAY_FOLDER, LIVE_FOLDER) else results_root()
    held = set(_replayed_here(folder, record, upstream, stages, base / REPLAY_FOLDER))
    return [n for n in upstream if n not in held]


def _adopt_replayed(folder: Path, record: Record, only: str, stages: list[Stage] | None) -> list[str]:
    """Copy into this run's results folder (a run live against the record) the outputs, executed notebook, manifest
    entry, claims and judge-validity rows of every stage `only` reads from, as `results_root()/../replay` holds them
    from a replay of the same record (`_replayed_here`), unless this folder already holds that stage made against the
    record; return the stages copied. `only` then reads its upstream stages exactly as the replay rebuilt them."""
    here = results_root()
    replayed = here.parent / REPLAY_FOLDER
    upstream = _upstream(only, stages)
    mine = read_manifest(record.profile).stages
    missing = [n for n in upstream if (e := mine.get(n)) is None or e.status != "ok"
               or e.made_against() != str(folder)]
    adopted = _replayed_here(folder, record, missing, stages, replayed)
    for name in adopted:
        if (replayed / name).is_dir():
            shutil.copytree(replayed / name, here / name, dirs_exist_ok=True)
        notebook = replayed / "executed" / f"{name}.ipynb"
        if notebook.exists():
            executed_dir(record.profile).mkdir(parents=True, exist_ok=True)
            shutil.copy2(notebook, executed_dir(record.profile) / notebook.name)
        update_manifest(name, read_manifest_file(replayed / "executed" / MANIFEST_FILE).stages[name], record.profile)
        for ledger in ("claims.jsonl", "judge_validity.jsonl"):
            rows = [r for r in read_jsonl(replayed / ledger) if r.get("stage") == name] \
                if (replayed / ledger).exists() else []
            if rows:
                kept = [r for r in read_jsonl(here / ledger) if r.get("stage") != name] \
                    if (here / ledger).exists() else []
                rewrite_jsonl(here / ledger, kept + rows)
    return adopted


def _load_record(folder: str | Path, results: str, overrides: list[tuple[str, str]] | None, only: str | None,
                 stages: list[Stage] | None) -> tuple[Path, Record, list[Plan]]:
    """The record folder, its checked record.json and the plans of a run against it writing under
    `results_root()/results`; refused with a `RecordError` naming the file or stage and the fix: a record of another
    version, a truncated or altered file, a stage the plan runs but the record lacks, an upstream stage whose
    outputs here are not this record's. A run live against the record of one stage (`only`) first takes its upstream
    stages from the record's replay beside it (`_adopt_replayed`), saying so."""
    folder = Path(folder).resolve()
    record = read_record(folder)
    _use_results_folder(results)
    if results == LIVE_FOLDER and only:
        adopted = _adopt_replayed(folder, record, only, stages)
        if adopted:
            print(f"{only} reads {', '.join(adopted)} as the replay of this record rebuilt them "
                  f"({results_root().parent / REPLAY_FOLDER})")
    plans = plan(record.profile, overrides or [], only, stages)
    record = verify_record(folder, [p.stage.name for p in plans])
    _check_upstream(plans, folder)
    return folder, record, plans


def prepare_replay(folder: str | Path, overrides: list[tuple[str, str]] | None = None, only: str | None = None,
                   stages: list[Stage] | None = None) -> tuple[list[Plan], Replay]:
    """Check the record at `folder` against the code and load it, before anything runs; the plans and the `Replay`.

    The results folder becomes `results_root()/replay` (set in this process's environment, so the stage kernels
    write there too). Refused as `_load_record` says, and when a generating parameter differs from the recorded one
    (`record.check_parameters`: only analysis parameters may change in a replay, which re-analyses the record).
    """
    folder, record, plans = _load_record(folder, REPLAY_FOLDER, overrides, only, stages)
    check_parameters(record, plans, folder)
    calls = executed_dir(record.profile) / RECORD_CALLS
    calls.parent.mkdir(parents=True, exist_ok=True)
    import_record(folder, calls, [p.stage.name for p in plans])
    return plans, Replay(folder, record, calls, keys=frozenset(stored_keys(folder, record)))


def prepare_from_record(folder: str | Path, overrides: list[tuple[str, str]] | None = None, only: str | None = None,
                        stages: list[Stage] | None = None, *, user_cache: bool = False) -> tuple[list[Plan], Replay]:
    """Load the record at `folder` for a run live against it, before anything runs; the plans and the `Replay`.

    Any parameter may differ from the record. The results folder becomes `results_root()/from-record`; the record's
    answers are added to that run's own call cache (`executed/record_calls.sqlite`, kept between sittings, so a call
    computed once is not computed again), or with `user_cache` to the user's call cache
    (`cache_dir()/calls.sqlite`, as `record import` does). Refused as `_load_record` says.
    """
    folder, record, plans = _load_record(folder, LIVE_FOLDER, overrides, only, stages)
    calls = calls_path(cache_dir() / "calls.sqlite") if user_cache else executed_dir(record.profile) / RECORD_CALLS
    calls.parent.mkdir(parents=True, exist_ok=True)
    import_record(folder, calls, [p.stage.name for p in plans], fresh=False)
    return plans, Replay(folder, record, calls, live=True, keys=frozenset(stored_keys(folder, record)))


class StageFailed(RuntimeError):
    """A notebook raised; the message names the stage, notebook, cell and error."""


def _provenance_cells(stage: Stage, names: list[str]) -> tuple[nbformat.NotebookNode, list[nbformat.NotebookNode]]:
    start = nbformat.v4.new_code_cell(
        "from llmcreativity.pipeline.provenance import start_recording\n"
        f"start_recording({stage.name!r})",
        metadata={"tags": ["remove-cell", "provenance"]})
    heading = nbformat.v4.new_markdown_cell(
        "## Provenance\n\nThe models, parameters, input files and package versions that produced this page.",
        metadata={"tags": ["provenance"]})
    report = nbformat.v4.new_code_cell(
        "from llmcreativity.llm.usage_file import flush_usage\n"
        "from llmcreativity.pipeline.provenance import show_provenance\n"
        "flush_usage()\n"
        f"show_provenance({stage.name!r}, {{name: globals().get(name) for name in {names!r}}}, {stage.notebook!r})",
        metadata={"tags": ["remove-input", "provenance"]})
    return start, [heading, report]


def prepare_notebook(p: Plan) -> nbformat.NotebookNode:
    """The stage notebook with the provenance cells added, ready for papermill."""
    nb = load_notebook(p.stage)
    at = parameters_cell_index(nb, p.stage.notebook)
    start, end = _provenance_cells(p.stage, list(p.declared))
    nb.cells.insert(at + 1, start)
    nb.cells.extend(end)
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    nb.metadata["kernelspec"]["name"] = "python3"
    return nb


def _snapshot(profile: str, within: tuple[str, ...] = ()) -> dict[str, tuple[int, int]]:
    """(mtime, size) of each file in the profile's results folder, bookkeeping (executed notebooks, the claims and
    judge-validity ledgers, the run report) and other profiles' folders left out; with `within`, only the files under
    those folders of it (a stage's own, where another stage may be writing beside it)."""
    root = results_dir(profile)
    if not root.exists():
        return {}
    if within:
        return {rel: sig for folder in within for rel, sig in _snapshot_files(root, root / folder, set()).items()}
    ledgers = ("claims.jsonl", "judge_validity.jsonl", RUN_REPORT_FILE)
    skip = {executed_dir(profile).resolve(), *((root / f).resolve() for f in ledgers)}
    skip |= {p.resolve() for p in root.iterdir() if p.is_dir() and p.name in SCRATCH_PROFILES}
    return _snapshot_files(root, root, skip)


def _snapshot_files(root: Path, folder: Path, skip: set[Path]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for path in folder.rglob("*"):
        if path.is_file() and not is_lock_file(path) and not any(path.resolve().is_relative_to(s) for s in skip):
            st = path.stat()
            found[path.relative_to(root).as_posix()] = (st.st_mtime_ns, st.st_size)
    return found


def _failure_message(p: Plan, error: Exception, output: Path) -> str:
    cell_index = getattr(error, "cell_index", None)
    if cell_index is None:
        return f"stage {p.stage.name!r} ({p.stage.notebook}) failed before running a cell: {error}"
    source = getattr(error, "source", "") or ""
    first = next((ln for ln in source.splitlines() if ln.strip()), "")
    md_lines = (REPO_ROOT / p.stage.notebook).read_text().splitlines()
    line = next((i + 1 for i, ln in enumerate(md_lines) if first and ln.strip() == first.strip()), None)
    where = f"{p.stage.notebook}" + (f" line {line}" if line else "")
    return (f"stage {p.stage.name!r} failed in {where} (cell {cell_index} of the executed notebook, "
            f"execution count {getattr(error, 'exec_count', '?')}):\n"
            f"    {first}\n{getattr(error, 'ename', type(error).__name__)}: {getattr(error, 'evalue', error)}\n"
            f"The partly executed notebook is {output}. Later stages and the book build were not run.")


PORTABLE_ARITHMETIC_ENV: dict[str, str] = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": "2",
                                           "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
"""Set in every stage's kernel, unless already set in the environment. OpenBLAS (under numpy and scipy) picks its
kernels by CPU, and numpy its SIMD loops: on an AVX-512 machine they add in another order than on an AVX2 one, so the
statistics a stage computes from the same recorded answers differed in their last bits from one machine to another
and a replay's outputs and claims no longer matched the record's (measured on the smoke record: OpenBLAS's kernel
moved five output files, numpy's AVX-512 loops one more). Haswell's BLAS kernels (AVX2 and FMA) and numpy's loops up
to AVX2 (its AVX-512 targets, not part of its baseline, turned off) run on every machine this project targets.
OpenBLAS also splits some sums among its threads, so their number moves last bits too (measured: the decisive record's
judge laboratory replayed with one OpenBLAS thread rebuilt its two ridge heads, its choice and its development table
differently): every record was made with two, the cores of the machines it was made on, so a kernel gets two on any
machine, whatever $OMP_NUM_THREADS says (OpenBLAS takes fewer only where the process may use fewer CPUs)."""

SHARED_CORES_ENV: dict[str, str] = {"OPENBLAS_THREAD_TIMEOUT": "4"}
"""Set in a kernel that shares the cores with other stages and the spot-check worker (`run_side_by_side`), unless
already set. After each call, an idle OpenBLAS thread spins for 2^28 cycles by default (about a tenth of a second)
before it sleeps; with three processes on two cores that spinning takes the cycles another stage needs. 4 (2^4
cycles, OpenBLAS's least) lets it sleep at once. Only when an idle thread sleeps changes, not which thread adds what:
the outputs stay those of one stage at a time (every stage of the decisive record replayed as recorded with it).
Measured with `scripts/bench_book.py`, side by side: the numbers are on the book's history page."""


def record_calls(calls: list[LoggedCall], keys: frozenset[str]) -> RecordCalls:
    """How many of the distinct calls a stage asked (its call log) the record holds (`keys`): `from_record`, `new`
    (computed, or answered by the run's own cache from an earlier sitting) and the new ones per role and method."""
    new = [replace(c, keys=[k for k in c.keys if k not in keys]) for c in calls]
    new = [c for c in new if c.keys]
    asked = {k for c in calls for k in c.keys}
    fresh = {k for c in new for k in c.keys}
    return RecordCalls(from_record=len(asked - fresh), new=len(fresh), new_calls=calls_by_role(new))


def _work(entry: ManifestEntry, p: Plan, usage: Path, replay: Replay | None) -> ManifestEntry:
    """`entry` with what the stage did: its models' usage rows, its items, the calls it asked for per role and
    method, and against a record how many of them it held (`record_calls`), in a replay the spot check and what it
    rebuilt differently from the record (`record_differences`: an edited chapter's outputs). Never
    raises, so a file it cannot read leaves a note in the entry instead of an entry stuck at "running"."""
    try:
        entry = replace(entry, usage=[to_json(u) for u in read_usage(usage)])
    except (OSError, ValueError) as e:
        entry = replace(entry, usage=[], usage_error=str(e))
    try:
        calls = read_call_log(call_log_file(p.stage.name, p.profile))
        entry = replace(entry, calls=calls_by_role(calls))
        if replay is not None:
            entry = replace(entry, record_calls=record_calls(calls, replay.keys))
        if replay is not None and not replay.live:
            entry = replace(entry, spot_check=read_summary(spot_check_file(p.stage.name, p.profile)))
    except (OSError, ValueError, TypeError) as e:
        entry = replace(entry, calls_error=str(e))
    try:
        items, unit = stage_items(p.stage, p.profile)
        entry = replace(entry, items=items, items_unit=unit)
    except (OSError, ValueError) as e:
        entry = replace(entry, items=None, items_unit="", items_error=str(e))
    if replay is not None and not replay.live:
        try:
            found = replay_differences(replay.record, {p.stage.name}, results_dir(p.profile))
            entry = replace(entry, record_differences=tuple(found.get(p.stage.name, ())))
        except (OSError, ValueError) as e:
            entry = replace(entry, record_differences=(f"not compared: {e}",))
    return entry


def new_run_id() -> str:
    """A fresh run id: the local start time and a random suffix, e.g. `20260130T171500-3f9a1c`."""
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


def stage_context(p: Plan, run_id: str, params: str, usage: Path, replay: Replay | None,
                  spot_check_later: bool = False) -> KernelContext:
    """The context of one stage's kernel: this process's, with the stage's profile, name, run id, parameter hash,
    usage file, call log, the profile's registration (`paths.registration_folder`), run settings (`Plan.settings`)
    and endpoint settings (`Plan.endpoint`). Against a record its call cache is the one the record was imported
    into; a replay's stage is also cache-only, spot-checked, reads the record (`context.record`) and runs under the
    recorded run id and, unless it is re-analysed with other analysis parameters, the recorded
    parameter hash; with `spot_check_later`, its drawn calls of local models wait for the spot-check worker
    (`llm.spot_worker`)."""
    own = kernel_context()
    endpoint = {name: str(value) for name, value in p.endpoint.items()}
    context = replace(own, profile=p.profile, stage=p.stage.name, run_id=run_id, params_sha256=params,
                      usage_file=usage, call_log=call_log_file(p.stage.name, p.profile), cache_only=False,
                      registration=registration_folder(p.profile), record=None,
                      dtype=p.settings.get("dtype", own.dtype), device=p.settings.get("device", own.device),
                      api_key_env=endpoint.get("api_key_env", own.api_key_env),
                      max_concurrency=endpoint.get("max_concurrency", own.max_concurrency))
    if replay is not None:
        context = replace(context, calls=replay.calls)
    if replay is not None and not replay.live:
        recorded = replay.record.stages[p.stage.name]
        _, analysis = parameter_differences(recorded.resolved_parameters, p)
        context = replace(context, run_id=recorded.run_id,
                          params_sha256=params if analysis else recorded.parameters_sha256, cache_only=True,
                          spot_check=spot_check_file(p.stage.name, p.profile), record=replay.folder,
                          spot_check_later=spot_check_later)
    return context


def _start_logs(p: Plan, replay: Replay | None) -> None:
    """Empty the stage's call log, unless the stage's last attempt was killed or failed (a resumed stage keeps the
    calls it logged before, since it does not ask for what it reads back); against a record the log always starts
    anew (the stage starts from an empty folder, `_clear_stage_folder`), and so do a replay's spot checks."""
    entry = read_manifest(p.profile).stages.get(p.stage.name)
    before = entry.status if entry is not None else None
    if before not in ("running", "failed") or replay is not None:
        call_log_file(p.stage.name, p.profile).unlink(missing_ok=True)
    if replay is not None:
        spot_check_file(p.stage.name, p.profile).unlink(missing_ok=True)
        pending_file(spot_check_file(p.stage.name, p.profile)).unlink(missing_ok=True)


def _clear_stage_folder(p: Plan) -> None:
    """Remove the folder of the stage's outputs, and the caches it keeps beside it (`Stage.caches`), before it runs
    against a record, so that nothing an earlier run wrote there is resumed (its calls come back from the record or
    the run's call cache) and the stage asks every recorded call again; refused outside a replay's or a
    live-against-record run's results folder, so a live run's outputs are never touched."""
    if results_root().name not in (REPLAY_FOLDER, LIVE_FOLDER):
        raise RecordError(f"{results_root()}: a run against a record writes under a folder named {REPLAY_FOLDER!r} "
                          f"or {LIVE_FOLDER!r}; prepare it with prepare_replay or prepare_from_record")
    for folder in p.stage.folders:
        shutil.rmtree(results_dir(p.profile) / folder, ignore_errors=True)


def _against_record(p: Plan, replay: Replay, run_id: str) -> AgainstRecord:
    """The manifest's `against_record` of a stage run against `replay`'s record by run `run_id`: the record, the mode
    (replay or live) and the parameters that differ from the recorded ones, by kind, as {name: [recorded, now]}."""
    generating, analysis = parameter_differences(replay.record.stages[p.stage.name].resolved_parameters, p)
    return AgainstRecord(record=str(replay.folder), mode="live" if replay.live else "replay", run=run_id,
                         analysis_changed={k: list(v) for k, v in analysis.items()},
                         generating_changed={k: list(v) for k, v in generating.items()})


def _kernel_manager(env: dict[str, str]) -> type:
    """A kernel manager class whose kernels start with `env`, not with this process's environment, so that two
    stages run side by side (`run_side_by_side`) each give their kernel their own context."""
    from jupyter_client.manager import AsyncKernelManager

    class StageKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw: object) -> None:  # type: ignore[override]
            await super().start_kernel(**{"env": env, **kw})

    return StageKernelManager


def run_stage(p: Plan, log: Callable[[str], object] = print, run_id: str | None = None,
              replay: Replay | None = None, threads: int | None = None,
              spot_check_later: bool = False) -> ManifestEntry:
    """Execute one planned stage as part of run `run_id` (a fresh one when None); returns its manifest entry or
    raises StageFailed. With `replay`, the stage runs against a record (see `Replay`): from an empty folder, every
    call answered from the record (a replay) or the calls it lacks computed (live); its outputs are the files it
    wrote in its own folders (`Stage.folders`). `threads`: the compute threads of its kernel's models
    ($OMP_NUM_THREADS, unless set here; OpenBLAS keeps `PORTABLE_ARITHMETIC_ENV`'s). `spot_check_later`: a
    replay's drawn calls of local models are left in the stage's pending file for the spot-check worker
    (`check_later`), its manifest entry counting them as drawn, not yet compared."""
    run_id = new_run_id() if run_id is None else run_id
    params = parameters_hash(p.parameters)
    import papermill

    for name in p.parameters:
        why = missing_input(p, name)
        if why is not None:
            raise ParameterError(f"{why}; run the stages it depends on ({list(p.stage.depends)}) first "
                                 f"or pass -p {name} PATH")
    out_dir, results = executed_dir(p.profile), results_dir(p.profile)
    running, failed = out_dir / ".running", out_dir / "failed"
    for d in (running, failed):
        d.mkdir(parents=True, exist_ok=True)
    source = running / f"{p.stage.name}.source.ipynb"
    nbformat.write(prepare_notebook(p), source)
    partial = running / f"{p.stage.name}.ipynb"
    entry = ManifestEntry(
        status="running", profile=p.profile, notebook=p.stage.notebook, parameters=p.parameters,
        source_sha256=sha256_file(REPO_ROOT / p.stage.notebook), run_id=run_id, parameters_sha256=params,
        started=time.strftime("%Y-%m-%dT%H:%M:%S"), run_settings=p.settings, endpoint_settings=p.endpoint,
        commit=code_commit())
    usage = usage_path(p.stage.name, p.profile)
    usage.unlink(missing_ok=True)  # a killed earlier attempt's account is not this attempt's
    _start_logs(p, replay)
    if replay is not None:
        _clear_stage_folder(p)
        entry = replace(entry, against_record=_against_record(p, replay, run_id))
    if replay is not None and not replay.live:
        entry = replace(entry, replay=ReplayMark(str(replay.folder), run_id),
                        run_id=replay.record.stages[p.stage.name].run_id)
    update_manifest(p.stage.name, entry, p.profile)
    write_run_report(p.profile)
    within = p.stage.folders if replay is not None else ()
    before = _snapshot(p.profile, within)
    t0 = time.monotonic()
    log(f"[{p.stage.name}] executing {p.stage.notebook} (profile {p.profile}"
        + (f", {p.parameters}" if p.parameters else "") + ")")
    logging.getLogger("papermill").setLevel(logging.ERROR)  # its parameter sniffing warns on `# range:` comments
    try:
        thread_env = {"OMP_NUM_THREADS": str(threads)} | SHARED_CORES_ENV if threads else {}
        env = kernel_start_environment(stage_context(p, run_id, params, usage, replay, spot_check_later),
                                       PORTABLE_ARITHMETIC_ENV | thread_env)
        papermill.execute_notebook(str(source), str(partial), parameters=p.parameters, kernel_name="python3",
                                   cwd=str(REPO_ROOT), progress_bar=False, log_output=False,
                                   kernel_manager_class=_kernel_manager(env))
    except Exception as e:  # papermill raises PapermillExecutionError for a failing cell, others for the kernel
        error = f"{getattr(e, 'ename', type(e).__name__)}: {getattr(e, 'evalue', e)}".strip()
        entry = _work(replace(entry, status="failed", seconds=round(time.monotonic() - t0, 1), error=error), p,
                      usage, replay)
        target = failed / f"{p.stage.name}.ipynb"
        if partial.exists():
            os.replace(partial, target)
        (out_dir / f"{p.stage.name}.ipynb").unlink(missing_ok=True)
        update_manifest(p.stage.name, entry, p.profile)
        write_run_report(p.profile)
        raise StageFailed(_failure_message(p, e, target)) from e
    finally:
        source.unlink(missing_ok=True)
    os.replace(partial, out_dir / f"{p.stage.name}.ipynb")
    (failed / f"{p.stage.name}.ipynb").unlink(missing_ok=True)
    after = _snapshot(p.profile, within)
    outputs = {rel: sha256_file(results / rel) for rel, sig in sorted(after.items()) if before.get(rel) != sig}
    entry = _work(replace(entry, status="ok", seconds=round(time.monotonic() - t0, 1), outputs=outputs), p, usage,
                  replay)
    update_manifest(p.stage.name, entry, p.profile)
    write_run_report(p.profile)
    line = stage_report(p.stage.name, entry)
    log(f"[{p.stage.name}] done in {entry.seconds} s, {line.lm_calls} LM calls ({line.lm_cache_hits} cached) "
        f"-> {out_dir / (p.stage.name + '.ipynb')}")
    return entry


REPLAY_LANES = 2
"""Stages of a replay run at once (`run_side_by_side`), where the process may use as many CPUs: a replayed stage is
mostly one core of Python (its calls come from the record), and the spot-check worker's models get the cores left."""

REPLAY_SECONDS: dict[str, tuple[float, float]] = {
    "judge_lab": (143, 7), "evaluation": (60, 91), "baselines": (30, 57), "review": (42, 30),
    "judge_validation": (35, 81), "entailment_validation": (28, 32), "corpus": (26, 1), "semantic_entropy": (19, 9),
    "writing_pilot": (18, 34), "scifi100": (8, 3), "backends": (7, 6),
}
"""Stage -> (seconds its kernel takes in a replay, seconds its spot check's recomputations take), one at a time on
two cores, measured on the decisive record (`scripts/bench_book.py`, 2026-12-07): what `side_by_side` orders the
stages by. Only the order depends on them; a stage not named here counts `UNKNOWN_SECONDS`."""
UNKNOWN_SECONDS = (30.0, 15.0)
"""`REPLAY_SECONDS` of a stage it does not name."""


def replay_lanes() -> int:
    """`REPLAY_LANES`, or fewer where this process may use fewer CPUs."""
    return max(1, min(REPLAY_LANES, len(os.sched_getaffinity(0))))


def side_by_side(plans: list[Plan], lanes: int, run_one: Callable[[Plan], ManifestEntry],
                 check_one: Callable[[Plan], ManifestEntry] | None = None,
                 seconds: Mapping[str, tuple[float, float]] = REPLAY_SECONDS,
                 when_alone: Callable[[], object] | None = None) -> list[ManifestEntry]:
    """`run_one` over `plans`, `lanes` stages at a time, each in a thread of its own, a stage once every stage it
    reads (among `plans`) has run; with `check_one`, each stage's deferred spot check is a job too, after its stage,
    one such job at a time (one worker holds the models) beside the `lanes` stages, and its entry is the one
    `check_one` returns; `when_alone()` is called once, when no stage is left to run or running (the checks left may
    then have every lane's cores).

    Of the jobs ready, the one with the longest way to go first: a check its own seconds, a stage its seconds plus
    the longest of its check and the ways of the stages that read it (`seconds`: `REPLAY_SECONDS`), then plan
    order. After a failure no further job starts; the jobs running finish and the first failure is raised. The
    entries, in plan order."""
    names = [p.stage.name for p in plans]
    upstream = {p.stage.name: set(p.stage.depends) & set(names) for p in plans}

    def cost(name: str) -> tuple[float, float]:
        return seconds.get(name, UNKNOWN_SECONDS)

    @functools.cache
    def way(name: str) -> float:
        after = [way(n) for n in names if name in upstream[n]]
        return cost(name)[0] + max([cost(name)[1] if check_one else 0.0, *after])

    def urgency(job: tuple[str, Plan]) -> tuple[float, int]:
        kind, p = job
        return (-(way(p.stage.name) if kind == "stage" else cost(p.stage.name)[1]), names.index(p.stage.name))

    waiting, unchecked = list(plans), list[Plan]()
    done, checked = dict[str, ManifestEntry](), dict[str, ManifestEntry]()
    running: dict[Future[ManifestEntry], tuple[str, Plan]] = {}
    failure: BaseException | None = None
    with ThreadPoolExecutor(max_workers=lanes + 1) as pool:
        while waiting or unchecked or running:
            ready = [("stage", p) for p in waiting if upstream[p.stage.name] <= done.keys()]
            ready += [("check", p) for p in unchecked]
            stages = sum(kind == "stage" for kind, _ in running.values())
            checking = any(kind == "check" for kind, _ in running.values())
            chosen: list[tuple[str, Plan]] = []
            for job in sorted(ready, key=urgency) if failure is None else []:
                if job[0] == "stage" and stages < lanes:
                    stages += 1
                    chosen.append(job)
                elif job[0] == "check" and not checking:
                    checking = True
                    chosen.append(job)
            for kind, p in chosen:
                (waiting if kind == "stage" else unchecked).remove(p)
                running[pool.submit(run_one if kind == "stage" else check_one, p)] = (kind, p)  # type: ignore[arg-type]
            if when_alone is not None and not waiting and all(kind == "check" for kind, _ in running.values()):
                when_alone()
                when_alone = None
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                kind, p = running.pop(future)
                try:
                    entry = future.result()
                except BaseException as e:  # the first failure is raised once the others finish
                    failure = failure or e
                    continue
                if kind == "check":
                    checked[p.stage.name] = entry
                else:
                    done[p.stage.name] = entry
                    if check_one is not None:
                        unchecked.append(p)
    if failure is not None:
        raise failure
    if waiting:
        raise RuntimeError(f"{[p.stage.name for p in waiting]}: their upstream stages never ran")
    return [checked.get(n, done[n]) for n in names]


def run_side_by_side(plans: list[Plan], run_id: str, replay: Replay, log: Callable[[str], object] = print,
                     lanes: int | None = None) -> list[ManifestEntry]:
    """A replay's stages (`run_stage`), `lanes` (default `replay_lanes`) at a time (`side_by_side`), each kernel's
    models on its share of the CPUs. Each stage keeps its own kernel, call log, usage, spot check and manifest entry,
    its outputs are the files of its own folders, and the ledgers it shares are written under a lock (`jsonl.upsert`);
    OpenBLAS keeps its two threads (`PORTABLE_ARITHMETIC_ENV`), so the outputs are those of one stage at a time.

    A stage's spot check of local models is computed after it by one worker process for all stages
    (`llm.spot_worker`), each model loaded once, beside the lanes' stages on a lane's share of the CPUs (three
    processes on two cores: measured faster than a worker that waits for a free lane and then finishes alone), and on
    all of them from the moment no stage is left to run (`check_later`). The kernels get `SHARED_CORES_ENV` too."""
    lanes = replay_lanes() if lanes is None else lanes
    threads = max(1, len(os.sched_getaffinity(0)) // lanes)
    environment = kernel_start_environment(kernel_context(),
                                           PORTABLE_ARITHMETIC_ENV | {"OMP_NUM_THREADS": str(threads)})
    with SpotWorker(environment, executed_dir(plans[0].profile) / "spot_check" / WORKER_LOG) as worker:
        worker.use_threads(threads)
        return side_by_side(plans, lanes,
                            lambda p: run_stage(p, log, run_id, replay, threads=threads, spot_check_later=True),
                            lambda p: check_later(p, worker, replay, log), when_alone=lambda: worker.use_threads(
                                threads * lanes))


WORKER_LOG = "worker.log"
"""The spot-check worker's log, in the replay's `executed/spot_check/`."""


def check_later(p: Plan, worker: SpotWorker, replay: Replay, log: Callable[[str], object] = print) -> ManifestEntry:
    """Have `worker` compute the calls stage `p` left for its spot check, and put the whole spot check in its manifest
    entry."""
    spot = spot_check_file(p.stage.name, p.profile)
    done: Checked = worker.check(pending_file(spot), spot, replay.calls)
    entry = replace(read_manifest(p.profile).stages[p.stage.name], spot_check=read_summary(spot))
    update_manifest(p.stage.name, entry, p.profile)
    write_run_report(p.profile)
    if done.checks:
        loads = f"; loaded {', '.join(f'{m} ({s} s)' for m, s in done.loads.items())}" if done.loads else ""
        log(f"[{p.stage.name}] spot check: {done.checks} call(s) computed again in {done.seconds} s{loads}")
    return entry


def run(profile: str = "default", overrides: list[tuple[str, str]] | None = None, only: str | None = None,
        log: Callable[[str], object] = print, stages: list[Stage] | None = None,
        replay: Replay | None = None) -> list[ManifestEntry]:
    """Validate every selected stage, then execute them in order under one run id, stopping at the first failure.

    `only` runs one stage; in a scratch profile its missing upstream stages run first, and `log` says so
    (`planning.plan(run_upstream=True)`); a replay runs only the stages asked for."""
    plans = plan(profile, overrides or [], only, stages, run_upstream=replay is None)
    if upstream_line(plans, only):
        log(upstream_line(plans, only))
    run_id = new_run_id()
    return [run_stage(p, log, run_id, replay) for p in plans]
