"""The kernel context: the one reader of the project's environment variables."""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

import llmcreativity
import llmcreativity_book
from llmcreativity import paths
from llmcreativity.context import (
    USER_VARIABLES,
    KernelContext,
    PerFile,
    child_environment,
    kernel_context,
    kernel_environment,
    use_results,
    variable,
)

CONTEXT = Path(llmcreativity.__file__).parent / "context.py"
LIBRARY = [*Path(llmcreativity.__file__).parent.rglob("*.py"), *Path(llmcreativity_book.__file__).parent.rglob("*.py")]
ENVIRONMENT = {"environ", "getenv", "putenv", "unsetenv"}


def _project_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("LLMCREATIVITY_")


def environment_uses(source: str) -> list[str]:
    """What a module's source does with the environment, outside messages: each `os.environ` / `os.getenv` use
    (through any alias of `os`, or `from os import environ`), and each constant naming a project variable
    (`X = "LLMCREATIVITY_..."`, through which a read could hide). A statement that only sets a default for a
    variable of another library (`os.environ.setdefault("HF_HUB_OFFLINE", "1")`) is allowed."""
    tree = ast.parse(source)
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
               if a.name == "os"}
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "os"
                for a in n.names if a.name in ENVIRONMENT}
    allowed: set[int] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault"
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "environ"
                and node.args and isinstance(node.args[0], ast.Constant) and not _project_name(node.args[0])):
            allowed.add(id(node.func.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"line {node.lineno}: from os import {a.name}" for a in node.names if a.name in ENVIRONMENT]
        elif (isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT and isinstance(node.value, ast.Name)
              and node.value.id in aliases and id(node) not in allowed):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in imported:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _project_name(node.value):
            found.append(f"line {node.lineno}: a constant naming {node.value.value}")
    return found


def test_no_module_but_the_context_touches_the_environment():
    uses = {str(f): environment_uses(f.read_text()) for f in LIBRARY if f != CONTEXT}
    assert {f: u for f, u in uses.items() if u} == {}
    assert environment_uses(CONTEXT.read_text())  # the detector sees the context's own reads


@pytest.mark.parametrize("source, flagged", [
    ('import os\nSTAGE = "LLMCREATIVITY_STAGE"\ndef f():\n    return os.environ.get(STAGE)\n', 2),
    ('from os import environ\nx = environ["LLMCREATIVITY_RESULTS"]\n', 2),
    ('import os as o\nx = o.getenv("LLMCREATIVITY_DATA")\n', 1),
    ('import os\nfor k in os.environ:\n    pass\n', 1),
    ('import os\nos.environ.setdefault("LLMCREATIVITY_RESULTS", "x")\n', 1),
    ('import os\nos.environ.setdefault("HF_HUB_OFFLINE", "1")\n', 0),
    ('def f():\n    raise FileNotFoundError("download it or set LLMCREATIVITY_DATA")\n', 0),
    ('import os\nx = os.path.join("a", "LLMCREATIVITY_DATA")\n', 0),
])
def test_the_detector_finds_reads_through_constants_and_aliases_not_mentions(source, flagged):
    assert len(environment_uses(textwrap.dedent(source))) == flagged


def test_a_context_goes_through_the_environment_and_back_unchanged(monkeypatch):
    for name in list(os.environ):
        if name.startswith("LLMCREATIVITY_"):
            monkeypatch.delenv(name)
    context = KernelContext(results=Path("/r"), profile="smoke", stage="review", run_id="r1", params_sha256="ab",
                            call_log=Path("/l.jsonl"), cache_only=True, dtype="float32", max_concurrency="4")
    assert kernel_context() == KernelContext()
    with kernel_environment(context, {"SOME_LIBRARY_SETTING": "1"}):
        assert kernel_context() == context
        assert os.environ["LLMCREATIVITY_CACHE_ONLY"] == "1" and os.environ["SOME_LIBRARY_SETTING"] == "1"
    assert kernel_context() == KernelContext() and "SOME_LIBRARY_SETTING" not in os.environ


def test_a_default_for_another_library_never_replaces_the_users_setting(monkeypatch):
    monkeypatch.setenv("SOME_LIBRARY_SETTING", "mine")
    with kernel_environment(KernelContext(), {"SOME_LIBRARY_SETTING": "1"}):
        assert os.environ["SOME_LIBRARY_SETTING"] == "mine"
    assert os.environ["SOME_LIBRARY_SETTING"] == "mine"


def test_the_users_folders_work_outside_the_runner(monkeypatch, tmp_path):
    monkeypatch.delenv("LLMCREATIVITY_PROFILE", raising=False)
    monkeypatch.setenv("LLMCREATIVITY_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "c"))
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "r"))
    assert (paths.data_dir(), paths.cache_dir(), paths.results_root()) == (tmp_path / "d", tmp_path / "c",
                                                                           tmp_path / "r")
    assert paths.current_profile() == "interactive"
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", "")  # empty is unset: the project's own folder
    assert paths.results_root() == paths.REPO_ROOT / "results"


def test_results_folder_moves_and_a_child_process_gets_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "mine"))
    use_results(tmp_path / "other", unless_set=True)
    assert paths.results_root() == tmp_path / "mine"
    env = child_environment(results=tmp_path / "child")
    assert env["LLMCREATIVITY_RESULTS"] == str(tmp_path / "child") and paths.results_root() == tmp_path / "mine"
    use_results(tmp_path / "other")
    assert paths.results_root() == tmp_path / "other"


def test_flags_are_off_unset_empty_or_zero(monkeypatch):
    for value, on in [("", False), ("0", False), ("1", True), ("yes", True)]:
        monkeypatch.setenv("LLMCREATIVITY_NO_LOCAL_LM", value)
        assert kernel_context().no_local_lm is on


def test_a_field_that_does_not_exist_is_named_with_the_choices():
    with pytest.raises(ValueError, match="'results_dir' is not a field of the kernel context: choose one of"):
        variable("results_dir")


def test_the_users_variables_are_documented_where_a_user_reads():
    text = (paths.REPO_ROOT / "book" / "rerun.md").read_text() + (paths.REPO_ROOT / "README.md").read_text()
    missing = [variable(name) for name in USER_VARIABLES if variable(name) not in text]
    assert missing == []


def test_per_file_builds_one_object_per_file_and_runs_its_first_hook_once(tmp_path):
    built, hooks = [], []
    per = PerFile(lambda p: built.append(p) or [p], on_first=lambda: hooks.append(1))
    assert per.get(None) is None and hooks == []
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first = per.get(a)
    assert per.get(a) is first and per.get(Path(str(a))) is first
    assert per.get(b) == [b] and built == [a, b] and hooks == [1]
    assert per.all() == [[a], [b]]
