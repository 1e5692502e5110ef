"""The parameter profiles as data: one file per profile, `profiles/<name>.yaml` beside this module.

A profile file holds only the values its profile sets, on top of each notebook's own defaults (`planning` adds the
`-p` overrides on top of it). Its keys:

- `run`: the run settings of every local model, `dtype` and `device` (`planning.run_settings`);
- parts, each a mapping stage -> parameter -> value (`choices`, `sizes`, ...: the names are the file's own);
- `layers`: the parts the profile's values are merged from, in order, a later part's value winning: a part of the
  file itself by its name, another file's as `PROFILE.PART`. Every part of a file is one of its layers.

So the `pilot` profile is `published.choices` at its own `sizes`: each fact is written in one file, and a profile
that builds on another names the part it takes. The files are YAML, read as `-p NAME VALUE` values are
(`parameters.parse_cli_value`): `null` is the notebooks' None. What each profile is for, and how the recorded ones
ran, is the book's appendix, `book/history.md`.

>>> layered("pilot", "semantic_entropy")["n_samples"], layered("decisive", "semantic_entropy")["n_samples"]
(6, 10)
>>> origin("pilot", "baselines", "writer"), origin("pilot", "baselines", "n_categories")
('published.yaml, choices', 'pilot.yaml, sizes')
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PROFILE_DIR = Path(__file__).with_name("profiles")
"""The folder of the profile files (package data: `pyproject.toml` ships it)."""
PROFILES = ("default", "pilot", "published", "decisive-pilot", "decisive", "smoke", "paper")
"""Every profile, each a file `PROFILE_DIR/<name>.yaml`, in the order a stage lists them (`Stage.profiles`)."""
SUFFIX = ".yaml"
"""The profile files' suffix."""

Part = dict[str, dict[str, Any]]
"""Stage -> parameter -> value: one part of a profile file."""


class ProfileFileError(ValueError):
    """A profile file that cannot be read as a profile: the message names the file and the fix."""


@dataclass(frozen=True)
class ProfileFile:
    """One profile file, as written."""

    name: str
    """The profile's name (the file's stem)."""
    layers: tuple[str, ...]
    """The parts its values are merged from, in order: `PART` of this file, `PROFILE.PART` of another."""
    run: dict[str, str]
    """Its run settings, {"dtype": ..., "device": ...}."""
    parts: dict[str, Part]
    """Its own parts by name."""


def profile_path(name: str) -> Path:
    """The file of profile `name`."""
    return PROFILE_DIR / f"{name}{SUFFIX}"


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key written twice in one mapping (plain YAML keeps the last silently)."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    keys = [loader.construct_object(k, deep=deep) for k, _ in node.value]
    twice = sorted({str(k) for k in keys if keys.count(k) > 1})
    if twice:
        raise ProfileFileError(f"{node.start_mark.name}, line {node.start_mark.line + 1}: {twice} written twice; "
                               "keep one")
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)

_VALUE_TYPES = (bool, int, float, str, type(None))


def _check_value(value: Any, where: str) -> None:
    """Refuse a value no notebook parameter takes (a date, say, which YAML reads from `2026-12-01`)."""
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, _VALUE_TYPES) for v in items):
        raise ProfileFileError(f"{where}: {value!r} is a {type(value).__name__}; write a number, a string (quoted "
                               "where YAML would read another type), true/false, null or a list of those")


def _check_part(part: Any, where: str) -> Part:
    """`part` as a mapping stage -> parameter -> value, or a ProfileFileError naming what is not."""
    if not isinstance(part, dict) or not all(isinstance(v, dict) for v in part.values()):
        raise ProfileFileError(f"{where}: write a part as stage -> parameter -> value (a mapping of mappings)")
    for stage, values in part.items():
        for name, value in values.items():
            _check_value(value, f"{where}.{stage}.{name}")
    return part


@cache
def _read(name: str) -> ProfileFile:
    path = profile_path(name)
    if not path.exists():
        raise ProfileFileError(f"no profile {name!r}: {path} does not exist; choose one of {list(PROFILES)}")
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # a safe loader
    where = path.name
    if not (isinstance(data, dict) and isinstance(data.get("layers"), list) and isinstance(data.get("run"), dict)):
        raise ProfileFileError(f"{where}: needs `layers` (a list of parts) and `run` (dtype, device)")
    parts = {k: _check_part(v, f"{where}: {k}") for k, v in data.items() if k not in ("layers", "run")}
    layers = tuple(str(x) for x in data["layers"])
    unused = [p for p in parts if p not in layers]
    if unused:
        raise ProfileFileError(f"{where}: the parts {unused} are not among its layers {list(layers)}; list them")
    return ProfileFile(name, layers, {str(k): str(v) for k, v in data["run"].items()}, parts)


def _layer(profile: str, layer: str) -> tuple[str, Part]:
    """(the file, the part) that `layer` of `profile`'s file names."""
    owner, dot, part = layer.rpartition(".")
    owner = owner if dot else profile
    parts = _read(owner).parts
    if part not in parts:
        raise ProfileFileError(f"{profile}{SUFFIX}: layer {layer!r}: {owner}{SUFFIX} has no part {part!r} "
                               f"(it has {list(parts)})")
    return f"{owner}{SUFFIX}, {part}", parts[part]


def part(profile: str, name: str) -> Part:
    """Part `name` of `profile`'s own file, stage -> parameter -> value, in the file's order (a copy)."""
    return copy.deepcopy(_layer(profile, name)[1])


def merged(*parts: Part) -> Part:
    """`parts` merged stage by stage, a later part's value of a parameter winning (stages in order of first
    appearance)."""
    out: Part = {}
    for p in parts:
        for stage, values in p.items():
            out[stage] = {**out.get(stage, {}), **copy.deepcopy(values)}
    return out


def layered(profile: str, stage: str) -> dict[str, Any]:
    """The values `profile` sets for `stage`: its layers' values for it merged in order (empty: the notebook's
    defaults throughout)."""
    return merged(*(_layer(profile, layer)[1] for layer in _read(profile).layers)).get(stage, {})


def origin(profile: str, stage: str, name: str) -> str | None:
    """Where `profile` sets parameter `name` of `stage`, as "FILE, PART" (the last layer that sets it); None when it
    leaves it to the notebook."""
    found = None
    for layer in _read(profile).layers:
        where, values = _layer(profile, layer)
        if name in values.get(stage, {}):
            found = where
    return found


def stage_profiles(stage: str) -> dict[str, dict[str, Any]]:
    """Profile -> the values it sets for `stage`, for every profile (`Stage.profiles`)."""
    return {profile: layered(profile, stage) for profile in PROFILES}


def run_settings() -> dict[str, dict[str, str]]:
    """Profile -> its run settings (`run` of its file)."""
    return {profile: dict(_read(profile).run) for profile in PROFILES}


def unknown_stages(stages: set[str]) -> list[str]:
    """One message per stage a profile file's part names that is not in `stages` (a typo would set nothing)."""
    return [f"{profile_path(p).name}: part {name!r} sets stage {s!r}, which is not one of {sorted(stages)}"
            for p in PROFILES for name, values in _read(p).parts.items() for s in values if s not in stages]
