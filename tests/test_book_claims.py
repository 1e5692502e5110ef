"""The claims file the stages write and the claims page generated from it."""

from __future__ import annotations

import math

import pytest

from llmcreativity.book.claims import PAPER_CLAIMS, claims_markdown, claims_path, read_claims, record_claim


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    return tmp_path


def test_record_claim_replaces_a_claim_recorded_twice():
    record_claim("se", "B1", "first", "inconclusive", 0.1, -0.1, 0.3, 10)
    record_claim("se", "B2", "other", "supported", 0.5, 0.2, 0.8, 10)
    record_claim("se", "B1", "second", "supported", 0.4, 0.2, 0.6, 40)
    claims = read_claims()
    assert [c.claim_id for c in claims] == ["B2", "B1"]
    assert claims[1].text == "second" and claims[1].n == 40 and claims[1].profile == "default"
    assert len(claims_path().read_text().splitlines()) == 2


def test_record_claim_stores_nan_statistics_as_none():
    claim = record_claim("se", "B1", "too few samples", "inconclusive", math.nan, None, math.nan, 1)
    assert (claim.statistic, claim.ci_low, claim.ci_high) == (None, None, None)
    assert read_claims()[0].statistic is None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"verdict": "true"}, "verdict 'true' is not one of"),
    ({"ci_low": 2.0}, "ci_low=2.0 exceeds ci_high"),
    ({"n": -1}, "n=-1 must be a non-negative int"),
    ({"statistic": "big"}, "statistic='big' is not a number"),
])
def test_record_claim_rejects_bad_input_naming_it(kwargs, message):
    args = dict(stage="se", claim_id="B1", text="t", verdict="supported", statistic=0.5, ci_low=0.1, ci_high=0.9, n=5)
    with pytest.raises(ValueError, match=message):
        record_claim(**{**args, **kwargs})


def test_claims_markdown_lists_every_paper_claim_and_marks_untested_ones():
    record_claim("eval", "A1", "Review beats baselines.", "not supported", -0.2, -0.5, 0.1, 12, measure="mean diff")
    record_claim("extra", "X9", "A claim this project adds.", "supported", 1.0, 0.5, 1.5, 3)
    table = claims_markdown(read_claims())
    rows = table.splitlines()[2:]
    assert [r.split("|")[1].strip() for r in rows] == list(PAPER_CLAIMS) + ["X9"]
    assert "**not supported** | -0.2 | [-0.5, 0.1] | 12 | eval | default" in rows[0]
    assert "| not run |" in rows[1]


def test_read_claims_names_the_malformed_line():
    claims_path().write_text('{"claim_id": "B1"}\n')
    with pytest.raises(ValueError, match="claims.jsonl line 1 is not a claim record"):
        read_claims()
