"""Every figure and every quoted wording the claims page gives from a paper stands in a committed excerpt (of an
abstract, the authors' README or a summary of the paper), or is listed as unchecked with its reason; every summary
excerpt stands in its file, pinned by the file's SHA-256; and the page says which."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil

import pytest

from llmcreativity import paths
from llmcreativity.context import variable
from llmcreativity.evaluation.framework_summary import REFERENCE_FIGURES
from llmcreativity.pipeline import excerpts
from llmcreativity.pipeline.claim_table import CLAIMS, LATER
from llmcreativity.pipeline.excerpts import (
    DISAGREEMENTS,
    EXCERPTS,
    REFERENCE_EXCERPTS,
    SUMMARIES,
    UNCHECKED,
    Excerpt,
    figure_problems,
    figure_source,
    numbers,
    summary_file,
    summary_problems,
)

ON_THE_PAGE = {**CLAIMS, **LATER}
"""Every claim whose figure the claims page shows: the recorded runs' and those declared for a later registration."""
EVERY_EXCERPT = sorted({e for group in EXCERPTS.values() for e in group} | set(REFERENCE_EXCERPTS),
                       key=lambda e: e.text)
SUMMARY_EXCERPTS = [e for e in EVERY_EXCERPT if e.summary is not None]


@pytest.mark.parametrize("claim_id", sorted(ON_THE_PAGE))
def test_every_figure_and_quoted_wording_on_the_page_stands_in_its_excerpts(claim_id):
    spec = ON_THE_PAGE[claim_id]
    if claim_id in UNCHECKED:
        assert len(UNCHECKED[claim_id]) > 20 and claim_id not in EXCERPTS
        return
    problems = figure_problems(spec.paper_figure, EXCERPTS.get(claim_id, ()), spec.paper_value)
    assert not problems, f"{claim_id} {spec.paper_figure!r}: {problems}"


def test_every_claim_on_the_page_is_either_checked_or_unchecked_with_a_reason():
    assert set(EXCERPTS) | set(UNCHECKED) == set(ON_THE_PAGE)
    assert not set(EXCERPTS) & set(UNCHECKED)


def test_a_figure_with_no_number_and_no_quoted_wording_counts_as_unchecked():
    # B14's figure as it stood: no number, so a numbers-only check passed it without checking anything
    old = "SE falls slightly for larger or newer models (qualitative)"
    assert figure_problems(old, EXCERPTS["B14"]) == [
        "it holds no number and quotes no wording, so no excerpt checks it"]
    assert numbers(CLAIMS["B14"].paper_figure) and not figure_problems(CLAIMS["B14"].paper_figure, EXCERPTS["B14"])


def test_a_changed_figure_or_wording_or_plotted_value_fails_the_check():
    wrong = dataclasses.replace(CLAIMS["B5"], paper_figure="token cost cut by about 68 % against ChatEval")
    assert figure_problems(wrong.paper_figure, EXCERPTS["B5"]) == ["the number 68 stands in none of its excerpts"]
    reworded = CLAIMS["A1"].paper_figure.replace("significantly outperforms", "dominates")
    assert figure_problems(reworded, EXCERPTS["A1"]) == [
        "the wording “dominates single-agent and other multi-agent frameworks” stands in none of its excerpts"]
    assert figure_problems(CLAIMS["B9"].paper_figure, EXCERPTS["B9"], 0.08) == []  # 84.7 % - 76.7 %
    assert figure_problems(CLAIMS["B9"].paper_figure, EXCERPTS["B9"], 0.09) == [
        "the plotted value 0.09 is neither a number of its excerpts nor a difference of two"]
    assert figure_problems("84.7 %", ()) == ["no excerpt is committed for it"]


def test_each_reference_figure_is_the_cell_of_the_summarys_table_that_its_quantity_names():
    (table,) = REFERENCE_EXCERPTS
    header, row = (line.split("\t") for line in table.text.split("\n"))
    assert row[0] == "Single Agent" and len(header) == len(row)
    cells = dict(zip(header[1:], row[1:], strict=True))
    for f in REFERENCE_FIGURES:
        named = [h for h in cells if h.lower() in f.quantity.lower()]
        assert len(named) == 1, f"{f.quantity!r} names {named} of the summary's columns"
        assert f.paper_figure.replace(" ", "") == cells[named[0]], f.quantity
    assert {f.paper_figure for f in REFERENCE_FIGURES} >= {"3.62 ± 1.13", "3.41 ± 1.11"}
    logic = next(f for f in REFERENCE_FIGURES if "Speculative Logic" in f.quantity)
    character = next(f for f in REFERENCE_FIGURES if "Character Depth" in f.quantity)
    assert (logic.paper_figure, logic.column, character.paper_figure, character.column) == (
        "3.62 ± 1.13", "logic", "3.41 ± 1.11", "character")
    assert not any(figure_problems(f.paper_figure, REFERENCE_EXCERPTS) for f in REFERENCE_FIGURES)


def test_the_papers_folder_sits_beside_the_data_folder_and_a_missing_one_fails_naming_its_variable(tmp_path,
                                                                                                 monkeypatch):
    monkeypatch.delenv("LLMCREATIVITY_DATA", raising=False)
    monkeypatch.delenv("LLMCREATIVITY_PAPERS", raising=False)
    assert paths.papers_dir() == paths.data_dir().parent / "papers" == paths.REPO_ROOT.parent / "shared" / "papers"
    monkeypatch.setenv("LLMCREATIVITY_PAPERS", str(tmp_path / "nowhere"))
    assert paths.papers_dir() == tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match=re.escape(variable("papers"))):
        summary_problems(excerpts.B_NOTE_TOKENS)  # a missing folder is never skipped: the check fails, naming it


