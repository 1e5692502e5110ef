"""Execute the stage notebooks with papermill, in dependency order, under a parameter profile.

For each stage the MyST notebook `notebooks/<x>.md` is converted with jupytext, two provenance
cells are added (one after the parameters, one at the end), and papermill executes it with the
project root as working directory into `results_dir(profile)/executed/.running/<name>.ipynb`; only
a notebook that ran to the end is moved to `executed/<name>.ipynb`. The runner process itself runs
under no profile: every path here takes the profile explicitly, and the kernel learns it through
$LLMCREATIVITY_PROFILE, so its own `results_dir()` is the same folder. `executed/run.json` records
each stage's status, parameters, source hash and output files; the book build reads it and
refuses to publish a book with a failed, missing or stale stage.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jupytext
import nbformat

from ..hashing import sha256_file
from ..paths import PROFILE_ENV, REPO_ROOT, SCRATCH_PROFILES, results_dir
from .parameters import (Parameter, ParameterError, check_value, missing_path, parse_cli_value, parse_parameters,
                         registry_problems)
from .stages import REGISTRY_FALLBACK, STAGES, Stage

STAGE_ENV = "LLMCREATIVITY_STAGE"
"""Environment variable through which the kernel learns the stage it runs."""


class StageFailed(RuntimeError):
    """A notebook raised; the message names the stage, notebook, cell and error."""


@dataclass(frozen=True)
class Plan:
    """One stage ready to run: its validated parameter values."""

    stage: Stage
    """The stage."""
    parameters: dict[str, Any]
    """Values passed to papermill (profile and overrides on top of the notebook defaults)."""
    declared: dict[str, Parameter]
    """The notebook's parameters cell, for path checks and display."""


def executed_dir(profile: str = "default") -> Path:
    """Where the executed notebooks and the run manifest of `profile` live."""
    return results_dir(profile) / "executed"


def manifest_path(profile: str = "default") -> Path:
    """The run manifest of `profile`: one entry per stage with status, parameters and outputs."""
    return executed_dir(profile) / "run.json"


def read_manifest(profile: str = "default") -> dict[str, Any]:
    """The run manifest of `profile`, or an empty one when nothing has run."""
    path = manifest_path(profile)
    return json.loads(path.read_text()) if path.exists() else {"stages": {}}


def update_manifest(stage: str, entry: dict[str, Any], profile: str = "default") -> None:
    """Set one stage's entry, re-reading the manifest under a file lock so concurrent runs keep each other's entries."""
    path = manifest_path(profile)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = read_manifest(profile)
        manifest["stages"][stage] = entry
        _write_json(path, manifest)


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True, default=str))
    os.replace(tmp, path)


def ordered_stages(stages: list[Stage] | None = None) -> list[Stage]:
    """Stages sorted so each comes after the stages it depends on (stable for independent ones)."""
    stages = list(STAGES if stages is None else stages)
    by_name = {s.name: s for s in stages}
    if len(by_name) != len(stages):
        raise ValueError(f"duplicate stage names in STAGES: {[s.name for s in stages]}")
    for s in stages:
        for d in s.depends:
            if d not in by_name:
                raise ValueError(f"stage {s.name!r} depends on unknown stage {d!r}; known: {sorted(by_name)}")
    done: list[Stage] = []
    visiting: set[str] = set()

    def visit(s: Stage) -> None:
        if s in done:
            return
        if s.name in visiting:
            raise ValueError(f"stage dependencies form a cycle through {s.name!r}")
        visiting.add(s.name)
        for d in s.depends:
            visit(by_name[d])
        visiting.discard(s.name)
        done.append(s)

    for s in stages:
        visit(s)
    return done


def find_stage(name: str, stages: list[Stage] | None = None) -> Stage:
    """The stage called `name`, or a KeyError listing the known stages."""
    stages = STAGES if stages is None else stages
    for s in stages:
        if s.name == name:
            return s
    raise KeyError(f"unknown stage {name!r}; known stages: {[s.name for s in stages]}")


def load_notebook(stage: Stage) -> nbformat.NotebookNode:
    """The stage's MyST notebook read by jupytext."""
    path = REPO_ROOT / stage.notebook
    if not path.exists():
        raise FileNotFoundError(f"stage {stage.name!r}: notebook {stage.notebook} not found; "
                                "fix the path in lib/llmcreativity/book/stages.py")
    return jupytext.read(path)


