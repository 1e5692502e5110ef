"""Every stage notebook teaches and calls the library: no smoke switch, short code cells that fit the page,
exercises at the end."""

from __future__ import annotations

import ast
import re
import shlex

import jupytext
import pytest

from llmcreativity.paths import DECISIVE_RECORD, REPO_ROOT
from llmcreativity.pipeline.parameters import parse_cli_value
from llmcreativity.pipeline.planning import declared_parameters
from llmcreativity.pipeline.stages import STAGES
from llmcreativity.record_file import read_record

MAX_CELL_LINES = 16
"""Longest non-parameter code cell allowed (lines, blank lines included; an import statement counts as one line
however it is wrapped)."""

MAX_LINE_LENGTH = 88
"""Longest code line allowed (characters, comments and parameters cells included): the book's column cuts off
anything wider."""


def code_cells(stage):
    nb = jupytext.read(REPO_ROOT / stage.notebook)
    return [c for c in nb.cells if c.cell_type == "code"], nb


def cell_lines(source: str) -> int:
    """Lines of a code cell as `MAX_CELL_LINES` counts them."""
    imports = [s for s in ast.parse(source).body if isinstance(s, ast.Import | ast.ImportFrom)]
    return len(source.splitlines()) - sum(s.end_lineno - s.lineno for s in imports)


def code_lines(stage):
    """(line number in the notebook file, line) for each line of its code cells, cell options included."""
    inside = False
    for number, line in enumerate((REPO_ROOT / stage.notebook).read_text().splitlines(), 1):
        if line.startswith("```{code-cell}"):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside:
            yield number, line


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_no_code_cell_knows_about_smoke(stage):
    cells, _ = code_cells(stage)
    assert not [c.source for c in cells if "smoke" in c.source]


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_code_cells_are_short(stage):
    cells, _ = code_cells(stage)
    sizes = [cell_lines(c.source) for c in cells if "parameters" not in c.metadata.get("tags", [])]
    assert max(sizes) <= MAX_CELL_LINES


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_code_lines_fit_the_page(stage):
    cells, _ = code_cells(stage)
    lines = list(code_lines(stage))
    too_long = [f"{stage.notebook}:{n}: {len(line)} characters" for n, line in lines if len(line) > MAX_LINE_LENGTH]
    assert len(lines) >= sum(len(c.source.splitlines()) for c in cells)  # every code line was looked at
    assert not too_long, f"code lines over {MAX_LINE_LENGTH} characters:\n" + "\n".join(too_long)


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_chapter_ends_with_exercises_whose_commands_rerun_this_stage(stage):
    _, nb = code_cells(stage)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    exercises = text[text.rindex("## Exercises"):]
    commands = re.findall(r"^llmcreativity run --stage (\S+) --profile smoke( -p \S+ .+)?$", exercises, re.M)
    assert 3 <= exercises.count("{dropdown}") <= 4
    assert stage.name in {s for s, _ in commands}


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_chapter_has_an_exercise_re_analysing_the_published_record_with_an_analysis_parameter(stage):
    _, nb = code_cells(stage)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    exercises = text[text.rindex("## Exercises"):]
    commands = [shlex.split(line) for line in exercises.splitlines()
                if line.startswith("llmcreativity run --replay")]
    declared = declared_parameters(stage)
    assert commands and "`make book` replays" in exercises
    for command in commands:
        assert command[:6] == ["llmcreativity", "run", "--replay", DECISIVE_RECORD, "--stage", stage.name]
        assert command[6] == "-p" and len(command) == 9, command
        param = declared[command[7]]
        assert param.analysis, f"{command[7]} is not an analysis parameter of {stage.name}: a replay refuses it"
        recorded = read_record(REPO_ROOT / DECISIVE_RECORD).stages[stage.name].resolved_parameters
        assert parse_cli_value(param, command[8], stage.notebook) != recorded[command[7]], "the record's own value"
