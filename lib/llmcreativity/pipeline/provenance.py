"""What produced an executed notebook: models, parameters, input data hashes, package versions.

The runner adds two cells to every stage notebook: `start_recording(stage)` right after the
parameters (it installs an audit hook that notes every file the kernel opens for reading inside
the data or results folders) and `show_provenance(stage, parameters)` at the end, which prints
the record as Markdown tables. Inputs that a library reads without Python's `open` (pyarrow's
Parquet reader) are still listed: the outputs of the stages this one depends on come from the
run manifest with their hashes.

`current_run()` identifies the run a kernel belongs to, for the claims ledger: the runner gives every
`llmcreativity run` one run id and passes it, with the hash of the stage's parameters, to the kernel
through its context (`context.KernelContext.run_id`, `params_sha256`; and records both in the manifest).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..context import INTERACTIVE_RUN, kernel_context
from ..hashing import sha256_file
from ..paths import REPO_ROOT, current_profile, data_dir, results_dir

if TYPE_CHECKING:
    from ..llm.call_policy import CallPolicy
    from ..llm.roles import RoleUse

PACKAGES = ("llmcreativity", "numpy", "pandas", "scipy", "statsmodels", "scikit-learn", "torch", "transformers",
            "sentence-transformers", "llama_cpp_python", "sacrebleu", "matplotlib", "papermill")
"""Distributions whose versions are reported (those installed)."""

_reads: set[str] = set()
_writes: set[str] = set()
_roots: tuple[str, ...] = ()
_skip: str = ""
_hook_installed = False


@dataclass(frozen=True)
class InputFile:
    """A file the stage read."""

    path: str
    """Location, shown as `data/...` or `results/...` relative to those folders, else absolute."""
    size: int
    """Bytes."""
    sha256: str
    """Hex SHA-256 of the bytes."""
    source: str
    """How it was found: `opened` by the kernel, or `output of <stage>` from the run manifest."""


@dataclass(frozen=True)
class ModelUse:
    """A model backend or embedder that `get_backend` / `get_embedder` handed out in the kernel."""

    identity: str
    """The backend's identity string (model and every output-changing setting)."""
    kind: str
    """Class name of the object."""
    calls: int | None
    """Calls recorded by its caching wrappers, summed; None when the objects keep no account."""
    device: str = ""
    """Where a local model ran ("cpu", "cuda:0"); empty for an endpoint."""
    traffic: str = ""
    """An endpoint's requests, most in flight, tokens per second and retries in this kernel
    (`RequestCounts.summary`); empty for a local model."""


@dataclass(frozen=True)
class Provenance:
    """Everything shown in a notebook's provenance section."""

    stage: str
    """Stage name."""
    profile: str
    """Parameter profile of the run (`default`, `paper`, or `interactive` outside the runner)."""
    parameters: dict[str, Any]
    """Final values of the notebook's parameters."""
    models: tuple[ModelUse, ...]
    """Backends and embedders created in the kernel."""
    inputs: tuple[InputFile, ...]
    """Data and results files read."""
    packages: dict[str, str]
    """Distribution -> version, plus `python`."""
    commit: str
    """Git commit of the project, or `unknown`."""
    notebook_sha256: str
    """SHA-256 of the stage's MyST source, or empty when the stage is not registered."""
    executed_at: str
    """Local time the record was made."""
    run_id: str = INTERACTIVE_RUN
    """Id of the run (`current_run`); the claims this notebook recorded carry the same id."""
    params_sha256: str = ""
    """Hash of the parameter values the runner passed (`parameters_hash`); empty outside the runner."""
    roles: tuple[RoleUse, ...] = ()
    """The model roles the kernel filled (`llm.roles.RoleUse`): role, spec, endpoint and the model it serves."""
    policies: tuple[tuple[CallPolicy, tuple[str, ...]], ...] = ()
    """How the kernel's model calls were answered and reported (`llm.call_policy.CallPolicy`: computed, cached or
    replay-only; spot-checked; where logged and counted), each distinct policy with the identities of the models
    that followed it; the run's policy with no identity when no model was handed out. Display only."""