@pytest.mark.parametrize("excerpt", SUMMARY_EXCERPTS, ids=lambda e: e.text[:30])
def test_every_summary_excerpt_stands_in_its_file_whose_sha256_is_the_stored_one(excerpt):
    assert summary_problems(excerpt) == []  # reads paths.papers_dir(); a missing folder fails, naming its variable


def test_a_changed_summary_excerpt_a_wrong_sha_or_a_missing_translation_fails(tmp_path):
    note = excerpts.B_NOTE_TOKENS
    changed = dataclasses.replace(note, text=note.text.replace("63%", "68%"))
    assert summary_problems(changed) == [f"the passage {changed.text[:60]!r}... is not in {note.summary.file}"]
    wrong_sha = dataclasses.replace(note, summary=dataclasses.replace(note.summary, sha256="0" * 64))
    assert [p for p in summary_problems(wrong_sha) if "SHA-256" in p]
    untranslated = dataclasses.replace(note, translation="")
    assert [p for p in summary_problems(untranslated) if "has no translation" in p]
    # a summary file changed on disk: its excerpt may still stand in it, but the hash no longer matches
    for s in SUMMARIES:
        shutil.copy(summary_file(s), tmp_path / s.file)
    with (tmp_path / note.summary.file).open("a") as f:
        f.write("\n")
    digest = hashlib.sha256((tmp_path / note.summary.file).read_bytes()).hexdigest()
    assert summary_problems(note, tmp_path) == [
        f"{note.summary.file} has SHA-256 {digest}, not the {note.summary.sha256} its excerpts were copied from"]
    assert summary_problems(note) == []  # the committed file, unchanged


def test_excerpts_name_their_source_and_place_and_whose_words_they_are():
    assert all(isinstance(e, Excerpt) and e.place for e in EVERY_EXCERPT)
    for e in EVERY_EXCERPT:
        if e.summary is None:
            assert e.source.startswith("https://") and not e.translation
        else:
            assert e.source == f"../shared/papers/{e.summary.file}" and not e.own
            assert e.cited_as == "a summary of the paper"
    assert {e.cited_as for e in EVERY_EXCERPT} == {"the paper", "the authors’ README", "a summary of the paper"}
    assert excerpts.B_TOKENS.own is False and excerpts.B_TOKENS.cited_as == "the authors’ README"
    assert {e.summary for e in SUMMARY_EXCERPTS} == set(SUMMARIES)


def test_the_page_says_where_a_figure_was_checked_and_cites_a_summary_as_a_summary():
    b5 = figure_source("B5")
    assert b5.startswith("checked against the committed excerpt: Abstract (the paper)")
    assert "the authors’ README" in b5 and "(a summary of the paper)" in b5
    # the Chinese note: its original sentence and this project's translation beside it
    assert "相比传统多智能体讨论 token 用量降约 63%、整体算力省 60%+，精度却不掉" in b5
    assert "compared with traditional multi-agent discussion token use falls by about 63 %" in b5
    a2 = figure_source("A2")
    assert "(a summary of the paper)" in a2 and "(the paper)" not in a2
    assert figure_source("X1") == ""


def test_where_a_summary_and_the_readme_or_abstract_differ_the_page_shows_both():
    b14 = figure_source("B14")
    assert "the sources differ" in b14 and "LLaMA 3 → 3.3" in b14 and "2.10 → 2.10" in b14
    assert "Vicuna 7B → 33B" in b14 and "8B 2.13 → 405B 2.08" in b14
    for claim_id, why in DISAGREEMENTS.items():
        assert claim_id in EXCERPTS and why in figure_source(claim_id)
        assert {e.summary is not None for e in EXCERPTS[claim_id]} == {True, False}  # a summary and another source


def test_the_four_corrections_stand_in_the_claims_figures():
    a1 = CLAIMS["A1"]
    assert "quality dimensions" in a1.claim and "creativity dimensions" not in a1.claim
    assert "single-agent and other multi-agent frameworks" in a1.paper_figure and "significantly" in a1.paper_figure
    assert "consistently outperforms multi-agent baselines" in a1.paper_figure  # the abstract's, beside it
    assert "相比传统多智能体讨论 token 用量降约 63%、整体算力省 60%+，精度却不掉" in excerpts.B_NOTE_TOKENS.text
    assert excerpts.B_NOTE_TOKENS in EXCERPTS["B5"]
    b14 = CLAIMS["B14"].paper_figure
    for part in ("LLaMA 3→3.3", "Vicuna 7B→33B", "Llama 3 → 3.3 70B flat, 2.10 → 2.10", "8B → 405B 2.13 → 2.08"):
        assert part in b14, part
    # the README's diary, now the book's appendix, no longer says that no source states B5's 63 %
    diary = " ".join(" ".join((paths.REPO_ROOT / f).read_text().split()) for f in ("README.md", "book/history.md"))
    assert "which no source here says" not in diary
    assert "相比传统多智能体讨论 token 用量降约 63%" in diary
