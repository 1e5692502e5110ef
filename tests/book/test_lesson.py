"""The book teaches the method and the findings: no project history in a chapter's prose or code comments (it
belongs to the appendix, book/history.md), every profile a page names defined where a reader looks it up, one
spelling for every command, exercises that state where they start and change something, and every chapter saying
how to open it in Jupyter."""

from __future__ import annotations

import io
import re
import shlex
import tokenize

import jupytext
import pytest
import yaml

from llmcreativity.paths import DECISIVE_RECORD, REPO_ROOT
from llmcreativity.pipeline.parameters import parse_cli_value
from llmcreativity.pipeline.planning import declared_parameters
from llmcreativity.pipeline.profile_files import layered
from llmcreativity.pipeline.stages import STAGES
from llmcreativity.record_file import read_record
from llmcreativity_book.exercises import chapter_exercises

BOOK = REPO_ROOT / "book"
APPENDIX = BOOK / "history.md"
"""The one page where the project's own history is told."""
PAGES = sorted(p for p in BOOK.glob("*.md") if p != APPENDIX)
"""The book's own pages but the appendix."""
START_PAGE = BOOK / "start.md"

HISTORY_WORDING = [
    "earlier rule", "older rule", "re-decision", "re-decided", "published run", "sitting", "an earlier run",
    "in this record", "this record was", "earlier version", "previous run", "from now on", "when it records again",
    "rule of this project", "this project used", "first published", "at the time",
]
"""Phrases that tell the project's history rather than the method or the findings (case-insensitive)."""
DATED_NOTE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
"""A dated note (2026-12-03)."""
ANNOTATION = re.compile(r"added after recording|read when:[^;#]*|choices:\s*\[[^\]]*\]?|range:\s*\[[^\]]*\]|"
                        r"registry:\s*\w*")
"""The clauses of a parameter's comment that the code reads (`pipeline.parameters`): syntax, not prose."""


def code_comments(source: str) -> list[str]:
    """The comments of a code cell, each without the clauses the parameter parser reads."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]  # IPython magics
    tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
    return [ANNOTATION.sub("", t.string) for t in tokens if t.type == tokenize.COMMENT]


def chapter_prose(path) -> str:
    """What a reader of a chapter reads as words: its markdown and its code cells' comments."""
    nb = jupytext.read(path)
    return "\n".join(c.source if c.cell_type == "markdown" else "\n".join(code_comments(c.source))
                     for c in nb.cells)


def history_found(text: str, where: str) -> list[str]:
    lowered = text.lower()
    found = [f"{where}: {phrase!r}" for phrase in HISTORY_WORDING if phrase in lowered]
    return found + [f"{where}: dated note {m.group(0)}" for m in DATED_NOTE.finditer(text)]


def test_the_history_check_finds_what_it_looks_for_and_skips_the_parameter_syntax():
    assert history_found("An earlier rule of this project ended the chain", "x") == [
        "x: 'earlier rule'", "x: 'rule of this project'"]
    assert history_found("read by hand (2026-12-03)", "x") == ["x: dated note 2026-12-03"]
    assert code_comments('decoding: str = "none"  # generating; added after recording\nx = 1  # in this record\n') \
        == ["# generating; ", "# in this record"]


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_no_chapter_tells_the_projects_history(stage):
    assert history_found(chapter_prose(REPO_ROOT / stage.notebook), stage.notebook) == []


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_book_page_but_the_appendix_tells_the_projects_history(page):
    assert history_found(page.read_text(), page.name) == []


PROFILE_NAMED = re.compile(r"--profile ([a-z][\w-]*)|\bprofile `([\w-]+)`|`([\w-]+)` profile")
"""A profile named on a page: a command's `--profile NAME`, "profile `NAME`" or "the `NAME` profile"."""


def named_profiles() -> dict[str, set[str]]:
    texts = {p.name: p.read_text() for p in [*PAGES, APPENDIX]}
    texts |= {s.notebook: (REPO_ROOT / s.notebook).read_text() for s in STAGES}
    return {where: {next(g for g in m.groups() if g) for m in PROFILE_NAMED.finditer(text)}
            for where, text in texts.items()}


