"""The `Stage` entry is the one place of a stage's facts: its outputs are named nowhere else, and a new stage needs
only its notebook and one entry (its outputs declared in `output_files`) for the runner, the run report, the
projection, the output paths and the ledger to know it."""

from __future__ import annotations

import ast
import re

import jupytext
import pytest

from llmcreativity import output_files, outputs
from llmcreativity.output_files import OutputFile
from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.pipeline.stages import STAGES, Scale, Stage, recorder_of, writer_of
from locations import TEST_DATA

DECLARATIONS = REPO_ROOT / "lib" / "llmcreativity" / "output_files.py"


def signature(path: str) -> str:
    """A declared path with its placeholders as `{}`, as an f-string's template reads."""
    return re.sub(r"\{\w*\}", "{}", path)


def path_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal and f-string template of `source` that is not a docstring (a bare
    string statement); an f-string's replacement fields read `{}`."""
    tree = ast.parse(source)
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            found.append((node.lineno, text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare:
            found.append((node.lineno, node.value))
    return found


def names_an_output(text: str, declared: set[str]) -> str | None:
    """The declared path `text` spells out (the whole string, or its last path components), else None."""
    return next((d for d in declared if text == d or text.endswith("/" + d)), None)


def code_sources() -> dict[str, str]:
    """Every Python module of the library but the declarations, and every notebook's code cells, by where."""
    found = {str(p.relative_to(REPO_ROOT)): p.read_text() for p in (REPO_ROOT / "lib").rglob("*.py")
             if p != DECLARATIONS}
    for nb in sorted((REPO_ROOT / "notebooks").glob("*.md")):
        for k, cell in enumerate(jupytext.read(nb).cells):
            if cell.cell_type == "code":
                found[f"{nb.relative_to(REPO_ROOT)} cell {k}"] = cell.source
    return found


def declared_outputs() -> dict[str, OutputFile]:
    """Every output some stage lists, by its path's signature."""
    return {signature(o.path): o for s in STAGES for o in s.outputs}


def test_the_scan_finds_a_hard_coded_output_name():
    declared = set(declared_outputs())
    source = ('"""Docstrings may name chains.parquet."""\n'
              'a = root / "semantic_entropy/chains.parquet"\n'
              'b = folder / f"unigram_{name}.parquet"\n'
              'c = "no chains.parquet here"\n')
    hits = [(line, names_an_output(text, declared)) for line, text in path_strings(source)]
    assert [(line, d) for line, d in hits if d] == [(2, "chains.parquet"), (3, "unigram_{}.parquet")]


def test_every_output_a_stage_declares_is_named_in_output_files_and_nowhere_else():
    declared = set(declared_outputs())
    found = [f"{where} line {line}: {text!r}" for where, source in code_sources().items()
             for line, text in path_strings(source) if names_an_output(text, declared)]
    assert found == [], "read these files through their `output_files` declaration (`outputs`):\n" + "\n".join(found)


def test_every_declaration_is_listed_by_a_stage_and_every_listed_output_is_declared():
    module = {name: o for name, o in vars(output_files).items() if isinstance(o, OutputFile)}
    listed = {o for s in STAGES for o in s.outputs}
    assert set(module.values()) == listed, "declare each output once in output_files and list it in its stage"
    for s in STAGES:
        assert len(set(s.outputs)) == len(s.outputs), s.name
        for o in s.outputs:
            assert writer_of(o, s.name) is s


def test_an_output_two_stages_write_needs_the_stage_named():
    with pytest.raises(ValueError, match=r"written by \['baselines', 'review'\]: name the stage"):
        writer_of(output_files.STORIES)
    with pytest.raises(ValueError, match="stage='corpus' writes no stories.jsonl"):
        writer_of(output_files.STORIES, "corpus")


def test_every_testable_claim_is_recorded_by_one_stage():
    recorded = [c for s in STAGES for c in s.claims]
    assert len(recorded) == len(set(recorded)) and set(recorded) <= set(CLAIMS)
    assert {c for c, spec in CLAIMS.items() if not spec.not_testable} == set(recorded)
    assert recorder_of("B7").name == "entailment_validation" and recorder_of("B12") is None


def test_the_claims_page_names_the_stage_that_records_a_claim_not_run():
    from llmcreativity.pipeline.ledger import ledger_rows
    from llmcreativity.pipeline.manifest import ManifestEntry

    rows = {r.claim_id: r for r in ledger_rows([], [], {"semantic_entropy": ManifestEntry(status="ok", run_id="r")})}
    assert rows["A1"].note == "the evaluation stage records it and has not run (llmcreativity run --stage evaluation)"
    assert rows["B8"].note == "the semantic_entropy stage records it, but its latest run did not"


def test_a_stage_whose_outputs_count_two_kinds_of_items_is_refused():
    with pytest.raises(ValueError, match=r"count different items \['a', 'b'\]"):
        Stage("x", "x.md", "X", outputs=(OutputFile("a.jsonl", "a", items="a"), OutputFile("b.jsonl", "b", items="b")))


# -- a new stage ------------------------------------------------------------------------------------------------------
COUNTED = TEST_DATA / "book" / "counted_stage.md"
REPLIES = OutputFile("records.jsonl", "the scripted model's replies", items="replies")
NEW = Stage("counted", str(COUNTED), "A new stage", profiles={"default": {"n": 2}, "paper": {"n": 50}, "smoke": {}},
            outputs=(REPLIES,), scale=Scale(lambda p: p["n"], "n"), claims=("X1",))


@pytest.fixture
def added(results, tmp_path, monkeypatch):
    """`NEW` appended to `STAGES` (the one list every module reads) for one test."""
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    STAGES.append(NEW)
    yield NEW
    STAGES.remove(NEW)


@pytest.mark.kernel
def test_a_new_stage_is_its_notebook_and_one_entry(added, results):
    from llmcreativity.pipeline.execution import run
    from llmcreativity.pipeline.ledger import not_run_reason
    from llmcreativity.pipeline.manifest import read_manifest
    from llmcreativity.pipeline.planning import plan
    from llmcreativity.pipeline.projection import paper_projection_markdown
    from llmcreativity.pipeline.run_report import read_run_report

    assert [p.stage.name for p in plan("default", [])][-1] == "counted"
    [entry] = run("default", [], only="counted", log=lambda _: None)
    assert (entry.items, entry.items_unit) == (2, "replies")
    assert outputs.output_file(REPLIES) == results / "counted" / "records.jsonl" and "counted/records.jsonl" \
        in entry.outputs
    [line] = read_run_report()
    assert (line.stage, line.items, line.lm_calls, line.prompt_tokens + line.completion_tokens) \
        == ("counted", 2, 2, 12)
    assert "| counted | 12 | 2 → 50 | – | 300 |" in paper_projection_markdown()
    assert not_run_reason("X1", read_manifest().stages) == "the counted stage records it, but its latest run did not"
    assert not_run_reason("X1", {}).startswith("the counted stage records it and has not run")
