"""The claims file the stages write and the claims page generated from it."""

from __future__ import annotations

import math

import pytest

from llmcreativity.pipeline.claims import (
    PAPER_CLAIMS,
    claims_path,
    read_claims,
    record_claim,
    record_claims,
)
from llmcreativity.pipeline.ledger import claims_markdown
from llmcreativity.verdicts import Verdict


def v(label, statistic=None, low=None, high=None, n=0, measure=""):
    return Verdict(label, "a reason", statistic, low, high, n, measure)


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    return tmp_path


def test_record_claim_replaces_a_claim_recorded_twice():
    record_claim("se", "B1", "first", v("inconclusive", 0.1, -0.1, 0.3, 10))
    record_claim("se", "B2", "other", v("supported", 0.5, 0.2, 0.8, 10))
    record_claim("se", "B1", "second", v("supported", 0.4, 0.2, 0.6, 40))
    claims = read_claims()
    assert [c.claim_id for c in claims] == ["B2", "B1"]
    assert claims[1].text == "second" and claims[1].n == 40 and claims[1].profile == "default"
    assert len(claims_path().read_text().splitlines()) == 2


def test_record_claim_stores_nan_statistics_as_none():
    claim = record_claim("se", "B1", "too few samples", v("inconclusive", math.nan, None, math.nan, 1))
    assert (claim.statistic, claim.ci_low, claim.ci_high) == (None, None, None)
    assert read_claims()[0].statistic is None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ci_low": 2.0}, "ci_low=2.0 exceeds ci_high"),
    ({"n": -1}, "n=-1 must be a non-negative int"),
    ({"statistic": "big"}, "statistic='big' is not a number"),
])
def test_record_claim_rejects_bad_input_naming_it(kwargs, message):
    args = dict(statistic=0.5, low=0.1, high=0.9, n=5) | {("low" if k == "ci_low" else k): x for k, x in kwargs.items()}
    with pytest.raises(ValueError, match=message):
        record_claim("se", "B1", "t", v("supported", **args))


def test_record_claim_needs_a_verdict_object():
    with pytest.raises(TypeError, match="is not a Verdict"):
        record_claim("se", "B1", "t", "supported")


def test_record_claim_writes_nothing_under_a_scratch_profile(monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "smoke")
    claim = record_claim("se", "B1", "a smoke run", v("supported", 0.5, 0.1, 0.9, 5))
    assert claim.verdict == "supported" and claim.profile == "smoke"
    assert not claims_path().exists() and read_claims() == []


def test_record_claims_records_each_and_returns_one_row_per_claim():
    table = record_claims("se", {"B1": ("one", v("supported", 0.5, 0.1, 0.9, 5)),
                                 "B2": ("two", v("inconclusive", 0.0, -0.3, 0.3, 5))})
    assert list(table["claim"]) == ["B1", "B2"] and list(table["verdict"]) == ["supported", "inconclusive"]
    assert [c.claim_id for c in read_claims()] == ["B1", "B2"]


def test_claims_markdown_lists_every_paper_claim_and_marks_untested_ones():
    record_claim("eval", "A1", "Review beats baselines.", v("not supported", -0.2, -0.5, 0.1, 12, "mean diff"))
    record_claim("extra", "X9", "A claim this project adds.", v("supported", 1.0, 0.5, 1.5, 3))
    table = claims_markdown(read_claims())
    rows = [r for r in table.splitlines() if r.startswith("| ")][1:]
    assert [r.split("|")[1].strip() for r in rows] == list(PAPER_CLAIMS) + ["X9"]
    assert "| -0.2 [-0.5, 0.1] | 12 / 5 |" in rows[0] and "default, **stale**" in rows[0]
    assert "| not run |" in rows[1]


def test_read_claims_names_the_malformed_line():
    claims_path().write_text('{"claim_id": "B1"}\n')
    with pytest.raises(ValueError, match="claims.jsonl line 1 is not a claim record"):
        read_claims()


def test_a_verdict_below_the_claims_minimum_sample_is_recorded_inconclusive_keeping_its_statistic():
    claim = record_claim("eval", "A2", "Review beats baselines on novelty.", v("supported", 0.3, 0.1, 0.5, 3))
    assert claim.verdict == "inconclusive" and claim.stage_verdict == "supported"
    assert claim.reason.startswith("sample too small: n = 3 prompts < 5")
    assert (claim.statistic, claim.ci_low, claim.ci_high, claim.n) == (0.3, 0.1, 0.5, 3)
    assert record_claim("eval", "A2", "t", v("supported", 0.3, 0.1, 0.5, 5)).verdict == "supported"
    assert record_claim("judge", "B9", "t", v("not supported", 0.5, 0.4, 0.6, 29)).verdict == "inconclusive"


def test_a_recorded_claim_carries_its_run_profile_parameter_hash_and_judge(monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RUN_ID", "20260101T000000-abc123")
    monkeypatch.setenv("LLMCREATIVITY_PARAMS_SHA256", "0123456789abcdef")
    record_claim("se", "B1", "t", v("supported", 0.5, 0.1, 0.9, 8), judge="qwen2.5-coder-1.5b")
    [c] = read_claims()
    assert (c.run_id, c.params_sha256, c.profile, c.judge) == ("20260101T000000-abc123", "0123456789abcdef",
                                                               "default", "qwen2.5-coder-1.5b")
    assert isinstance(c.models, tuple)


def test_an_old_record_without_provenance_still_reads():
    claims_path().write_text('{"claim_id": "B1", "stage": "se", "text": "t", "verdict": "supported", "statistic": 1, '
                             '"ci_low": 0.5, "ci_high": 1.5, "n": 9, "measure": "", "profile": "default", '
                             '"recorded_at": "x"}\n')
    assert read_claims()[0].run_id == ""
