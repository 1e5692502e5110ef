"""One way to store a record: a dataclass as a JSON object and back, with a schema version.

A record's JSON form (`to_json`) is its fields in declaration order, each value in its own JSON form: a nested
dataclass as its object, a tuple as a list, anything else as it is. Reading it back (`from_json`) builds each field
from its type hint: nested dataclasses, tuples, lists, dicts and optional values are rebuilt, and a key the class
does not have, or a required field that is missing, is an error naming it.

Schema versions: a class's `SCHEMA_VERSION` (1 when it sets none) is written under "schema" only from 2 on, so every
record written before versions existed is a version-1 record and reads as it always did. A class whose stored form
changes raises its version and defines `upgrade_row(row, schema)`, a classmethod that turns a row of an older (or
the current) version into the current form; a row of a newer version than the code knows is refused.

A class whose stored form is not its fields (a flat form that stored files and cache keys already hold, e.g.
`writing.frameworks.WritingConfig`) defines `to_dict()` and a `from_dict(row)` classmethod; both functions use them.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Point:
...     x: float
...     tags: tuple[str, ...] = ()
>>> to_json(Point(1.5, ("a",)))
{'x': 1.5, 'tags': ['a']}
>>> from_json(Point, {"x": 1.5, "tags": ["a"]})
Point(x=1.5, tags=('a',))
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

R = TypeVar("R")

SCHEMA_KEY = "schema"
"""The key of a record's schema version; absent means version 1."""


def schema_version(cls: type) -> int:
    """The schema version `cls` writes: its `SCHEMA_VERSION`, 1 when it sets none."""
    return int(getattr(cls, "SCHEMA_VERSION", 1))


def to_json(record: Any) -> dict[str, Any]:
    """The JSON form of a dataclass record: {"schema": version} from version 2 on, then each field in order, nested
    dataclasses as objects and tuples as lists (`json.dumps` of it is the record's stored line)."""
    if not is_dataclass(record) or isinstance(record, type):
        raise TypeError(f"{record!r} is not a dataclass record; to_json stores dataclass instances")
    own = getattr(type(record), "to_dict", None)
    if own is not None:
        stored: dict[str, Any] = own(record)
        return stored
    version = schema_version(type(record))
    row: dict[str, Any] = {SCHEMA_KEY: version} if version > 1 else {}
    row.update((f.name, _encode(getattr(record, f.name))) for f in fields(record))
    return row


def _encode(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return to_json(value)
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def from_json(cls: type[R], row: Mapping[str, Any]) -> R:
    """The `cls` record stored as `row` (the inverse of `to_json`); unknown or missing keys, or a schema newer than
    `cls` knows, raise ValueError naming them."""
    own = getattr(cls, "from_dict", None)
    if own is not None:
        built: R = own(dict(row))
        return built
    if not (isinstance(cls, type) and is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass; from_json builds dataclass records")
    data = dict(row)
    version, current = int(data.pop(SCHEMA_KEY, 1)), schema_version(cls)
    if version > current:
        raise ValueError(f"a {cls.__name__} record of schema {version}: this code reads schemas up to {current}; "
                         "update llmcreativity to read it")
    upgrade = getattr(cls, "upgrade_row", None)
    if upgrade is not None:
        data = upgrade(data, version)
    elif version < current:
        raise ValueError(f"{cls.__name__} is at schema {current} but defines no upgrade_row for schema {version}")
    known = {f.name: f for f in fields(cls) if f.init}
    unknown = sorted(set(data) - set(known))
    missing = sorted(name for name, f in known.items()
                     if name not in data and f.default is MISSING and f.default_factory is MISSING)
    if unknown or missing:
        raise ValueError(f"a {cls.__name__} row has unknown keys {unknown} / lacks {missing}")
    hints = _hints(cls)
    return cls(**{name: _decode(hints[name], value) for name, value in data.items()})


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _decode(hint: Any, value: Any) -> Any:
    """`value` (parsed JSON) as the type `hint` says: dataclasses, tuples, lists and dict values rebuilt."""
    if value is None:
        return None
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return _decode(options[0], value) if len(options) == 1 else value
    if origin is Literal:
        return value
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        return tuple(_decode(a, v) for a, v in zip(args, value, strict=True)) if args else tuple(value)
    if origin is list:
        return [_decode(args[0], v) for v in value] if args else list(value)
    if origin is dict:
        return {k: _decode(args[1], v) for k, v in value.items()} if args else dict(value)
    if isinstance(hint, type) and is_dataclass(hint):
        return from_json(hint, value)
    return value
