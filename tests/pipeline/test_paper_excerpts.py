"""Every figure the claims page quotes from a paper stands in a committed verbatim excerpt, or is listed as
unchecked with its reason; and the page says which."""

from __future__ import annotations

import dataclasses

import pytest

from llmcreativity.evaluation.framework_summary import REFERENCE_FIGURES
from llmcreativity.pipeline import excerpts
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.pipeline.excerpts import EXCERPTS, UNCHECKED, Excerpt, figure_source, numbers


@pytest.mark.parametrize("claim_id", sorted(EXCERPTS))
def test_every_number_of_a_checked_figure_stands_in_its_excerpts(claim_id):
    quoted = " ".join(e.text for e in EXCERPTS[claim_id])
    missing = [x for x in numbers(CLAIMS[claim_id].paper_figure) if x not in numbers(quoted)]
    assert not missing, f"{claim_id}: {missing} of {CLAIMS[claim_id].paper_figure!r} are in none of its excerpts"


def test_every_claim_is_either_checked_or_unchecked_with_a_reason():
    assert set(EXCERPTS) | (set(UNCHECKED) - {"reference figures"}) == set(CLAIMS)
    assert not set(EXCERPTS) & set(UNCHECKED)
    assert all(len(why) > 20 for why in UNCHECKED.values())
    assert REFERENCE_FIGURES and "reference figures" in UNCHECKED


def test_a_qualitative_figure_quotes_the_papers_wording():
    # A1 and A3 paraphrase the abstract's one sentence; its key words must be there
    assert "consistently outperforms multi-agent baselines" in EXCERPTS["A1"][0].text
    assert "smaller models with our framework can surpass larger single-agent models" in EXCERPTS["A3"][0].text
    assert "homogenization" in EXCERPTS["A4"][0].text


def test_a_changed_figure_fails_the_check():
    wrong = dataclasses.replace(CLAIMS["B5"], paper_figure="token cost cut by about 68 % against ChatEval")
    quoted = " ".join(e.text for e in EXCERPTS["B5"])
    assert [x for x in numbers(wrong.paper_figure) if x not in numbers(quoted)] == ["68"]


def test_the_page_says_where_a_figure_was_checked():
    assert figure_source("B5").startswith("checked against the committed excerpt: Abstract (the paper)")
    assert "the authors’ README" in figure_source("B5")
    assert figure_source("B9").startswith("not checked against the paper's text here")
    assert figure_source("X1") == ""


def test_excerpts_name_their_source_and_place():
    every = {e for group in EXCERPTS.values() for e in group}
    assert all(isinstance(e, Excerpt) and e.source.startswith("https://") and e.place for e in every)
    assert {e.own for e in every} == {True, False}  # the README's words are marked as not the paper's
    assert excerpts.B_TOKENS.own is False
