"""The method's own code on the page (`llmcreativity_book.method_code`): the display shows the library's current
source, a name the table lacks is refused by name, every chapter shows its whole row of `CHAPTER_OBJECTS`, and (on
the smoke replay) every object a chapter shows was called by that chapter's run."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import textwrap

import nbformat
import pytest

from llmcreativity.pipeline.stages import STAGES
from llmcreativity_book import method_code
from llmcreativity_book.method_code import CHAPTER_OBJECTS, MAX_LINES, chapter_names, code_block, code_of, show_code
from locations import REPO


def _write_module(folder, name: str, body: str):
    (folder / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")


def test_a_block_shows_the_current_source_of_the_function_it_names(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _write_module(tmp_path, "shown_mod", """
        def estimate(xs):
            return sum(xs) / len(xs)
        """)
    module = importlib.import_module("shown_mod")
    block = code_block("shown_mod.estimate")
    assert "```python\ndef estimate(xs):\n    return sum(xs) / len(xs)\n```" in block
    assert block.startswith("`estimate` in `shown_mod.py` (lines 2-3):")

    _write_module(tmp_path, "shown_mod", """
        def estimate(xs):
            xs = sorted(xs)
            return xs[len(xs) // 2]
        """)
    importlib.reload(module)  # the library as the chapter's kernel would import it after the change
    block = code_block("shown_mod.estimate")
    assert "xs[len(xs) // 2]" in block and "sum(xs)" not in block
    sys.modules.pop("shown_mod", None)


def test_a_method_is_shown_dedented_under_its_class_qualified_name():
    block = code_block("llmcreativity.writing.frameworks.review.LLMReview.run")
    assert block.startswith("`LLMReview.run` in `llmcreativity/writing/frameworks/review.py` (lines ")
    assert "\ndef run(self, lm: Backend, item: PromptItem) -> Transcript:" in block


def test_a_missing_name_is_refused_naming_it():
    with pytest.raises(KeyError, match="'no_such_step'.*'review' row"):
        chapter_names("review", "no_such_step")
    with pytest.raises(KeyError, match="'nowhere'"):
        show_code("nowhere")
    with pytest.raises(LookupError, match="llmcreativity.entropy.stepwise.no_such_function"):
        code_of("llmcreativity.entropy.stepwise.no_such_function")
    with pytest.raises(TypeError, match="LLMReview.*not a function"):
        code_of("llmcreativity.writing.frameworks.review.LLMReview")


def test_a_function_longer_than_a_page_block_is_refused(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    body = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    (tmp_path / "long_mod.py").write_text(body, encoding="utf-8")
    with pytest.raises(ValueError, match="'long_mod.long' is 46 lines, over MAX_LINES"):
        code_block("long_mod.long")
    sys.modules.pop("long_mod", None)


def test_the_output_is_highlighted_python_markdown_and_the_fence_outlasts_backticks_in_the_code():
    shown = show_code("review", "step")
    assert type(shown).__name__ == "Markdown"
    assert "```python\ndef step(" in shown.data
    assert method_code._fence("a ```` b") == "`````"


def test_every_stage_has_a_row_and_every_object_resolves_to_a_short_function():
    assert set(CHAPTER_OBJECTS) == {s.name for s in STAGES}
    for chapter, names in CHAPTER_OBJECTS.items():
        assert names and len(set(names)) == len(names), chapter
        for name in names:
            code_block(name)  # resolves, is a function, and is at most MAX_LINES long


def _shown_in_chapter(notebook) -> list[tuple[str, tuple[str, ...]]]:
    """(chapter, names) of every `show_code(...)` call in a chapter's code cells."""
    calls = []
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)\n```", notebook.read_text(encoding="utf-8"), re.S)
    for cell in cells:
        source = "\n".join(line for line in cell.splitlines() if not line.startswith(":tags:"))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "show_code":
                args = [ast.literal_eval(a) for a in node.args]
                calls.append((args[0], tuple(args[1:])))
    return calls


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_each_chapter_shows_its_whole_row_of_the_table_and_nothing_else(stage):
    calls = _shown_in_chapter(REPO / stage.notebook)
    assert calls, f"{stage.notebook} shows no library code (method_code.show_code)"
    shown = []
    for chapter, names in calls:
        assert chapter == stage.name, f"{stage.notebook} shows another chapter's row: {chapter!r}"
        shown += chapter_names(chapter, *names)
    assert sorted(set(shown)) == sorted(CHAPTER_OBJECTS[stage.name])


@pytest.mark.slow
def test_every_object_a_chapter_shows_was_called_by_its_run_and_its_page_shows_it(smoke_replay):
    """The smoke replay's kernels were traced (`conftest.start_kernel_trace`): a shown object no call of its
    chapter's run reached is code the page would show but the run never used."""
    record, _, results, _, called = smoke_replay
    never = {}
    for chapter, names in CHAPTER_OBJECTS.items():
        assert chapter in record.stages, chapter
        trace = called / f"{chapter}.called"
        seen = set(trace.read_text(encoding="utf-8").splitlines()) if trace.exists() else set()
        missing = [n for n in names
                   if f"{code_of(n).co_filename}:{code_of(n).co_firstlineno}" not in seen]
        if missing:
            never[chapter] = missing
    assert never == {}

    for chapter, names in CHAPTER_OBJECTS.items():
        markdown = "".join(
            "".join(out.get("data", {}).get("text/markdown", ""))
            for cell in nbformat.read(results / "executed" / f"{chapter}.ipynb", as_version=4).cells
            if cell.cell_type == "code" for out in cell.get("outputs", []))
        for name in names:
            qualname = method_code.resolve(name).__qualname__
            assert f"`{qualname}` in `" in markdown and "```python\n" in markdown, (chapter, name)
