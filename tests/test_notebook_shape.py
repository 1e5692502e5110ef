"""Every stage notebook teaches and calls the library: no smoke switch, short code cells, exercises at the end."""

from __future__ import annotations

import re

import jupytext
import pytest

from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.stages import STAGES

MAX_CELL_LINES = 15
"""Longest non-parameter code cell allowed (lines, blank lines included)."""


def code_cells(stage):
    nb = jupytext.read(REPO_ROOT / stage.notebook)
    return [c for c in nb.cells if c.cell_type == "code"], nb


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_no_code_cell_knows_about_smoke(stage):
    cells, _ = code_cells(stage)
    assert not [c.source for c in cells if "smoke" in c.source]


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_code_cells_are_short(stage):
    cells, _ = code_cells(stage)
    sizes = [len(c.source.splitlines()) for c in cells if "parameters" not in c.metadata.get("tags", [])]
    assert max(sizes) <= MAX_CELL_LINES


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_chapter_ends_with_exercises_whose_commands_rerun_this_stage(stage):
    _, nb = code_cells(stage)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    exercises = text[text.rindex("## Exercises"):]
    commands = re.findall(r"^llmcreativity run --stage (\S+) --profile smoke( -p \S+ .+)?$", exercises, re.M)
    assert 2 <= exercises.count("{dropdown}") <= 3
    assert stage.name in {s for s, _ in commands}