@dataclass(frozen=True)
class RunIdentity:
    """Which run produced a number: enough to tell whether it is the latest run of its stage."""

    run_id: str
    """Id of the `llmcreativity run` (one per invocation), or `INTERACTIVE_RUN`."""
    profile: str
    """Parameter profile of the run."""
    params_sha256: str
    """First 16 hex digits of the SHA-256 of the stage's parameter values (`parameters_hash`); empty outside
    the runner."""
    models: tuple[str, ...]
    """Identities of the models the kernel had loaded when the number was recorded."""
    roles: tuple[str, ...] = ()
    """`ROLE: IDENTITY` of each model role the kernel had filled (an endpoint's identity names its URL and model)."""


def parameters_hash(parameters: dict[str, Any]) -> str:
    """First 16 hex digits of SHA-256 of the parameters as sorted-key JSON (non-JSON values by `str`)."""
    import hashlib

    text = json.dumps(parameters, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def current_run() -> RunIdentity:
    """The run this kernel belongs to, from the runner's environment variables and the loaded models."""
    try:
        models = tuple(m.identity for m in _models())
        roles = tuple(dict.fromkeys(f"{r.role}: {r.identity}" for r in _roles()))
    except Exception:  # `llm` is unavailable (a bare process): no model was handed out
        models, roles = (), ()
    context = kernel_context()
    return RunIdentity(context.run_id or INTERACTIVE_RUN, current_profile(), context.params_sha256 or "", models, roles)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _roots:
        return
    path, mode, flags = args
    if not isinstance(path, (str, os.PathLike)):
        return
    full = os.path.abspath(os.fspath(path))
    if not full.startswith(_roots) or full.startswith(_skip):
        return
    writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & (os.O_WRONLY | os.O_RDWR))
    (_writes if writing else _reads).add(full)


def start_recording(stage: str) -> None:
    """Begin noting the files this kernel reads under the data and results folders (`stage` is for readers)."""
    global _roots, _skip, _hook_installed
    _skip = os.path.abspath(results_dir() / "executed") + os.sep  # notebooks and manifest are bookkeeping
    _roots = tuple(os.path.abspath(p) + os.sep for p in (data_dir(), results_dir()))
    _reads.clear()
    _writes.clear()
    if not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True


def _shown(path: Path) -> str:
    for label, root in (("data", data_dir()), ("results", results_dir())):
        try:
            return f"{label}/{path.resolve().relative_to(root.resolve()).as_posix()}"
        except ValueError:
            continue
    return str(path)


def _inputs(stage: str) -> list[InputFile]:
    global _roots
    roots, _roots = _roots, ()  # stop recording while hashing
    try:
        found: dict[str, InputFile] = {}
        for full in sorted(_reads - _writes):
            p = Path(full)
            if p.is_file():
                found[_shown(p)] = InputFile(_shown(p), p.stat().st_size, sha256_file(p), "opened")
        from .manifest import MANIFEST_FILE, read_manifest_file

        entries = read_manifest_file(results_dir() / "executed" / MANIFEST_FILE).stages
        if entries:
            from .stages import STAGES

            depends = next((s.depends for s in STAGES if s.name == stage), ())
            for dep in (d for d in depends if d in entries):
                for rel, digest in entries[dep].outputs.items():
                    p = results_dir() / rel
                    if p.is_file():
                        found.setdefault(_shown(p), InputFile(_shown(p), p.stat().st_size, digest, f"output of {dep}"))
        return sorted(found.values(), key=lambda f: f.path)
    finally:
        _roots = roots


def _models() -> list[ModelUse]:
    """The models `llm` handed out, one row per identity with the calls of all its objects summed."""
    from ..llm.cache_wrapping import loaded_models
    from ..llm.request_stats import RequestCounts, combine_counts

    uses: dict[str, ModelUse] = {}
    counts: dict[str, list[RequestCounts]] = {}
    for m in loaded_models():
        calls = None if m.records is None else len(m.records)
        old = uses.get(m.identity)
        if old is not None and old.calls is not None and calls is not None:
            calls += old.calls
        if m.requests is not None:
            counts.setdefault(m.identity, []).append(m.requests.counts())
        uses[m.identity] = ModelUse(m.identity, m.kind, calls, m.device or (old.device if old else ""))
    for identity, parts in counts.items():
        uses[identity] = replace(uses[identity], traffic=combine_counts(parts).summary())
    return sorted(uses.values(), key=lambda m: m.identity)


