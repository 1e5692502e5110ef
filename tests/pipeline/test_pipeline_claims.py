"""The claims file the stages write and the claims page generated from it."""

from __future__ import annotations

import math

import pytest

from llmcreativity.claims.verdicts import Verdict
from llmcreativity.jsonl import upsert
from llmcreativity.pipeline.claim_records import (
    PAPER_CLAIMS,
    Claim,
    claim_text,
    claims_path,
    read_claims,
    record_claims,
)
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.pipeline.ledger import claims_markdown


def v(label, statistic=None, low=None, high=None, n=0, measure="", **facts):
    return Verdict(label, "a reason", statistic, low, high, n, measure, facts=facts)


def record(stage: str, claim_id: str, verdict: Verdict, **kw) -> dict:
    """One claim recorded alone; its row of the table `record_claims` returns."""
    return record_claims(stage, {claim_id: verdict}, **kw).iloc[0].to_dict()


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    return tmp_path


def test_a_claim_recorded_twice_is_replaced_and_its_text_comes_from_the_claim_table():
    record("se", "B1", v("inconclusive", 0.1, -0.1, 0.3, 10, who="first"))
    record("se", "B2", v("supported", 0.5, 0.2, 0.8, 10, who="other"))
    record("se", "B1", v("supported", 0.4, 0.2, 0.6, 40, who="second"))
    claims = read_claims()
    assert [c.claim_id for c in claims] == ["B2", "B1"]
    assert claims[1].text == "SE rises with sampling temperature (second)."
    assert claims[1].n == 40 and claims[1].profile == "default"
    assert len(claims_path().read_text().splitlines()) == 2


def test_a_claim_text_fills_the_reason_with_a_capital_and_the_untested_form_when_the_table_has_one():
    measured = v("inconclusive", n=3, measures="cosine")
    assert claim_text("A4", measured).endswith("(homogenization by cosine, paired by prompt). A reason.")
    untested = Verdict("not testable here", "no review runs", facts={"measures": "cosine"})
    assert claim_text("A4", untested).endswith("paired by prompt). Not testable here: no review runs.")


def test_record_claims_stores_nan_statistics_as_none():
    row = record("se", "B1", v("inconclusive", math.nan, None, math.nan, 1))
    assert (row["statistic"], row["low"], row["high"]) == (None, None, None)
    assert read_claims()[0].statistic is None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ci_low": 2.0}, "ci_low=2.0 exceeds ci_high"),
    ({"n": -1}, "n=-1 must be a non-negative int"),
    ({"statistic": "big"}, "statistic='big' is not a number"),
])
def test_record_claims_rejects_bad_input_naming_it_and_writes_none_of_the_claims(kwargs, message):
    args = dict(statistic=0.5, low=0.1, high=0.9, n=5) | {("low" if k == "ci_low" else k): x for k, x in kwargs.items()}
    with pytest.raises(ValueError, match=message):
        record_claims("se", {"B2": v("supported", 0.5, 0.1, 0.9, 5), "B1": v("supported", **args)})
    assert read_claims() == []


def test_record_claims_needs_verdict_objects_and_claims_of_the_table():
    with pytest.raises(TypeError, match="is not a Verdict"):
        record("se", "B1", "supported")
    with pytest.raises(ValueError, match="'X9' is not in the claim table"):
        record("extra", "X9", v("supported", 1.0, 0.5, 1.5, 3))


def test_record_claims_writes_nothing_under_a_scratch_profile(monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "smoke")
    assert record("se", "B1", v("supported", 0.5, 0.1, 0.9, 5))["verdict"] == "supported"
    assert not claims_path().exists() and read_claims() == []


def test_the_pilot_records_its_claims_in_its_own_folder_apart_from_the_real_runs(monkeypatch):
    from llmcreativity.paths import results_dir

    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "pilot")
    record("se", "B1", v("supported", 0.5, 0.1, 0.9, 5))
    assert claims_path() == results_dir("pilot") / "claims.jsonl" != results_dir("default") / "claims.jsonl"
    assert [r.claim_id for r in read_claims()] == ["B1"]
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    assert read_claims() == []


def test_record_claims_records_each_and_returns_one_row_per_claim():
    table = record_claims("se", {"B1": v("supported", 0.5, 0.1, 0.9, 5), "B2": v("inconclusive", 0.0, -0.3, 0.3, 5)})
    assert list(table["claim"]) == ["B1", "B2"] and list(table["verdict"]) == ["supported", "inconclusive"]
    assert [c.claim_id for c in read_claims()] == ["B1", "B2"]


def test_claims_markdown_lists_every_paper_claim_and_marks_untested_ones():
    record("eval", "A1", v("not supported", -0.2, -0.5, 0.1, 12, "mean diff"))
    # a claim the table does not list (recorded by an older version) is listed after the table's
    upsert(claims_path(), [Claim("X9", "extra", "A claim this project adds.", "supported", 1.0, 0.5, 1.5, 3, "",
                                 "default", "t")], key=lambda c: c.claim_id, what="claim")
    table = claims_markdown(read_claims())
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| id |")]
    assert [r.split("|")[1].strip() for r in rows] == list(PAPER_CLAIMS) + ["X9"]
    assert "| -0.2 [-0.5, 0.1] | 12 / 5 |" in rows[0] and "*(stale)*" in rows[0]
    assert "profile `default`" in table and "**Stale**" in table  # the claim in full names its run
    assert "| not run |" in rows[1]


def test_read_claims_names_the_malformed_line():
    claims_path().write_text('{"claim_id": "B1"}\n')
    with pytest.raises(ValueError, match="claims.jsonl line 1 is not a claim record"):
        read_claims()


def test_a_verdict_below_the_claims_minimum_sample_is_recorded_inconclusive_keeping_its_statistic():
    record("eval", "A2", v("supported", 0.3, 0.1, 0.5, 3))
    [claim] = read_claims()
    assert claim.verdict == "inconclusive" and claim.stage_verdict == "supported"
    assert claim.reason.startswith(f"sample too small: n = 3 prompts < {CLAIMS['A2'].min_n}")
    assert (claim.statistic, claim.ci_low, claim.ci_high, claim.n) == (0.3, 0.1, 0.5, 3)
    assert record("eval", "A2", v("supported", 0.3, 0.1, 0.5, CLAIMS["A2"].min_n))["verdict"] == "supported"
    assert record("judge", "B9", v("not supported", 0.5, 0.4, 0.6, 29))["verdict"] == "inconclusive"


def test_a_recorded_claim_carries_its_run_profile_parameter_hash_and_judge(monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RUN_ID", "20260101T000000-abc123")
    monkeypatch.setenv("LLMCREATIVITY_PARAMS_SHA256", "0123456789abcdef")
    record("se", "B1", v("supported", 0.5, 0.1, 0.9, 8), judge="qwen2.5-coder-1.5b")
    [c] = read_claims()
    assert (c.run_id, c.params_sha256, c.profile, c.judge) == ("20260101T000000-abc123", "0123456789abcdef",
                                                               "default", "qwen2.5-coder-1.5b")
    assert isinstance(c.models, tuple)


def test_an_old_record_without_provenance_still_reads():
    claims_path().write_text('{"claim_id": "B1", "stage": "se", "text": "t", "verdict": "supported", "statistic": 1, '
                             '"ci_low": 0.5, "ci_high": 1.5, "n": 9, "measure": "", "profile": "default", '
                             '"recorded_at": "x"}\n')
    assert read_claims()[0].run_id == ""
