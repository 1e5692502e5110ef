"""Planning a run: every selected stage's parameter values, resolved and checked before anything runs.

Values: the notebook's defaults, then the profile's, then `-p name value` overrides (a bare name
applies to every stage declaring it; `stage.name` to that stage only). Checked: types and ranges,
model names against the registry (`# registry:` parameters, see `parameters`), and input paths set
by the profile or `-p`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jupytext
import nbformat

from ..paths import REPO_ROOT, results_dir
from .manifest import read_manifest
from .order import find_stage, ordered_stages
from .parameters import (
    Parameter,
    ParameterError,
    check_value,
    missing_path,
    parse_cli_value,
    parse_parameters,
    registry_problems,
)
from .stages import Stage


@dataclass(frozen=True)
class Plan:
    """One stage ready to run: its validated parameter values."""

    stage: Stage
    """The stage."""
    profile: str
    """The profile it runs under (its results folder is `results_dir(profile)`)."""
    parameters: dict[str, Any]
    """Values passed to papermill (profile and overrides on top of the notebook defaults)."""
    declared: dict[str, Parameter]
    """The notebook's parameters cell, for path checks and display."""


def load_notebook(stage: Stage) -> nbformat.NotebookNode:
    """The stage's MyST notebook read by jupytext."""
    path = REPO_ROOT / stage.notebook
    if not path.exists():
        raise FileNotFoundError(f"stage {stage.name!r}: notebook {stage.notebook} not found; "
                                "fix the path in lib/llmcreativity/pipeline/stages.py")
    return jupytext.read(path)


def parameters_cell_index(nb: nbformat.NotebookNode, where: str) -> int:
    """Index of the single code cell tagged `parameters`."""
    hits = [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(hits) != 1:
        raise ParameterError(f"{where}: needs exactly one code cell tagged `parameters`, found {len(hits)}")
    return hits[0]


def declared_parameters(stage: Stage) -> dict[str, Parameter]:
    """The parameters the stage's notebook declares (model roles from their `# registry:` comments)."""
    nb = load_notebook(stage)
    return parse_parameters(nb.cells[parameters_cell_index(nb, stage.notebook)].source, stage.notebook)


def split_override(key: str, stage_names: set[str]) -> tuple[str | None, str]:
    """`stage.name` -> (stage, name); a plain `name` -> (None, name), meaning every stage declaring it."""
    head, dot, tail = key.partition(".")
    if dot and head in stage_names:
        return head, tail
    return None, key


def missing_input(p: Plan, name: str) -> str | None:
    """Why parameter `name` of plan `p` names an input that does not exist, or None when it is fine."""
    value = p.parameters[name]
    path = missing_path(p.declared[name], value, results_dir(p.profile))
    if path is None:
        return None
    looked = "" if Path(value).is_absolute() else f" (looked under {REPO_ROOT} and {results_dir(p.profile)})"
    return f"stage {p.stage.name!r}: {name}={value!r} does not exist{looked}"


def _values(s: Stage, params: dict[str, Parameter], profile: str, overrides: list[tuple[str, str]],
            names: set[str], used: set[str], problems: list[str]) -> dict[str, Any]:
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
    return values


def plan(profile: str, overrides: list[tuple[str, str]], only: str | None = None,
         stages: list[Stage] | None = None) -> list[Plan]:
    """Resolve and validate every selected stage's parameters before anything runs.

    Every problem of every stage is collected into one ParameterError. Input paths inside the
    results folder are not required yet when a stage this one depends on runs earlier in this run
    and may still write them (they are checked when their stage starts).
    """
    ordered = ordered_stages(stages)
    names = {s.name for s in ordered}
    selected = [find_stage(only, ordered)] if only else ordered
    if only:
        done = read_manifest(profile)["stages"]
        missing = [d for d in selected[0].depends if done.get(d, {}).get("status") != "ok"]
        if missing:
            again = "" if profile == "default" else f" --profile {profile}"
            raise ParameterError(f"stage {only!r} reads the outputs of {missing}, which have not run successfully; "
                                 f"run them first (`llmcreativity run --stage {missing[0]}{again}`) or run every stage")
    problems: list[str] = []
    used: set[str] = set()
    plans: list[Plan] = []
    declared = {s.name: declared_parameters(s) for s in selected}
    results = results_dir(profile).resolve()
    for s in selected:
        params = declared[s.name]
        if profile not in s.profiles:
            problems.append(f"stage {s.name!r} has no profile {profile!r} (it has {sorted(s.profiles)}); "
                            "add it to lib/llmcreativity/pipeline/stages.py")
            continue
        p = Plan(s, profile, _values(s, params, profile, overrides, names, used, problems), params)
        problems += registry_problems(params, p.parameters, f"stage {s.name!r}")
        upstream = any(d in {x.name for x in selected} for d in s.depends)
        for name, value in p.parameters.items():
            why = missing_input(p, name)
            if why is None:
                continue
            written_later = upstream and missing_path(params[name], value, results).resolve().is_relative_to(results)
            if not written_later:
                problems.append(f"{why}; pass an existing path with -p {name} PATH")
        plans.append(p)
    for key, _ in overrides:
        if key not in used:
            target, name = split_override(key, names)
            scope = [s for s in selected if target in (None, s.name)]
            known = sorted({n for s in scope for n in declared[s.name]})
            problems.append(f"-p {key}: no selected stage declares a parameter {name!r}; known: {known}")
    if problems:
        raise ParameterError("invalid parameters, nothing was run:\n  - " + "\n  - ".join(problems))
    return plans
