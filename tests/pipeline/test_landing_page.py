"""The landing page's findings: computed from the claims and judge-validity records, one paragraph a paper, the
decided claims in a small table, numbers not as recorded marked."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from llmcreativity.claims.judge_validity import record_judge_validity
from llmcreativity.claims.verdicts import Verdict
from llmcreativity.pipeline.claim_records import claims_path, record_claims
from llmcreativity.pipeline.landing_page import landing_markdown, origin_mark
from llmcreativity.pipeline.ledger import JUDGE_NOT_VALIDATED
from llmcreativity.pipeline.manifest import ManifestEntry, update_manifest
from llmcreativity.stats import ConfidenceInterval
from llmcreativity_book.site import landing_page_body

RUN = "run-1"


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    monkeypatch.setenv("LLMCREATIVITY_RUN_ID", RUN)
    for stage in ("eval", "se", "judge_lab"):
        update_manifest(stage, ManifestEntry(status="ok", run_id=RUN))
    return tmp_path / "results"


def _paragraph(page: str, paper: str) -> str:
    return next(p for p in page.split("\n\n") if p.startswith(f"**{paper}**"))


def test_the_landing_page_says_what_each_paper_s_claims_came_to_and_follows_an_edited_claim_record():
    record_claims("eval", {"A2": Verdict("supported", "all favour review", 0.4, 0.1, 0.7, 20, "mean difference")})
    record_claims("eval", {"A1": Verdict("supported", "r", 0.3, 0.1, 0.5, 20, "mean difference")})
    record_judge_validity("rubric", "qwen-1.5b", "Spearman rho vs HANNA", ConfidenceInterval.of(0.2, -0.1, 0.5, 44),
                          stage="eval")
    lab = "entailment: cosine average (all-minilm-l6-v2) [lab 0a8d76152bcc]"
    record_judge_validity("entailment", lab, "ARI", ConfidenceInterval.of(0.46, 0.43, 0.48, 2281), stage="judge_lab")
    record_claims("se", {"B3": Verdict("supported", "rises", 0.21, 0.03, 0.37, 12, "Spearman rho")}, judge=lab)
    page = landing_page_body()
    assert page.startswith("## What this run found")
    a, b = _paragraph(page, "LLM Review"), _paragraph(page, "Automated creativity evaluation")
    assert "**A2**" in a and "**supported**" in a and "(0.4 [0.1, 0.7], n = 20)" in a
    assert f"A1 {JUDGE_NOT_VALIDATED}" in a and "rubric judge this run measured does not beat chance" in a
    # a laboratory judge by its short label and with its agreement, the record keeping its full name
    assert "**B3**" in b and "under the confirmed equivalence judge (MiniLM cosine)" in b and lab not in page
    assert "agrees with people (ARI 0.46 [0.43, 0.48], n = 2281)" in b
    assert "| **A2** Review > every baseline, novelty metrics |" in page and "| **B3** SE ~" in page
    assert "computed by this run" in page
    # edit the claim record: the page follows
    lines = [json.loads(x) for x in claims_path().read_text().splitlines()]
    for x in lines:
        if x["claim_id"] == "A2":
            x.update(verdict="not supported", statistic=-0.3, ci_low=-0.5, ci_high=-0.1)
    claims_path().write_text("".join(json.dumps(x) + "\n" for x in lines))
    edited = _paragraph(landing_page_body(), "LLM Review")
    assert "**A2**" in edited and "**not supported**" in edited and "(-0.3 [-0.5, -0.1], n = 20)" in edited
    assert "**supported**" not in edited


def test_a_number_not_as_recorded_is_marked_on_the_landing_page():
    from llmcreativity.pipeline.claim_records import read_claims
    from llmcreativity.pipeline.ledger import ledger_rows

    record_claims("eval", {"A2": Verdict("supported", "r", 0.4, 0.1, 0.7, 20, "mean difference")})
    [row] = [r for r in ledger_rows(read_claims(), [], {"eval": ManifestEntry(status="ok", run_id=RUN)})
             if r.claim_id == "A2"]
    assert origin_mark(row) == "" and origin_mark(replace(row, origin="recorded")) == ""
    fresh = replace(row, origin="fresh: 3 of 10 calls new; re-analysed with kl_window: recorded 50, now 80")
    assert origin_mark(fresh) == "re-run, re-analysed"
    assert origin_mark(replace(row, origin="from the published run's record published/run")) == "earlier run"
    page = landing_markdown([fresh], "published/decisive")
    assert "**supported** *(re-run, re-analysed)*" in page
    assert "rebuilt by this run from the record `published/decisive`" in page
    assert "a number marked *re-run, re-analysed* is not as recorded" in page


def test_an_se_claim_whose_statistics_disagree_is_not_filed_as_merely_inconclusive(results):
    """B1 inconclusive under its registered SE_P while SE_D establishes the opposite sign: the landing page says so,
    and says plain "inconclusive" again once the exploratory rows agree."""
    import pandas as pd

    update_manifest("semantic_entropy", ManifestEntry(status="ok", run_id=RUN))
    record_claims("semantic_entropy", {"B1": Verdict("inconclusive", "CI contains 0", -0.27, -0.56, 0.003, 12,
                                                     "Spearman rho")})
    folder = results / "semantic_entropy"
    folder.mkdir(parents=True, exist_ok=True)

    def rows(rho_d: float, low_d: float, high_d: float) -> None:
        pd.DataFrame({"claim": "B1", "domain": "all", "statistic": ["SE_P", "SE_D"], "registered": [True, False],
                      "rho": [-0.27, rho_d], "low": [-0.56, low_d], "high": [0.003, high_d], "run_id": RUN}
                     ).to_csv(folder / "exploratory_verdicts.csv", index=False)

    rows(0.87, 0.8, 0.9)
    b = _paragraph(landing_page_body(), "Automated creativity evaluation")
    assert "B1 inconclusive under the registered statistic, while the other SE statistics establish the opposite " \
           "sign" in b
    rows(-0.2, -0.5, 0.1)  # the statistics agree: plain inconclusive
    b = _paragraph(landing_page_body(), "Automated creativity evaluation")
    assert "B1 inconclusive" in b and "opposite sign" not in b
