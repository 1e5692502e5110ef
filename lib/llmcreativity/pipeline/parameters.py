"""A notebook's `parameters` cell: read its declared defaults, and check values against them.

The cell tagged `parameters` holds one plain assignment per line, for example

    temperature: float = 0.8      # range: [0, 2]
    judge: str = "rubric"         # choices: ["rubric", "chateval"]
    writer: str = "smollm2-135m"  # registry: model
    stories_path: str = "results/stories.jsonl"

A parameter's comment is its line's trailing comment together with the comment lines directly above
it, so a long one can sit on lines of its own:

    # choices: ["first", "second", "third", "fourth", "fifth",
    #           "sixth", "seventh"]
    option: str = "first"

The annotation (or, without one, the default's type) is the parameter's type. A
`# range: [lo, hi]` comment bounds a number (either end may be `None`); `# choices: [...]`
lists the allowed values; `# registry: model` (or `embedder`) says the parameter is a model role
(`llm.roles`): its value, or each item of a list, is a local model that must load (a registry name of
that kind, a local folder, or a transformers model id) or an endpoint spec `URL#MODEL`, whose server
is probed before the run (`llmcreativity run -p base_url URL -p model NAME` sets every language-model
role, see `planning`). Parameters whose names end in `_path`, `_file` or `_dir` are input paths: when
a profile or `-p` sets one, it must exist (absolute, or relative to the project root, where notebooks
run, or to the results folder) unless empty. A notebook's own default path is the notebook's business
(it may be an optional input).
Names starting with `out` are outputs.

**Every parameter states its kind**, as a comment clause of its own (between semicolons, or a comment line alone):

    n_resamples: int = 1000  # range: [100, 100000]; analysis; bootstrap resamples of every CI
    temperature: float = 0.8  # generating

- `analysis`: changing it changes no model call of its stage: it only reads what the calls answered (a bootstrap
  size, a CI level, a threshold or cut-off applied to answers already computed, an estimator, a seed that draws
  only resamples). A replay of a record accepts a changed analysis parameter (`record.check_parameters`), so a
  chapter is re-analysed against the published record without computing anything. What it changes in the stage's
  output files reaches a later stage only as data read from them; a later stage whose calls change with that data
  asks them live (`run --from-record`) or stops on a replay miss, never answers them wrongly.
- `generating`: changing it may change a model call (a prompt, a sample size, a sampling setting, which items are
  judged, a threshold that decides which questions are asked next). When unsure, it is generating.

A generating parameter added after a record was made says `added after recording` when its default is what the code
did before it existed: a record that lacks it then reads as made at that default, and still replays.

A model role (`# registry:`) names a model: it is generating by nature and states nothing more (stating
`analysis` for it is an error). The rule, checked over every stage's notebook by `unstated_kinds` (a test), is
that every other parameter states one of the two words, so no parameter reaches the stage table unclassified.
Outside the stage table (a notebook of the tests), a parameter that states nothing reads as generating, the safe
default: a replay compares it with the record.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from ..llm.registry import LLAMACPP_PREFIX, ModelKind, check_model_name
from ..llm.roles import is_endpoint_spec, parse_role
from ..paths import REPO_ROOT, results_dir

_SIMPLE_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str,
                                  "list": list, "dict": dict, "tuple": tuple}
_PATH_SUFFIXES = ("_path", "_file", "_dir")
Role = Literal["model", "embedder"]
"""What a `# registry:` comment says a parameter names."""
Effect = Literal["analysis", "generating"]
"""A parameter's kind as its comment states it: `analysis` (changes no model call) or `generating`."""
EFFECTS: tuple[Effect, ...] = ("analysis", "generating")
_ROLE_KINDS: dict[str, ModelKind] = {"model": "causal-lm", "embedder": "embedder"}


class ParameterError(ValueError):
    """A parameter value, profile or override that cannot be used; the message says how to fix it."""


