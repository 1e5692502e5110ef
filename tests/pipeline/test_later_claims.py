"""The claims declared for a later registration (`ClaimSpec.later`): shown on the claims page in a group of their own,
never in a verdict table, a finding, a count or a registration's terms, and recordable by no stage."""

from __future__ import annotations

import re

import pytest

from llmcreativity import paths
from llmcreativity.claims.declarations import register
from llmcreativity.claims.spec import PAPER_A, ClaimSpec
from llmcreativity.claims.verdicts import Verdict
from llmcreativity.pipeline.claim_records import claim_text
from llmcreativity.pipeline.claim_table import CLAIMS, LATER
from llmcreativity.pipeline.later_page import LATER_HEADING, later_markdown
from llmcreativity.pipeline.ledger import FINDINGS_HEADING, claims_markdown, ledger_rows, sample_summary
from llmcreativity.pipeline.preregistration import current_terms, deviations


def test_the_later_claims_are_declared_apart_from_the_recorded_runs_claims():
    assert list(LATER) == ["A6", "B16"]
    assert not set(LATER) & set(CLAIMS)
    for spec in LATER.values():
        assert spec.later and spec.estimator and not spec.not_testable and not spec.text and spec.target is None


def test_no_stage_can_record_a_later_claim():
    with pytest.raises(ValueError, match="is not in the claim table"):
        claim_text("A6", Verdict("supported", "the interval lies above 0", 0.4, 0.1, 0.7, 20, "difference"))


def test_an_id_of_a_later_claim_cannot_be_declared_again():
    twin = ClaimSpec("A6", PAPER_A, "x", "x", "x (qualitative)", None, "", 5, "prompts", "none")
    with pytest.raises(ValueError, match="'A6' is declared twice"):
        register(twin, module=__name__)
    with pytest.raises(ValueError, match="'A1' is declared twice"):
        register(ClaimSpec("A1", PAPER_A, "x", "x", "x (qualitative)", None, "", 5, "prompts", "none", later="y"),
                 module=__name__)
    assert LATER["A6"].claim != "x" and CLAIMS["A1"].claim != "x"


def test_the_page_shows_the_later_group_after_every_verdict_in_no_table_with_its_reasons_and_sources():
    page = claims_markdown([], [], {})
    group = page[page.index(LATER_HEADING):]
    assert page.index(LATER_HEADING) > page.index("## Each claim in full")
    for claim_id, spec in LATER.items():
        assert f"| {claim_id} |" not in page  # in no table: the page's tables are its verdicts'
        assert f"**{claim_id}** ({spec.paper}, for a later registration). {spec.claim}" in group
        assert f"Why it waits: {spec.later}." in group
        assert f"Estimator a later registration would state: {spec.estimator}." in group
    assert "a summary of the paper" in group and "Interaction Structure Is More Important Than Model Scale" in group
    assert "本该和任务完成度强负相关" in group  # B16's sentence of the Chinese note, with its translation
    assert later_markdown({}) == ""


def test_the_later_claims_stand_in_no_verdict_table_finding_or_count():
    page = claims_markdown([], [], {})
    before = page[:page.index(LATER_HEADING)]
    for claim_id in LATER:
        assert f"| {claim_id} |" not in before and f"**{claim_id}**" not in before
    rows = ledger_rows([], [], {})
    assert [r.claim_id for r in rows] == list(CLAIMS)
    counted = sample_summary(rows)
    assert counted.listed == len(CLAIMS)
    papers = sum(s.kind == "paper claim" for s in CLAIMS.values())
    checks = sum(s.kind == "project check" for s in CLAIMS.values())
    findings = page[page.index(FINDINGS_HEADING):page.index("## The verdicts")]
    assert re.search(rf"The page lists {papers} claims of the papers and {checks} checks", findings)
    assert not any(claim_id in findings for claim_id in LATER)


def test_no_registration_holds_a_later_claim_and_neither_registration_gains_a_deviation_from_them():
    terms = current_terms()
    assert not set(LATER) & (set(terms.claims) | set(terms.tested) | set(terms.not_testable))
    for folder in (paths.PUBLISHED_REGISTRATION, paths.DECISIVE_REGISTRATION):
        found = deviations(paths.REPO_ROOT / folder)
        assert not [d for d in found if any(re.match(rf"{c}\b", d) for c in LATER)], found
