"""Executing planned stages with papermill.

For each stage the MyST notebook is converted with jupytext, two provenance cells are added (one
after the parameters, one at the end), and papermill executes it with the project root as working
directory into `executed/.running/<name>.ipynb` under `results_dir(profile)`; only a notebook that
ran to the end is moved to `executed/<name>.ipynb`, a failed one to `executed/failed/`. The runner
process itself runs under no profile: the kernel learns it through $LLMCREATIVITY_PROFILE, so its
own `results_dir()` is the plan's folder. The manifest records each stage's status, parameters,
source hash, the output files it wrote, the run id (one per `run`, shared by its stages) and the hash
of its parameters; the kernel gets both through the environment (`provenance.current_run`). The kernel
also learns its usage file ($LLMCREATIVITY_USAGE_FILE, emptied before the stage starts), where its cached
models count calls, cache hits and tokens; after the stage the runner adds that usage and the stage's
items to the manifest entry and rewrites the run report (`run_report`) after every change of an entry.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import nbformat

from ..hashing import sha256_file
from ..llm.device import RUN_SETTING_ENV
from ..llm.usage_file import USAGE_FILE_ENV, read_usage
from ..paths import PROFILE_ENV, REPO_ROOT, SCRATCH_PROFILES, results_dir
from .manifest import executed_dir, update_manifest
from .parameters import ParameterError
from .planning import Plan, load_notebook, missing_input, parameters_cell_index, plan
from .provenance import PARAMS_ENV, RUN_ENV, parameters_hash
from .run_report import RUN_REPORT_FILE, stage_items, stage_report, usage_file, write_run_report
from .stages import Stage

STAGE_ENV = "LLMCREATIVITY_STAGE"
"""Environment variable through which the kernel learns the stage it runs."""


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


def _snapshot(profile: str) -> dict[str, tuple[int, int]]:
    """(mtime, size) of each file in the profile's results folder, bookkeeping (executed notebooks, the claims and
    judge-validity ledgers, the run report) and other profiles' folders left out."""
    root = results_dir(profile)
    if not root.exists():
        return {}
    ledgers = ("claims.jsonl", "judge_validity.jsonl", RUN_REPORT_FILE)
    skip = {executed_dir(profile).resolve(), *((root / f).resolve() for f in ledgers)}
    skip |= {p.resolve() for p in root.iterdir() if p.is_dir() and p.name in SCRATCH_PROFILES}
    found: dict[str, tuple[int, int]] = {}
    for path in root.rglob("*"):
        if path.is_file() and not any(path.resolve().is_relative_to(s) for s in skip):
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


@contextmanager
def _kernel_environment(profile: str, stage: str, run_id: str, params: str, usage: Path,
                        settings: dict[str, str] | None = None) -> Iterator[None]:
    """Set the profile, stage, run id, parameter hash and usage file variables for the kernel papermill starts, and
    the run settings' (`Plan.settings` -> `llm.device.RUN_SETTING_ENV`: the defaults of its `get_backend` and
    `get_embedder`); restore them after."""
    values = {PROFILE_ENV: profile, STAGE_ENV: stage, RUN_ENV: run_id, PARAMS_ENV: params, USAGE_FILE_ENV: str(usage)}
    values.update({RUN_SETTING_ENV[name]: value for name, value in (settings or {}).items()})
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


def _work(p: Plan, usage: Path) -> dict[str, Any]:
    """The manifest fields of what the stage did: its models' usage rows and its items. Never raises, so a file it
    cannot read leaves a note in the entry instead of an entry stuck at "running"."""
    work: dict[str, Any] = {}
    try:
        work["usage"] = [asdict(u) for u in read_usage(usage)]
    except (OSError, ValueError) as e:
        work.update(usage=[], usage_error=str(e))
    try:
        work["items"], work["items_unit"] = stage_items(p.stage.name, p.profile)
    except (OSError, ValueError) as e:
        work.update(items=None, items_unit="", items_error=str(e))
    return work


def new_run_id() -> str:
    """A fresh run id: the local start time and a random suffix, e.g. `20260130T171500-3f9a1c`."""
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


def run_stage(p: Plan, log: Any = print, run_id: str | None = None) -> dict[str, Any]:
    """Execute one planned stage as part of run `run_id` (a fresh one when None); returns its manifest entry or
    raises StageFailed."""
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
    entry: dict[str, Any] = {
        "status": "running", "profile": p.profile, "notebook": p.stage.notebook, "parameters": p.parameters,
        "source_sha256": sha256_file(REPO_ROOT / p.stage.notebook), "run_id": run_id, "parameters_sha256": params,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "run_settings": p.settings,
    }
    usage = usage_file(p.stage.name, p.profile)
    usage.unlink(missing_ok=True)  # a killed earlier attempt's account is not this attempt's
    update_manifest(p.stage.name, entry, p.profile)
    write_run_report(p.profile)
    before = _snapshot(p.profile)
    t0 = time.monotonic()
    log(f"[{p.stage.name}] executing {p.stage.notebook} (profile {p.profile}"
        + (f", {p.parameters}" if p.parameters else "") + ")")
    logging.getLogger("papermill").setLevel(logging.ERROR)  # its parameter sniffing warns on `# range:` comments
    try:
        with _kernel_environment(p.profile, p.stage.name, run_id, params, usage, p.settings):
            papermill.execute_notebook(str(source), str(partial), parameters=p.parameters, kernel_name="python3",
                                       cwd=str(REPO_ROOT), progress_bar=False, log_output=False)
    except Exception as e:  # papermill raises PapermillExecutionError for a failing cell, others for the kernel
        error = f"{getattr(e, 'ename', type(e).__name__)}: {getattr(e, 'evalue', e)}".strip()
        entry.update(status="failed", seconds=round(time.monotonic() - t0, 1), error=error, **_work(p, usage))
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
    after = _snapshot(p.profile)
    outputs = {rel: sha256_file(results / rel) for rel, sig in sorted(after.items()) if before.get(rel) != sig}
    entry.update(status="ok", seconds=round(time.monotonic() - t0, 1), outputs=outputs, **_work(p, usage))
    update_manifest(p.stage.name, entry, p.profile)
    write_run_report(p.profile)
    line = stage_report(p.stage.name, entry)
    log(f"[{p.stage.name}] done in {entry['seconds']} s, {line.lm_calls} LM calls ({line.lm_cache_hits} cached) "
        f"-> {out_dir / (p.stage.name + '.ipynb')}")
    return entry


def run(profile: str = "default", overrides: list[tuple[str, str]] | None = None, only: str | None = None,
        log: Any = print, stages: list[Stage] | None = None) -> list[dict[str, Any]]:
    """Validate every selected stage, then execute them in order under one run id, stopping at the first failure."""
    plans = plan(profile, overrides or [], only, stages)
    run_id = new_run_id()
    return [run_stage(p, log, run_id) for p in plans]