def test_every_profile_a_page_names_is_defined_on_the_re_run_page_and_in_the_glossary():
    profiles = {p.stem for p in (REPO_ROOT / "lib" / "llmcreativity" / "pipeline" / "profiles").glob("*.yaml")}
    named = set().union(*named_profiles().values())
    assert {"smoke", "decisive", "default", "paper"} <= named
    assert named - profiles - {"interactive"} == set(), "a page names a profile that does not exist"
    rerun = (BOOK / "rerun.md").read_text()
    glossary = (BOOK / "glossary.md").read_text()
    for name in named | profiles:
        assert re.search(rf"^- `{re.escape(name)}`", rerun, re.M), f"the re-run page does not define {name!r}"
        assert re.search(rf"^  - `{re.escape(name)}`", glossary, re.M), f"the glossary does not define {name!r}"


def test_every_command_of_the_book_is_spelled_one_way():
    texts = {p.name: p.read_text() for p in [*PAGES, APPENDIX]}
    texts |= {s.notebook: (REPO_ROOT / s.notebook).read_text() for s in STAGES}
    other = {where: sorted(set(re.findall(r"\.venv/bin/(?:llmcreativity|python)\b", text)))
             for where, text in texts.items()}
    assert {w: o for w, o in other.items() if o} == {}
    assert "source .venv/bin/activate" in (BOOK / "rerun.md").read_text()  # how `llmcreativity` gets on the PATH


STARTS_FROM = re.compile(r"[Ss]tarts from `(\w+)` = (.+?) \((?:the smoke profile; this page: (.+?)|this page)\)")
"""How an exercise states the value it starts from: "Starts from `n_samples` = 4 (the smoke profile; this page: 10)"
(or "this page: the same") for a live exercise, "Starts from `estimator` = `mean` (this page)" for a re-analysis of
the record."""


def exercise_texts(stage):
    section = (REPO_ROOT / stage.notebook).read_text()
    section = section[section.rindex("## Exercises"):]
    starts = [m.start() for m in re.finditer(r"^\*\*\d+\.", section, re.M)] + [len(section)]
    return [section[a:b] for a, b in zip(starts, starts[1:], strict=False)]


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_every_exercise_states_where_it_starts_and_asks_for_another_value(stage):
    declared = declared_parameters(stage)
    smoke = layered("smoke", stage.name)
    recorded = read_record(REPO_ROOT / DECISIVE_RECORD).stages[stage.name].resolved_parameters
    assert chapter_exercises(stage)
    for text in exercise_texts(stage):
        stated = {m.group(1): m for m in STARTS_FROM.finditer(text)}
        for line in (line for line in text.splitlines() if line.startswith("llmcreativity run")):
            command = shlex.split(line)
            live = "--profile" in command
            asked = {command[i + 1]: command[i + 2] for i, word in enumerate(command) if word == "-p"}
            for name, value in asked.items():
                param = declared[name]
                start = (smoke.get(name, param.default) if live else recorded[name])
                where = f"{stage.notebook}: {line}"
                assert parse_cli_value(param, value, where) != start, f"{where}: asks for the value it starts from"
                assert name in stated, f"{where}: the exercise does not say it starts from `{name}` = ..."
                m = stated[name]
                assert parse_cli_value(param, m.group(2).strip("`\""), where) == start, f"{where}: wrong start"
                if live:
                    page = m.group(3)
                    page = start if page == "the same" else parse_cli_value(param, page.strip("`\""), where)
                    assert page == recorded[name], f"{where}: wrong value of this page"


@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_every_chapter_says_how_to_open_it_in_jupyter_and_under_which_profile(stage):
    text = (REPO_ROOT / stage.notebook).read_text()
    assert f"jupyter lab {stage.notebook}" in text
    assert "Open With → Jupytext Notebook" in text and "profile `interactive`" in text


def test_the_setup_installs_what_opens_a_chapter_in_jupyter():
    env = yaml.safe_load((REPO_ROOT / "environment.yml").read_text())
    pip = [line.split("#")[0].strip() for entry in env["dependencies"] if isinstance(entry, dict)
           for line in entry["pip"]]
    assert any(line.startswith("jupyterlab") for line in pip) and any(line.startswith("jupytext") for line in pip)


def test_the_start_page_is_in_the_table_of_contents_and_its_commands_are_the_chapters():
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text())
    assert toc["parts"][0]["chapters"] == [{"file": "start"}]
    text = START_PAGE.read_text()
    assert "45 minutes" in text and "90 minutes" in text and "Prerequisites" in text
    commands = [line for line in text.splitlines() if line.startswith("llmcreativity run")]
    chapters = "\n".join((REPO_ROOT / s.notebook).read_text() for s in STAGES)
    assert commands and all(c.split("  #")[0].strip() in chapters for c in commands)