def parameters_cell_index(nb: nbformat.NotebookNode, where: str) -> int:
    """Index of the single code cell tagged `parameters`."""
    hits = [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(hits) != 1:
        raise ParameterError(f"{where}: needs exactly one code cell tagged `parameters`, found {len(hits)}")
    return hits[0]


def declared_parameters(stage: Stage) -> dict[str, Parameter]:
    """The parameters the stage's notebook declares (model roles from `REGISTRY_FALLBACK` where the cell names none)."""
    nb = load_notebook(stage)
    params = parse_parameters(nb.cells[parameters_cell_index(nb, stage.notebook)].source, stage.notebook)
    return {name: _with_fallback_role(p, params) for name, p in params.items()}


def _with_fallback_role(p: Parameter, params: dict[str, Parameter]) -> Parameter:
    if p.registry is not None or p.name not in REGISTRY_FALLBACK:
        return p
    role = REGISTRY_FALLBACK[p.name]
    endpoint = None
    if role == "model":
        endpoint = next((e for e in (p.name.removesuffix("model") + "base_url", "base_url") if e in params), None)
    return replace(p, registry=role, endpoint=endpoint)


def split_override(key: str, stage_names: set[str]) -> tuple[str | None, str]:
    """`stage.name` -> (stage, name); a plain `name` -> (None, name), meaning every stage declaring it."""
    head, dot, tail = key.partition(".")
    if dot and head in stage_names:
        return head, tail
    return None, key


def _looked_in(value: str, profile: str) -> str:
    return "" if Path(value).is_absolute() else f" (looked under {REPO_ROOT} and {results_dir(profile)})"


def plan(profile: str, overrides: list[tuple[str, str]], only: str | None = None,
         stages: list[Stage] | None = None) -> list[Plan]:
    """Resolve and validate every stage's parameters before anything runs.

    Values: the notebook's defaults, then the profile's, then `-p name value` overrides (a bare
    name applies to every stage declaring it; `stage.name` to that stage only). Types and ranges
    are checked for all stages; input paths set by the profile or `-p` too, except those inside
    the results folder when a stage this one depends on runs earlier in this run and may still
    write them (they are checked when their stage starts).
    """
    ordered = ordered_stages(stages)
    names = {s.name for s in ordered}
    selected = [find_stage(only, ordered)] if only else ordered
    if only:
        done = read_manifest(profile)["stages"]
        missing = [d for d in selected[0].depends if done.get(d, {}).get("status") != "ok"]
        if missing:
            raise ParameterError(f"stage {only!r} reads the outputs of {missing}, which have not run successfully; "
                                 f"run them first (`llmcreativity run --stage {missing[0]}`) or run every stage")
    declared = {s.name: declared_parameters(s) for s in selected}
    problems: list[str] = []
    used: set[str] = set()
    plans: list[Plan] = []
    results = results_dir(profile).resolve()
    for s in selected:
        params = declared[s.name]
        if profile not in s.profiles:
            problems.append(f"stage {s.name!r} has no profile {profile!r} (it has {sorted(s.profiles)}); "
                            "add it to lib/llmcreativity/book/stages.py")
            continue
        values: dict[str, Any] = {}
        for name, value in s.profiles[profile].items():
            where = f"stage {s.name!r}, profile {profile!r}"
            if name not in params:
                problems.append(f"{where}: {name!r} is not in the notebook's parameters cell ({sorted(params)})")
                continue
            try:
                values[name] = check_value(params[name], value, where)
            except ParameterError as e:
                problems.append(str(e))
        for key, text in overrides:
            target, name = split_override(key, names)
            if target not in (None, s.name) or name not in params:
                continue
            used.add(key)
            try:
                values[name] = parse_cli_value(params[name], text, f"-p {key} (stage {s.name!r})")
            except ParameterError as e:
                problems.append(str(e))
        problems += registry_problems(params, values, f"stage {s.name!r}")
        upstream = any(d in {x.name for x in selected} for d in s.depends)
        for name, value in values.items():
            path = missing_path(params[name], value, results)
            if path is not None and not (upstream and path.resolve().is_relative_to(results)):
                problems.append(f"stage {s.name!r}: {name}={value!r} does not exist{_looked_in(value, profile)}; "
                                f"pass an existing path with -p {name} PATH")
        plans.append(Plan(s, values, params))
    for key, _ in overrides:
        if key not in used:
            target, name = split_override(key, names)
            scope = [s for s in selected if target in (None, s.name)]
            known = sorted({n for s in scope for n in declared[s.name]})
            problems.append(f"-p {key}: no selected stage declares a parameter {name!r}; known: {known}")
    if problems:
        raise ParameterError("invalid parameters, nothing was run:\n  - " + "\n  - ".join(problems))
    return plans


def _provenance_cells(stage: Stage, names: list[str]) -> tuple[nbformat.NotebookNode, list[nbformat.NotebookNode]]:
    start = nbformat.v4.new_code_cell(
        "from llmcreativity.book.provenance import start_recording\n"
        f"start_recording({stage.name!r})",
        metadata={"tags": ["remove-cell", "provenance"]})
    heading = nbformat.v4.new_markdown_cell(
        "## Provenance\n\nThe models, parameters, input files and package versions that produced this page.",
        metadata={"tags": ["provenance"]})
    report = nbformat.v4.new_code_cell(
        "from llmcreativity.book.provenance import show_provenance\n"
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


def _snapshot(root: Path, profile: str) -> dict[str, tuple[int, int]]:
    skip = {executed_dir(profile).resolve(), (root / "claims.jsonl").resolve()}
    skip |= {p.resolve() for p in root.iterdir() if p.is_dir() and p.name in SCRATCH_PROFILES} if root.exists() else set()
    found: dict[str, tuple[int, int]] = {}
    if not root.exists():
        return found
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


def run_stage(p: Plan, profile: str, log: Any = print) -> dict[str, Any]:
    """Execute one planned stage; returns its manifest entry or raises StageFailed."""
    import papermill

    for name, value in p.parameters.items():
        path = missing_path(p.declared[name], value, results_dir(profile))
        if path is not None:
            raise ParameterError(f"stage {p.stage.name!r}: {name}={value!r} does not exist{_looked_in(value, profile)}; "
                                 f"run the stages it depends on ({list(p.stage.depends)}) first "
                                 f"or pass -p {name} PATH")
    out_dir = executed_dir(profile)
    results = results_dir(profile)
    running, failed = out_dir / ".running", out_dir / "failed"
    for d in (running, failed):
        d.mkdir(parents=True, exist_ok=True)
    source = running / f"{p.stage.name}.source.ipynb"
    nbformat.write(prepare_notebook(p), source)
    partial = running / f"{p.stage.name}.ipynb"
    entry: dict[str, Any] = {
        "status": "running", "profile": profile, "notebook": p.stage.notebook, "parameters": p.parameters,
        "source_sha256": sha256_file(REPO_ROOT / p.stage.notebook), "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    update_manifest(p.stage.name, entry, profile)
    before = _snapshot(results, profile)
    env_before = {k: os.environ.get(k) for k in (PROFILE_ENV, STAGE_ENV)}
    os.environ[PROFILE_ENV], os.environ[STAGE_ENV] = profile, p.stage.name
    t0 = time.monotonic()
    log(f"[{p.stage.name}] executing {p.stage.notebook} (profile {profile}"
        + (f", {p.parameters}" if p.parameters else "") + ")")
    logging.getLogger("papermill").setLevel(logging.ERROR)  # its parameter sniffing warns on `# range:` comments
    try:
        papermill.execute_notebook(str(source), str(partial), parameters=p.parameters, kernel_name="python3",
                                   cwd=str(REPO_ROOT), progress_bar=False, log_output=False)
    except Exception as e:  # papermill raises PapermillExecutionError for a failing cell, others for the kernel
        error = f"{getattr(e, 'ename', type(e).__name__)}: {getattr(e, 'evalue', e)}".strip()
        entry.update(status="failed", seconds=round(time.monotonic() - t0, 1), error=error)
        target = failed / f"{p.stage.name}.ipynb"
        if partial.exists():
            os.replace(partial, target)
        (out_dir / f"{p.stage.name}.ipynb").unlink(missing_ok=True)
        update_manifest(p.stage.name, entry, profile)
        raise StageFailed(_failure_message(p, e, target)) from e
    finally:
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        source.unlink(missing_ok=True)
    os.replace(partial, out_dir / f"{p.stage.name}.ipynb")
    (failed / f"{p.stage.name}.ipynb").unlink(missing_ok=True)
    after = _snapshot(results, profile)
    outputs = {rel: sha256_file(results / rel) for rel, sig in sorted(after.items()) if before.get(rel) != sig}
    entry.update(status="ok", seconds=round(time.monotonic() - t0, 1), outputs=outputs)
    update_manifest(p.stage.name, entry, profile)
    log(f"[{p.stage.name}] done in {entry['seconds']} s -> {out_dir / (p.stage.name + '.ipynb')}")
    return entry


def run(profile: str = "default", overrides: list[tuple[str, str]] | None = None, only: str | None = None,
        log: Any = print, stages: list[Stage] | None = None) -> list[dict[str, Any]]:
    """Validate every selected stage, then execute them in order, stopping at the first failure."""
    plans = plan(profile, overrides or [], only, stages)
    return [run_stage(p, profile, log) for p in plans]


def incomplete_stages(stages: list[Stage] | None = None, profile: str = "default") -> list[str]:
    """Reasons the executed notebooks of `profile` cannot be published as a complete book (empty when they can)."""
    manifest = read_manifest(profile)["stages"]
    reasons = []
    for s in ordered_stages(stages):
        entry = manifest.get(s.name)
        fix = f"run `llmcreativity run --stage {s.name}`"
        if entry is not None and entry["status"] != "ok":
            reasons.append(f"stage {s.name!r} is {entry['status']} ({entry.get('error', '')}); fix it and {fix}")
        elif entry is None or not executed_notebook(s, profile).exists():
            reasons.append(f"stage {s.name!r} has not been executed; {fix}")
        elif entry["source_sha256"] != sha256_file(REPO_ROOT / s.notebook):
            reasons.append(f"stage {s.name!r}: {s.notebook} changed after it was executed; {fix}")
    return reasons


def executed_notebook(stage: Stage, profile: str = "default") -> Path:
    """Path of a stage's executed notebook under `profile`."""
    return executed_dir(profile) / f"{stage.name}.ipynb"

