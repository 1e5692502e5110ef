"""Planning a run: every selected stage's parameter values, resolved and checked before anything runs.

Values: the notebook's defaults, then the profile's (its file, `profile_files`), then `-p name value` overrides (a
bare name applies to every stage declaring it; `stage.name` to that stage only); `Plan.origin` says which gave
each. Six names are run-wide options that no notebook declares (`RUN_OPTIONS`): `-p base_url URL -p model NAME`
sets every language-model role (`# registry: model` parameter) of every stage to `URL#NAME` (`model` alone: the
local model NAME), except roles set by their own `-p` and optional roles left empty;
`-p dtype float32|bfloat16|auto` and `-p device cpu|cuda|cuda:N|auto` are the run settings of every local model
(`Plan.settings`: the profile's `stages.RUN_SETTINGS`, the `run` of its file, then `-p NAME`, then
`-p STAGE.NAME`; "auto" where none is given), which the runner passes to each stage kernel (`context.KernelContext`)
as the defaults of `get_backend` and `get_embedder`;
`-p api_key_env NAME` and `-p max_concurrency N` are the endpoint settings of every endpoint role (`Plan.endpoint`:
`llm.endpoint_settings.ENDPOINT_DEFAULTS`, then `-p NAME`, then `-p STAGE.NAME`), passed to each kernel the same way
(`context.KernelContext`) as the defaults of `get_role_backend` and `get_role_embedder`; they
are operational (`ENDPOINT_OPTIONS`) and change no model call. Checked: types and ranges, the run and endpoint
settings' values (and that torch sees a CUDA device that one names), model roles (registry names, or `URL#MODEL`
specs whose servers are probed for what each role needs, see `llm.roles`), and input paths set by the profile or
`-p`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jupytext
import nbformat

from ..llm.device import check_dtype, resolve_device
from ..llm.endpoint_settings import ENDPOINT_DEFAULTS, check_endpoint_setting
from ..llm.probes import EndpointError, check_endpoint, missing_message
from ..llm.roles import CAPABILITY_USE, is_endpoint_spec, needs_of, parse_role, with_endpoint
from ..paths import REPO_ROOT, is_scratch, results_dir
from .manifest import read_manifest
from .order import find_stage, ordered_stages
from .parameters import (
    Parameter,
    ParameterError,
    check_value,
    inert_override,
    missing_path,
    parse_cli_value,
    parse_parameters,
    registry_problems,
)
from .profile_files import PROFILES, layered, origin, profile_path
from .stages import RUN_SETTINGS, Stage

ROLE_OPTIONS = ("base_url", "model")
"""`-p` names that set every language-model role of a run."""
SETTING_OPTIONS = ("dtype", "device")
"""`-p` names of the run settings of every local model (`Plan.settings`)."""
ENDPOINT_OPTIONS = tuple(ENDPOINT_DEFAULTS)
"""`-p` names of the endpoint settings of every endpoint role (`Plan.endpoint`): operational options, which change
no model call (no prompt, cache key, identity or generating parameter), so a record is replayed whatever they were
(`record.check_parameters`; records made before they were run-wide hold them among a stage's parameters)."""
RUN_OPTIONS = (*ROLE_OPTIONS, *SETTING_OPTIONS, *ENDPOINT_OPTIONS)
"""`-p` names that apply to a whole run rather than to one notebook parameter (a notebook may not declare them)."""
NOTEBOOK_DEFAULT = "notebook default"
"""The origin (`Plan.origin`) of a value that neither the profile nor `-p` sets."""
SETTING_DEFAULTS = {"dtype": "auto", "device": "auto"}
"""A run setting that neither the profile (`stages.RUN_SETTINGS`) nor `-p` gives: chosen per machine."""


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
    settings: dict[str, str] = field(default_factory=lambda: dict(SETTING_DEFAULTS))
    """The run settings of its local models, {"dtype": ..., "device": ...} (`SETTING_OPTIONS`), as given (not
    resolved on this machine): the kernel's `get_backend` / `get_embedder` defaults and the manifest's record."""
    endpoint: dict[str, Any] = field(default_factory=lambda: dict(ENDPOINT_DEFAULTS))
    """The endpoint settings of its endpoint roles, {"api_key_env": ..., "max_concurrency": ...}
    (`ENDPOINT_OPTIONS`): the kernel's `get_role_backend` / `get_role_embedder` defaults."""
    origins: dict[str, str] = field(default_factory=dict)
    """Name -> where its value in `parameters` comes from: "profile P: FILE, PART" (the profile file and part that
    set it; "profile P" alone for a stage outside the files), "-p NAME" or "-p STAGE.NAME" (for a model role set by
    the run-wide options, "-p model" or "-p base_url, -p model")."""

    def origin(self, name: str) -> str:
        """Where the value of declared parameter `name` comes from: `origins`, else "notebook default"."""
        return self.origins.get(name, NOTEBOOK_DEFAULT)


def load_notebook(stage: Stage) -> nbformat.NotebookNode:
    """The stage's MyST notebook read by jupytext."""
    path = REPO_ROOT / stage.notebook
    if not path.exists():
        raise FileNotFoundError(f"stage {stage.name!r}: notebook {stage.notebook} not found; "
                                "fix the path in lib/llmcreativity/pipeline/stages.py")
    nb: nbformat.NotebookNode = jupytext.read(path)
    return nb


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


def _run_options(overrides: list[tuple[str, str]], names: set[str]) -> dict[str | None, dict[str, str]]:
    """`-p base_url` / `-p model` (or `-p STAGE.base_url` ...) by target stage (None: every stage)."""
    found: dict[str | None, dict[str, str]] = {}
    for key, text in overrides:
        target, name = split_override(key, names)
        if name in ROLE_OPTIONS:
            found.setdefault(target, {})[name] = text
    return found


def _apply_run_options(s: Stage, params: dict[str, Parameter], values: dict[str, Any], explicit: set[str],
                       options: dict[str | None, dict[str, str]], origins: dict[str, str]) -> None:
    """Set every language-model role of stage `s` not in `explicit` from the run-wide base_url and model (their
    origin the `-p` keys that gave them)."""
    opts = {**options.get(None, {}), **options.get(s.name, {})}
    if not opts or opts.get("base_url") and not opts.get("model"):
        return  # reported once by `plan`
    keys = ", ".join(f"-p {s.name}.{n}" if n in options.get(s.name, {}) else f"-p {n}" for n in opts)
    for name, param in params.items():
        if param.registry == "model" and name not in explicit:
            values[name] = with_endpoint(values.get(name, param.default), opts.get("base_url", ""), opts["model"])
            origins[name] = keys


def _profile_origin(s: Stage, profile: str, name: str) -> str:
    """The origin of the value profile `profile` gives parameter `name` of `s`: the profile file and part that set
    it, when the stage's value is the one its file sets (a stage outside the files: the profile alone)."""
    unset = object()
    if profile in PROFILES and layered(profile, s.name).get(name, unset) == s.profiles[profile][name]:
        return f"profile {profile}: {origin(profile, s.name, name)}"
    return f"profile {profile}"


def _values(s: Stage, params: dict[str, Parameter], profile: str, overrides: list[tuple[str, str]],
            names: set[str], used: set[str], problems: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Stage `s`'s values as the profile and the overrides set them, and each one's origin (`Plan.origins`)."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    explicit: set[str] = set()
    for name in RUN_OPTIONS:
        if name in params:
            problems.append(f"stage {s.name!r}: the notebook declares {name!r}, a run-wide option of `llmcreativity "
                            "run`; name the model role instead (writer, rubric_judge, ...)")
    for name, value in s.profiles[profile].items():
        where = f"stage {s.name!r}, profile {profile!r}"
        if name not in params:
            problems.append(f"{where}: {name!r} is not in the notebook's parameters cell ({sorted(params)})")
            continue
        try:
            values[name] = check_value(params[name], value, where)
            origins[name] = _profile_origin(s, profile, name)
        except ParameterError as e:
            problems.append(str(e))
    for key, text in overrides:
        target, name = split_override(key, names)
        if target not in (None, s.name) or name not in params:
            continue
        used.add(key)
        explicit.add(name)
        try:
            values[name] = parse_cli_value(params[name], text, f"-p {key} (stage {s.name!r})")
            origins[name] = f"-p {key}"
        except ParameterError as e:
            problems.append(str(e))
    _apply_run_options(s, params, values, explicit, _run_options(overrides, names), origins)
    return values, origins


def check_setting(name: str, value: str) -> Any:
    """`value` of run or endpoint setting `name` when valid, else a ValueError naming the choices: a dtype of
    `llm.device.DTYPE_CHOICES`; a device of `DEVICE_CHOICES` that torch sees here ("auto" is not resolved); an
    endpoint setting as `llm.endpoint_settings.check_endpoint_setting` reads it (`max_concurrency` an int)."""
    if name == "dtype":
        return check_dtype(value)
    if name == "device":
        if value != "auto":
            resolve_device(value)  # the spelling, and that torch sees the CUDA device it names
        return value
    if name in ENDPOINT_OPTIONS:
        return check_endpoint_setting(name, value)
    raise ValueError(f"{name!r} is not a run setting: choose one of {[*SETTING_OPTIONS, *ENDPOINT_OPTIONS]}")


def setting_problems(profile: str, overrides: list[tuple[str, str]], names: set[str]) -> list[str]:
    """Why the profile's run settings (`stages.RUN_SETTINGS`) or a `-p dtype` / `-p device` / `-p api_key_env` /
    `-p max_concurrency` is invalid; one message per bad value, naming the option and its choices."""
    problems = []
    for name, value in RUN_SETTINGS.get(profile, {}).items():
        try:
            check_setting(name, value)
        except ValueError as e:
            problems.append(f"profile {profile!r}, run settings in {_relative(profile_path(profile))}: {e}")
    for key, text in overrides:
        name = split_override(key, names)[1]
        if name in (*SETTING_OPTIONS, *ENDPOINT_OPTIONS):
            try:
                check_setting(name, text)
            except ValueError as e:  # an endpoint setting's value is not repeated: it may be a key given by mistake
                problems.append(f"-p {key}: {e}" if name in ENDPOINT_OPTIONS else f"-p {key} {text}: {e}")
    return problems


def _relative(path: Path) -> str:
    """`path` relative to the project root, for messages."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def _scoped(settings: dict[str, Any], stage: str, overrides: list[tuple[str, str]], names: set[str]) -> dict[str, Any]:
    """`settings` with `-p NAME VALUE`, then `-p STAGE.NAME VALUE` on top for each of its names (the later wins)."""
    settings = dict(settings)
    for scope in (None, stage):
        for key, text in overrides:
            target, name = split_override(key, names)
            if name in settings and target == scope:
                settings[name] = text
    return settings


def run_settings(stage: str, profile: str, overrides: list[tuple[str, str]], names: set[str]) -> dict[str, str]:
    """The run settings of `stage`: "auto", then the profile's (`stages.RUN_SETTINGS`), then `-p NAME VALUE`, then
    `-p STAGE.NAME VALUE` (the later wins; values unchecked, see `setting_problems`)."""
    return _scoped({**SETTING_DEFAULTS, **RUN_SETTINGS.get(profile, {})}, stage, overrides, names)


def endpoint_settings(stage: str, overrides: list[tuple[str, str]], names: set[str]) -> dict[str, Any]:
    """The endpoint settings of `stage`: `ENDPOINT_DEFAULTS`, then `-p NAME VALUE`, then `-p STAGE.NAME VALUE`, each
    as it is used (`max_concurrency` an int); a bad value (reported by `setting_problems`) keeps the default."""
    settings = _scoped(ENDPOINT_DEFAULTS, stage, overrides, names)
    for name, value in settings.items():
        try:
            settings[name] = check_endpoint_setting(name, value)
        except ValueError:
            settings[name] = ENDPOINT_DEFAULTS[name]
    return settings


def endpoint_roles(plans: list[Plan]) -> dict[tuple[str, str], dict[str, list[str]]]:
    """(spec, key variable) -> role -> the stages that give `role` to the endpoint spec `spec`."""
    found: dict[tuple[str, str], dict[str, list[str]]] = {}
    for p in plans:
        key_env = p.endpoint["api_key_env"]
        for name, param in p.declared.items():
            value = p.parameters.get(name, param.default)
            for spec in value if isinstance(value, list) else [value]:
                if param.registry is not None and isinstance(spec, str) and is_endpoint_spec(spec):
                    found.setdefault((spec, key_env), {}).setdefault(name, []).append(p.stage.name)
    return found


def endpoint_problems(plans: list[Plan]) -> list[str]:
    """Every endpoint of `plans` probed once for what all its roles need (`probes.check_endpoint`).

    A failure of the endpoint itself (unreachable, key refused, model not served) is one message naming every
    role and stage that uses it; a missing capability is one message per role that needs it.
    """
    problems = []
    for (spec, key_env), roles in endpoint_roles(plans).items():
        parsed = parse_role(spec)
        needs = {c for role in roles for c in needs_of(role)}
        where = "; ".join(f"{role} in stage {', '.join(dict.fromkeys(stages))}" for role, stages in roles.items())
        try:
            report = check_endpoint(parsed.base_url, parsed.model, needs, api_key_env=key_env)
        except EndpointError as e:
            problems.append(f"{where}: {e}")
            continue
        for role, stages in roles.items():
            for c in report.missing(needs_of(role)):
                problems.append(f"stage {', '.join(dict.fromkeys(stages))}: "
                                + missing_message(role, report, c, CAPABILITY_USE[c]))
    return problems


def endpoint_summary(plans: list[Plan]) -> list[str]:
    """One line per endpoint of `plans` (already probed by `plan`, so answered from the probe cache): the model the
    server serves, each capability probed, and the roles that use it."""
    lines = []
    for (spec, key_env), roles in endpoint_roles(plans).items():
        parsed = parse_role(spec)
        report = check_endpoint(parsed.base_url, parsed.model, {c for r in roles for c in needs_of(r)},
                                api_key_env=key_env)
        found = ", ".join(f"{c} {'yes' if p.ok else 'no'}" + (f" ({p.detail})" if p.detail else "")
                          for c, p in report.probes.items())
        lines.append(f"{spec} serves {report.served_model!r} (key from ${key_env}); {found}; roles: "
                     + ", ".join(f"{r} ({', '.join(dict.fromkeys(st))})" for r, st in roles.items()))
    return lines


def missing_upstream(stage: Stage, profile: str, stages: list[Stage] | None = None) -> list[Stage]:
    """The stages whose outputs `stage` reads, directly or through each other, that have not run successfully under
    `profile`, in dependency order: what must run before it (behind a stage that ran, nothing is looked at: its
    outputs are there)."""
    ordered = ordered_stages(stages)
    by_name, done = {s.name: s for s in ordered}, read_manifest(profile).stages
    needed: set[str] = set()

    def visit(s: Stage) -> None:
        for d in s.depends:
            if (d not in done or done[d].status != "ok") and d not in needed:
                needed.add(d)
                visit(by_name[d])

    visit(stage)
    return [s for s in ordered if s.name in needed]


def upstream_line(plans: list[Plan], only: str | None) -> str:
    """What the plans of `--stage only` say as they start when they run its missing upstream stages first (the plans
    before the last); "" when they run none."""
    if not only or len(plans) < 2:
        return ""
    asked, upstream = plans[-1], [p.stage.name for p in plans[:-1]]
    return (f"stage {asked.stage.name!r} reads the outputs of {upstream}, which have not run successfully in the "
            f"{asked.profile!r} profile: running them first")


def _selected(profile: str, only: str | None, ordered: list[Stage], run_upstream: bool) -> list[Stage]:
    """The stages a plan runs: every stage; or `only`, after its missing upstream stages where `run_upstream` and the
    profile is a scratch one, else refused (ParameterError) while any of them is missing."""
    if not only:
        return ordered
    asked = find_stage(only, ordered)
    upstream = missing_upstream(asked, profile, ordered)
    if upstream and not (run_upstream and is_scratch(profile)):
        missing = [d for d in asked.depends if d in {s.name for s in upstream}]
        again = "" if profile == "default" else f" --profile {profile}"
        raise ParameterError(f"stage {only!r} reads the outputs of {missing}, which have not run successfully; "
                             f"run them first (`llmcreativity run --stage {missing[0]}{again}`) or run every stage")
    return [*upstream, asked]


def _upstream_override(key: str, stage: Stage, names: set[str]) -> bool:
    """Whether `-p key` applies to `stage` run as an upstream stage: a run-wide option, or scoped to `stage`."""
    target, name = split_override(key, names)
    return target == stage.name or target is None and name in RUN_OPTIONS


def plan(profile: str, overrides: list[tuple[str, str]], only: str | None = None,
         stages: list[Stage] | None = None, *, run_upstream: bool = False) -> list[Plan]:
    """Resolve and validate every selected stage's parameters before anything runs.

    Every problem of every stage is collected into one ParameterError. Input paths inside the
    results folder are not required yet when a stage this one depends on runs earlier in this run
    and may still write them (they are checked when their stage starts).

    `only` selects one stage; the stages whose outputs it reads must have run successfully under `profile`. With
    `run_upstream` in a scratch profile (`paths.SCRATCH_PROFILES`, e.g. smoke: a reader's exercise on a fresh clone),
    the missing ones are planned first (`missing_upstream`, `upstream_line` says so), with their profile's values,
    the run-wide options and their own `-p STAGE.NAME`; a bare `-p NAME` applies to `only` alone, as without them.
    Elsewhere a missing upstream stage is refused, naming the command that runs it: in the real profiles (default,
    paper), whose outputs are evidence, a `--stage` run never starts hours of other stages unasked; and in a replay
    or a record export (which pass no `run_upstream`), which handle exactly the stages asked for.
    """
    ordered = ordered_stages(stages)
    names = {s.name for s in ordered}
    selected = _selected(profile, only, ordered, run_upstream)
    upstream_stages = selected[:-1] if only else []
    problems: list[str] = setting_problems(profile, overrides, names)
    for target, opts in _run_options(overrides, names).items():
        if opts.get("base_url") and not opts.get("model"):
            scope = "" if target is None else f"{target}."
            problems.append(f"-p {scope}base_url {opts['base_url']} needs -p {scope}model NAME, the name the server "
                            "lists at its /models")
    used: set[str] = set()
    plans: list[Plan] = []
    declared = {s.name: declared_parameters(s) for s in selected}
    results = results_dir(profile).resolve()
    for s in selected:
        params = declared[s.name]
        if profile not in s.profiles:
            problems.append(f"stage {s.name!r} has no profile {profile!r} (it has {sorted(s.profiles)}); add its "
                            f"file {_relative(profile_path(profile))} and list it in `profile_files.PROFILES`")
            continue
        mine = [(k, t) for k, t in overrides if _upstream_override(k, s, names)] if s in upstream_stages else overrides
        values, origins = _values(s, params, profile, mine, names, used, problems)
        p = Plan(s, profile, values, params, run_settings(s.name, profile, mine, names),
                 endpoint_settings(s.name, mine, names), origins)
        problems += registry_problems(params, p.parameters, f"stage {s.name!r}")
        for key, _ in mine:
            target, name = split_override(key, names)
            if target in (None, s.name):
                inert = inert_override(params, p.parameters, name, f"stage {s.name!r}")
                problems += [inert] if inert else []
        upstream = any(d in {x.name for x in selected} for d in s.depends)
        for name, value in p.parameters.items():
            why = missing_input(p, name)
            if why is None:
                continue
            missing = missing_path(params[name], value, results)  # not None: `why` found it missing
            written_later = upstream and missing is not None and missing.resolve().is_relative_to(results)
            if not written_later:
                problems.append(f"{why}; pass an existing path with -p {name} PATH")
        plans.append(p)
    for key, _ in overrides:
        if split_override(key, names)[1] in RUN_OPTIONS:
            continue
        if key not in used:
            target, name = split_override(key, names)
            in_scope = [s for s in selected if target in (None, s.name)]
            known = sorted({n for s in in_scope for n in declared[s.name]})
            problems.append(f"-p {key}: no selected stage declares a parameter {name!r}; known: {known}")
    if not problems:
        problems = endpoint_problems(plans)
    if problems:
        raise ParameterError("invalid parameters, nothing was run:\n  - " + "\n  - ".join(problems))
    return plans
