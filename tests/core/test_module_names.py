"""One name per module: no two modules of `lib/` share a file name, but `__init__.py` and each domain's
`pilot_readers.py` (the readers of its claims' pilot values, found by that name); CONTRIBUTING.md states the rule."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from llmcreativity.paths import REPO_ROOT

SHARED_BY_CONVENTION = frozenset({"__init__.py", "pilot_readers.py"})
"""File names several packages use on purpose."""


def shared_names(root: Path) -> dict[str, list[str]]:
    """File name -> the modules under `root` that carry it, for every name two or more modules share."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        where[path.name].append(path.relative_to(root).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1 and name not in SHARED_BY_CONVENTION}


def test_no_two_library_modules_share_a_file_name():
    assert shared_names(REPO_ROOT / "lib") == {}


def test_a_second_module_of_an_existing_name_is_found(tmp_path):
    for package in ("one", "two"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "runner.py").write_text("")
        (tmp_path / package / "pilot_readers.py").write_text("")
    assert shared_names(tmp_path) == {"runner.py": ["one/runner.py", "two/runner.py"]}


def test_the_convention_is_written_where_a_contributor_reads_it():
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "## Module names" in text and all(name in text for name in SHARED_BY_CONVENTION - {"__init__.py"})
