"""The run's records are typed: no public function of the record, manifest or ledger modules takes or returns an
untyped `dict[str, Any]` (a JSON object kept as written, a stage's parameter values or a stored claims row, is named
`record_file.JsonObject`)."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = ("llmcreativity.record_file", "llmcreativity.pipeline.record_export", "llmcreativity.pipeline.record_compare",
           "llmcreativity.pipeline.record_page", "llmcreativity.pipeline.manifest", "llmcreativity.pipeline.ledger")
"""The record's format, export and import, comparison and page text; the run manifest; the claims ledger."""


def untyped(module: str) -> list[str]:
    """`function: parameter` for every public function of `module` (its own, or a public method of its own classes)
    whose annotation is a bare `dict[str, Any]`."""
    mod = importlib.import_module(module)
    functions = [(n, f) for n, f in vars(mod).items() if inspect.isfunction(f) and f.__module__ == module]
    functions += [(f"{c}.{n}", f) for c, cls in vars(mod).items() if inspect.isclass(cls) and cls.__module__ == module
                  for n, f in vars(cls).items() if inspect.isfunction(f)]
    return [f"{name}: {arg}" for name, f in functions if not name.split(".")[-1].startswith("_")
            for arg, hint in f.__annotations__.items() if "dict[str, Any]" in str(hint)]


@pytest.mark.parametrize("module", MODULES)
def test_no_public_function_takes_or_returns_an_untyped_dict(module):
    assert untyped(module) == []


def test_an_untyped_dict_is_found(tmp_path, monkeypatch):
    (tmp_path / "loose_records.py").write_text(
        "from __future__ import annotations\nfrom typing import Any\n\n"
        "def read(path: str) -> dict[str, Any]:\n    return {}\n\n"
        "def _private(x: dict[str, Any]) -> None:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert untyped("loose_records") == ["read: return"]