@dataclass(frozen=True)
class Parameter:
    """One assignment of a notebook's `parameters` cell."""

    name: str
    """Variable name in the notebook."""
    default: Any
    """The literal default value."""
    kind: type
    """Expected type (bool, int, float, str, list, dict or tuple)."""
    optional: bool
    """True when None is also allowed (`X | None` annotation or a None default)."""
    low: float | None = None
    """Inclusive lower bound from a `# range:` comment."""
    high: float | None = None
    """Inclusive upper bound from a `# range:` comment."""
    choices: tuple[Any, ...] | None = None
    """Allowed values from a `# choices:` comment."""
    registry: Role | None = None
    """From a `# registry:` comment: a model role; the value (each item of a list) names a language model or an
    embedder, local or `URL#MODEL`."""
    effect: Effect | None = None
    """The kind its comment states (`analysis` or `generating`); None when it states none (a model role, or a
    notebook outside the stage table): generating."""
    read_when: tuple[str, tuple[Any, ...]] | None = None
    """From a `# read when: other == value` (or `other in [a, b]`) clause: the notebook reads this parameter only when
    parameter `other` has one of these values; elsewhere a `-p` of it changes nothing and is refused
    (`inert_override`)."""
    added: bool = False
    """From an `# added after recording` clause: a generating parameter added after a record was made, whose default
    is what the code did before it existed; a record that lacks it was made at that default
    (`record.parameter_differences`), so it stays replayable."""

    @property
    def analysis(self) -> bool:
        """True when changing it changes no model call (its comment says `analysis`); everything else is
        generating."""
        return self.effect == "analysis"

    @property
    def is_input_path(self) -> bool:
        """True for parameters naming a file or folder the notebook reads."""
        return self.name.endswith(_PATH_SUFFIXES) and not self.name.startswith("out")

    def describe(self) -> str:
        """Type, default and constraints in one line, for messages and `--dry-run`."""
        text = f"{self.kind.__name__}{' | None' if self.optional else ''} (default {self.default!r})"
        if self.low is not None or self.high is not None:
            text += f", range [{self.low}, {self.high}]"
        if self.choices is not None:
            text += f", one of {list(self.choices)}"
        if self.registry is not None:
            text += f", {'an' if self.registry == 'embedder' else 'a'} {self.registry} role: a local {self.registry} " \
                    "name or URL#MODEL"
        if self.analysis:
            text += ", analysis only (changes no model call)"
        return text


def _kind_of(annotation: ast.expr | None, default: Any, where: str) -> tuple[type, bool]:
    if annotation is None:
        if default is None:
            raise ParameterError(f"{where}: a None default needs an annotation such as `str | None`")
        return type(default), False
    optional = False
    node = annotation
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [node.left, node.right]
        nones = [s for s in sides if isinstance(s, ast.Constant) and s.value is None]
        if len(nones) != 1:
            raise ParameterError(f"{where}: only `X | None` unions are supported, got {ast.unparse(annotation)!r}")
        optional = True
        node = sides[0] if sides[1] is nones[0] else sides[1]
    if isinstance(node, ast.Subscript):
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in _SIMPLE_TYPES:
        raise ParameterError(f"{where}: annotation {ast.unparse(annotation)!r} is not one of "
                             f"{sorted(_SIMPLE_TYPES)} (optionally `| None`)")
    return _SIMPLE_TYPES[node.id], optional or default is None


def _constraints(comment: str, where: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    m = re.search(r"range:\s*(\[[^\]]*\])", comment)
    if m:
        try:
            low, high = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError, TypeError):
            raise ParameterError(f"{where}: cannot read `range: {m.group(1)}`; write `# range: [0, 1]`") from None
        found["low"], found["high"] = low, high
    m = re.search(r"choices:\s*(\[[^\]]*\])", comment)
    if m:
        try:
            found["choices"] = tuple(ast.literal_eval(m.group(1)))
        except (ValueError, SyntaxError):
            raise ParameterError(f"{where}: cannot read `choices: {m.group(1)}`; "
                                 "write `# choices: [\"a\", \"b\"]`") from None
    m = re.search(r"read when:\s*(\w+)\s*(==|in)\s*(\"[^\"]*\"|\[[^\]]*\]|[^;#]+)", comment)
    if m:
        try:
            value = ast.literal_eval(m.group(3).strip())
        except (ValueError, SyntaxError):
            raise ParameterError(f"{where}: cannot read `read when: {m.group(0)[len('read when:'):].strip()}`; "
                                 'write `# read when: judge == "embedding"` or `# read when: judge in ["a", "b"]`'
                                 ) from None
        found["read_when"] = (m.group(1), tuple(value) if m.group(2) == "in" else (value,))
    if re.search(r"\badded after recording\b", comment):
        found["added"] = True
    m = re.search(r"registry:\s*(\w*)", comment)
    if m:
        if m.group(1) not in _ROLE_KINDS:
            raise ParameterError(f"{where}: `registry: {m.group(1)}` is not one of {sorted(_ROLE_KINDS)}; "
                                 "write `# registry: model` or `# registry: embedder`")
        found["registry"] = m.group(1)
    return found