def _policies() -> tuple[tuple[CallPolicy, tuple[str, ...]], ...]:
    """Each distinct call policy of the models `llm` handed out, with their identities (first use first); the run's
    policy (`CallPolicy.from_context`) when none was handed out."""
    from ..llm.cache_wrapping import loaded_models
    from ..llm.call_policy import CallPolicy

    followed: dict[CallPolicy, list[str]] = {}
    for m in loaded_models():
        if m.policy is not None and m.identity not in followed.setdefault(m.policy, []):
            followed[m.policy].append(m.identity)
    if not followed:
        return ((CallPolicy.from_context(), ()),)
    return tuple((policy, tuple(identities)) for policy, identities in followed.items())


def _roles() -> tuple[RoleUse, ...]:
    """Each distinct model role the kernel filled, in the order first filled."""
    from ..llm.roles import role_uses

    return tuple(dict.fromkeys(role_uses()))


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown (no commit)"


def package_versions() -> dict[str, str]:
    """Versions of the reported distributions that are installed, plus the Python version."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return found


def collect(stage: str, parameters: dict[str, Any], notebook: str | None = None) -> Provenance:
    """The provenance record of the running notebook (`notebook`: its MyST source, else looked up in STAGES)."""
    from .stages import STAGES

    notebook = notebook or next((s.notebook for s in STAGES if s.name == stage), None)
    source = REPO_ROOT / notebook if notebook else None
    context = kernel_context()
    return Provenance(
        stage=stage,
        profile=current_profile(),
        parameters=dict(parameters),
        models=tuple(_models()),
        inputs=tuple(_inputs(stage)),
        packages=package_versions(),
        commit=_commit(),
        notebook_sha256=sha256_file(source) if source and source.exists() else "",
        executed_at=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        run_id=context.run_id or INTERACTIVE_RUN,
        params_sha256=context.params_sha256 or "",
        roles=_roles(),
        policies=_policies(),
    )


def _cell(value: Any) -> str:
    return repr(value).replace("|", "\\|").replace("\n", " ")


def _policy_sentence(policy: CallPolicy, identities: tuple[str, ...], policies: int) -> str:
    """One call policy in words; naming the models that followed it when the kernel's models followed several."""
    whose = "Model calls" if policies == 1 else "Calls of " + ", ".join(f"`{i}`" for i in identities)
    return f"- {whose}: {policy.describe(_shown)}."


def to_markdown(p: Provenance) -> str:
    """The record as Markdown tables."""
    lines = [f"Stage `{p.stage}`, profile `{p.profile}`, run `{p.run_id}` "
             f"(parameters `{p.params_sha256 or 'unknown'}`), executed {p.executed_at}, project commit `{p.commit}`, "
             f"notebook source SHA-256 `{p.notebook_sha256[:16] or 'unknown'}`.",
             ""]
    lines += [_policy_sentence(policy, identities, len(p.policies)) for policy, identities in p.policies]
    lines += ["", "| model | object | calls | device | endpoint traffic |", "|---|---|---|---|---|"]
    lines += [f"| `{m.identity}` | {m.kind} | {'' if m.calls is None else m.calls} | {m.device or 'endpoint'} | "
              f"{m.traffic} |" for m in p.models]
    if not p.models:
        lines.append("| (no model was loaded) | | | | |")
    if p.roles:
        lines += ["", "| role | model | endpoint | served model | notes |", "|---|---|---|---|---|"]
        lines += [f"| `{r.role}` | `{r.identity}` | {r.endpoint or 'local'} | `{r.served_model}` | "
                  f"{r.notes.replace('|', chr(92) + '|')} |" for r in p.roles]
    lines += ["", "| parameter | value |", "|---|---|"]
    lines += [f"| `{k}` | `{_cell(v)}` |" for k, v in p.parameters.items()]
    lines += ["", "| input file | bytes | SHA-256 (first 16) | found as |", "|---|---|---|---|"]
    lines += [f"| `{f.path}` | {f.size} | `{f.sha256[:16]}` | {f.source} |" for f in p.inputs]
    if not p.inputs:
        lines.append("| (none) | | | |")
    lines += ["", "Packages: " + ", ".join(f"{k} {v}" for k, v in p.packages.items()) + "."]
    return "\n".join(lines)


def show_provenance(stage: str, parameters: dict[str, Any], notebook: str | None = None) -> None:
    """Display the provenance record of the running notebook as Markdown tables."""
    from IPython.display import Markdown, display

    display(Markdown(to_markdown(collect(stage, parameters, notebook))))