def _comment_lines(lines: list[str], lineno: int) -> list[str]:
    """The comment lines of the statement on line `lineno` (1-based): those directly above it, then its own
    trailing comment (each without its `#`)."""
    first = lineno - 1
    while first > 0 and lines[first - 1].lstrip().startswith("#"):
        first -= 1
    own = lines[lineno - 1]
    above = [line.lstrip()[1:] for line in lines[first:lineno - 1]]
    return [*above, own.split("#", 1)[1] if "#" in own else ""]


def _effect(comment_lines: list[str], where: str) -> Effect | None:
    """The kind a parameter's comment states: a clause (text between semicolons on one comment line) that is exactly
    `analysis` or `generating`; None when none is."""
    stated = {clause.strip() for line in comment_lines for clause in line.split(";")} & set(EFFECTS)
    if len(stated) > 1:
        raise ParameterError(f"{where}: its comment states both `analysis` and `generating`; keep the one that is "
                             "true (generating when it may change a model call)")
    return next((e for e in EFFECTS if e in stated), None)


def parse_parameters(source: str, where: str) -> dict[str, Parameter]:
    """Parameters declared by the source of a `parameters` cell; `where` names the notebook in errors."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise ParameterError(f"{where}: the parameters cell is not valid Python ({e})") from None
    lines = source.splitlines()
    params: dict[str, Parameter] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            name, annotation, value = stmt.target.id, stmt.annotation, stmt.value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, annotation, value = stmt.targets[0].id, None, stmt.value
        else:
            raise ParameterError(f"{where}, parameters cell line {stmt.lineno}: write one `name: type = literal` "
                                 f"per line, got {ast.unparse(stmt)!r}")
        at = f"{where}, parameter {name!r}"
        try:
            default = ast.literal_eval(value)
        except ValueError:
            raise ParameterError(f"{at}: the default {ast.unparse(value)!r} is not a plain literal") from None
        kind, optional = _kind_of(annotation, default, at)
        comment = _comment_lines(lines, stmt.lineno)
        param = Parameter(name, default, kind, optional, **_constraints(" ".join(comment), at),
                          effect=_effect(comment, at))
        if param.registry is not None and kind not in (str, list):
            raise ParameterError(f"{at}: a `# registry:` parameter must be a str or a list of str, not {kind.__name__}")
        if param.registry is not None and param.analysis:
            raise ParameterError(f"{at}: a model role (`# registry:`) names a model, so changing it changes model "
                                 "calls: remove `analysis` from its comment")
        check_value(param, default, f"{at} (its own default)")
        params[name] = param
    return params


def inert_override(params: dict[str, Parameter], values: dict[str, Any], name: str, where: str) -> str | None:
    """Why a `-p name` override changes nothing under the run's other `values` (its `read_when` condition is false),
    naming the fix; None when the notebook reads it."""
    p = params.get(name)
    if p is None or p.read_when is None:
        return None
    other, allowed = p.read_when
    if other not in values or values[other] in allowed:
        return None
    wanted = " or ".join(repr(v) for v in allowed)
    return (f"-p {name}: {where} reads {name!r} only when {other!r} is {wanted} (this run: {values[other]!r}), so it "
            f"would change nothing; add -p {other} {allowed[0]} to use it, or drop it")


def unstated_kinds(params: dict[str, Parameter], where: str) -> list[str]:
    """One message per parameter of `params` (a stage notebook's, `where` names it) whose comment states no kind
    although it must: every parameter but a model role (`# registry:`) says `analysis` or `generating`."""
    return [f"{where}, parameter {p.name!r}: its comment states no kind; add `; analysis` when changing it changes no "
            "model call (it only reads what the calls answered), else `; generating` (when unsure, generating)"
            for p in params.values() if p.effect is None and p.registry is None]


def registry_problems(params: dict[str, Parameter], values: dict[str, Any], where: str) -> list[str]:
    """Messages for every model role in `values` (else the defaults) that cannot be used.

    A local name must load from the registry (or be a folder or transformers id); an endpoint spec must read
    `URL#MODEL` (its server is probed later, `roles.check_role`). An empty name means "no model" and is not
    checked.
    """
    def value(name: str) -> Any:
        return values[name] if name in values else params[name].default

    problems = []
    for param in params.values():
        if param.registry is None:
            continue
        current = value(param.name)
        names = current if isinstance(current, list) else [current]
        for name in names:
            if name in (None, ""):
                continue
            try:
                if is_endpoint_spec(str(name)) or str(name).startswith(LLAMACPP_PREFIX):
                    parse_role(str(name), param.name)
                    continue
                check_model_name(str(name), _ROLE_KINDS[param.registry])
            except (KeyError, ValueError) as e:
                problems.append(f"{where}: {param.name}={current!r}: {e.args[0]}; "
                                f"pass another with -p {param.name} NAME")
    return problems


def check_value(param: Parameter, value: Any, where: str) -> Any:
    """Return `value` (ints widened to float where a float is expected) or raise naming the fix."""
    fix = f"give {param.name} a value of type {param.describe()}"
    if value is None:
        if param.optional:
            return None
        raise ParameterError(f"{where}: {param.name} may not be None; {fix}")
    if param.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if param.kind is tuple and isinstance(value, list):
        value = tuple(value)
    of_kind = isinstance(value, param.kind)  # a flag: narrowing by `param.kind` would hide that a number is checked
    if param.kind in (int, float) and isinstance(value, bool) or not of_kind:
        raise ParameterError(f"{where}: {param.name}={value!r} is a {type(value).__name__}; {fix}")
    if param.kind is float and not math.isfinite(value):
        raise ParameterError(f"{where}: {param.name}={value!r} is not finite; {fix}")
    if param.low is not None and value < param.low or param.high is not None and value > param.high:
        raise ParameterError(f"{where}: {param.name}={value!r} is outside [{param.low}, {param.high}]; {fix}")
    if param.choices is not None and value not in param.choices:
        raise ParameterError(f"{where}: {param.name}={value!r} is not one of {list(param.choices)}")
    return value


def parse_cli_value(param: Parameter, text: str, where: str) -> Any:
    """Convert the command-line text of `-p name text` to the parameter's type, then check it."""
    if param.optional and text in ("None", "null", "none"):
        return check_value(param, None, where)
    if param.kind is str:
        value: Any = text
    elif param.kind is bool:
        lowered = text.lower()
        if lowered not in ("true", "false", "1", "0", "yes", "no"):
            raise ParameterError(f"{where}: {param.name} expects true or false, got {text!r}")
        value = lowered in ("true", "1", "yes")
    elif param.kind in (int, float):
        try:
            value = param.kind(text)
        except ValueError:
            raise ParameterError(f"{where}: {param.name} expects {param.kind.__name__}, got {text!r}; "
                                 f"e.g. -p {param.name} {param.default!r}") from None
    else:
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            raise ParameterError(f"{where}: {param.name} expects a {param.kind.__name__} written as YAML/JSON, "
                                 f"e.g. -p {param.name} '[1, 2]', got {text!r}") from None
    return check_value(param, value, where)


def missing_path(param: Parameter, value: Any, results: Path | None = None) -> Path | None:
    """None if `param` is not an input path, is empty, or exists; else the path as resolved.

    A relative path may lie under the project root or the results folder (`results`, default
    `results_dir()`); the result names the results-folder reading when it lies under neither, so a
    stage of this run may still write it.
    """
    if not param.is_input_path or value in (None, ""):
        return None
    path = Path(value)
    results = results_dir() if results is None else results
    candidates = [path] if path.is_absolute() else [REPO_ROOT / path, results / path]
    return None if any(c.exists() for c in candidates) else candidates[-1]
