"""The claims page: judge gate, staleness, every claim listed, table width, forest plot; provenance from the runner."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from llmcreativity.claims.judge_validity import read_judge_validity, record_judge_validity, validity_path
from llmcreativity.claims.verdicts import Verdict, not_testable
from llmcreativity.jsonl import upsert
from llmcreativity.judges.labelled_claims import PAPER_HUMAN_ACCURACY
from llmcreativity.pipeline.claim_records import Claim, claims_path, read_claims, record_claims
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.pipeline.execution import run
from llmcreativity.pipeline.ledger import (
    JUDGE_NOT_VALIDATED,
    NOT_RUN,
    TOO_SMALL,
    claims_markdown,
    forest_plot,
    ledger_rows,
    paper_mark,
    sample_summary,
    validity_finding,
)
from llmcreativity.pipeline.manifest import ManifestEntry, read_manifest
from llmcreativity.pipeline.paper_deviations import deviations
from llmcreativity.pipeline.stages import Stage
from llmcreativity.pipeline.verdict_marks import verdict_mark
from llmcreativity.stats import ConfidenceInterval
from locations import REPO, TEST_DATA

TINY = TEST_DATA / "book" / "tiny_stage.md"
RUN = "run-1"


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    monkeypatch.setenv("LLMCREATIVITY_RUN_ID", RUN)
    return tmp_path / "results"


def current(*stages: str) -> dict[str, ManifestEntry]:
    return {s: ManifestEntry(status="ok", run_id=RUN) for s in stages}


def row(claim_id: str, manifest: dict | None = None):
    rows = ledger_rows(read_claims(), read_judge_validity(), manifest if manifest is not None else current("eval"))
    return next(r for r in rows if r.claim_id == claim_id)


ci = ConfidenceInterval.of


def record(stage: str, claim_id: str, verdict: Verdict, *, judge: str = "") -> None:
    record_claims(stage, {claim_id: verdict}, judge=judge)


def supported(n: int = 10) -> Verdict:
    return Verdict("supported", "all comparisons favour review", 0.4, 0.1, 0.7, n, "mean paired difference")


@pytest.mark.parametrize(("low", "high", "shown"), [(-0.1, 0.5, JUDGE_NOT_VALIDATED), (0.0, 0.4, JUDGE_NOT_VALIDATED),
                                                    (None, None, JUDGE_NOT_VALIDATED), (0.1, 0.5, "supported")])
def test_a_judge_based_claim_reads_judge_not_validated_when_the_judges_ci_reaches_chance(low, high, shown):
    record("eval", "A1", supported())
    record_judge_validity("rubric", "qwen-1.5b", "Spearman rho vs HANNA", ci(0.2, low, high, 12), stage="eval")
    r = row("A1")
    assert r.verdict == shown and r.claim.verdict == "supported"
    if shown == JUDGE_NOT_VALIDATED:
        assert "the stage's rule said supported" in r.note and "qwen-1.5b" in r.note


def test_a_judge_based_claim_without_any_measured_agreement_is_not_validated():
    record("eval", "A1", supported())
    assert row("A1").verdict == JUDGE_NOT_VALIDATED and "no agreement with human labels" in row("A1").note


def test_a_named_judge_is_gated_on_its_own_agreement_and_an_unnamed_one_on_every_judge_of_its_kind():
    record_judge_validity("convergent", "p_yes (qwen-0.5b)", "kappa", ci(0.4, 0.2, 0.6, 40), stage="judge")
    record_judge_validity("convergent", "retrieval (qwen-0.5b)", "kappa", ci(0.0, -0.2, 0.2, 40), stage="judge")
    weak = Verdict("supported", "weak", 0.05, -0.1, 0.2, 8, "Spearman rho")
    record("judge", "B6", weak, judge="p_yes (qwen-0.5b)")
    assert row("B6", current("judge")).verdict == "supported"
    record("judge", "B6", weak)
    assert row("B6", current("judge")).verdict == JUDGE_NOT_VALIDATED


def test_a_named_judge_is_matched_exactly_and_a_laboratory_judge_gates_only_the_claims_that_name_it():
    record_judge_validity("convergent", "p_yes (qwen-0.5b)", "kappa", ci(0.0, -0.2, 0.2, 40), stage="judge")
    record_judge_validity("convergent", "convergent: checklist [lab 1a2b]", "AUC", ci(0.7, 0.6, 0.8, 400),
                          stage="judge_lab", chance=0.5)
    weak = Verdict("supported", "weak", 0.05, -0.1, 0.2, 8, "Spearman rho")
    record("judge", "B6", weak, judge="p_yes")  # a substring of a recorded judge is not that judge
    assert row("B6", current("judge", "judge_lab")).verdict == JUDGE_NOT_VALIDATED
    assert "no agreement" in row("B6", current("judge", "judge_lab")).note
    record("judge", "B6", weak)  # unnamed: the stage's own judge, never the laboratory's
    shown = row("B6", current("judge", "judge_lab"))
    assert shown.verdict == JUDGE_NOT_VALIDATED and [v.judge for v in shown.judges] == ["p_yes (qwen-0.5b)"]
    record("judge", "B6", weak, judge="convergent: checklist [lab 1a2b]")  # beside the others, gated on its own
    shown = row("B6", current("judge", "judge_lab"))
    assert [(a.claim.judge, a.verdict) for a in shown.also if a.claim] == [
        ("convergent: checklist [lab 1a2b]", "supported"), ("p_yes", JUDGE_NOT_VALIDATED)]


def test_only_agreements_from_the_latest_successful_run_of_their_stage_gate_a_claim(monkeypatch):
    record("eval", "A1", supported())
    record_judge_validity("rubric", "qwen", "rho", ci(0.5, 0.2, 0.8, 40), stage="eval")
    assert row("A1").verdict == "supported"
    assert row("A1", {"eval": ManifestEntry(status="ok", run_id="run-2")}).verdict == JUDGE_NOT_VALIDATED
    assert row("A1", {"eval": ManifestEntry(status="failed", run_id=RUN)}).verdict == JUDGE_NOT_VALIDATED


def test_a_claim_measuring_the_judge_itself_carries_its_agreement_but_keeps_its_verdict():
    n = CLAIMS["A5"].min_n
    record("eval", "A5", Verdict("not supported", "rho near 0", 0.0, -0.3, 0.3, n, "rho"))
    record_judge_validity("rubric", "qwen", "rho", ci(0.0, -0.3, 0.3, n), stage="eval")
    r = row("A5")
    assert r.verdict == "not supported" and [v.judge for v in r.judges] == ["qwen"]


def test_inconclusive_verdicts_are_not_replaced_by_the_judge_gate_and_small_samples_read_too_small():
    record("se", "B1", Verdict("inconclusive", "CI contains 0", 0.1, -0.2, 0.4, 9))
    record("se", "B3", Verdict("supported", "CI above 0", 0.6, 0.2, 0.9, 3))
    manifest = current("se")
    assert row("B1", manifest).verdict == "inconclusive"
    assert row("B3", manifest).verdict == TOO_SMALL


def test_the_summary_counts_claims_tested_at_their_minimum_and_decided_not_a_gated_or_stale_one():
    record("eval", "A2", supported(CLAIMS["A2"].min_n))  # a rule-metric claim: no judge
    record("se", "B3", Verdict("supported", "CI above 0", 0.6, 0.2, 0.9, 3))  # below its minimum
    record("se", "B4", Verdict("inconclusive", "CI contains 0", 0.1, -0.2, 0.4, CLAIMS["B4"].min_n))
    record("eval", "A1", supported(CLAIMS["A1"].min_n))  # no judge agreement recorded: not validated
    assert CLAIMS["A2"].judge == "none" and CLAIMS["A1"].gated
    record("eval", "A3", not_testable("one model"))
    record("old", "B2", Verdict("supported", "r", 0.5, 0.2, 0.8, CLAIMS["B2"].min_n))  # stale
    record("eval", "A5", Verdict("supported", "r", 0.5, 0.2, 0.8, CLAIMS["A5"].min_n))  # a project check
    rows = ledger_rows(read_claims(), [], current("se", "eval"))
    summary = sample_summary(rows)
    untestable = [c for c in CLAIMS.values() if c.not_testable]
    assert (summary.listed, summary.tested, summary.judge_not_validated, summary.reached, summary.decided) == (
        len(CLAIMS), 4, 1, 2, 1)  # A1's judge is not validated: not held to a minimum, not counted as reached
    assert (summary.paper_claims, summary.checks) == (len(CLAIMS) - 2, 2)  # A4 and A5 are the project's checks
    assert summary.not_testable == len(untestable) + 1  # the claim table's, and A3 as recorded
    assert (summary.checks_tested, summary.checks_decided) == (1, 1)
    page = claims_markdown(read_claims(), [], current("se", "eval"))
    assert summary.sentence() in page
    assert f"{len(untestable) + 1} of the papers' claims are not testable here" in page
    assert f"Of the other {len(CLAIMS) - 2 - len(untestable) - 1}, this run tested 4: 1 rest on a judge" in page
    assert "of the other 3, 2 reached their minimum sample size, and 1 of these were decided" in page


def test_a_claim_whose_measured_judge_fails_reads_judge_not_validated_whatever_its_sample():
    """More of the sample cannot make a judge at chance a finding: an inconclusive or too-small verdict of a gated
    claim is shown "judge not validated" once its judge's agreement is measured and reaches chance."""
    record("se", "B1", Verdict("inconclusive", "CI contains 0", 0.1, -0.2, 0.4, 2))
    record("se", "B4", Verdict("inconclusive", "CI contains 0", 0.1, -0.2, 0.4, CLAIMS["B4"].min_n))
    manifest = current("se", "ev")
    assert row("B1", manifest).verdict == row("B4", manifest).verdict == "inconclusive"
    record_judge_validity("entailment", "LLM q p>=0.5", "ARI", ci(0.3, 0.1, 0.5, 30), stage="ev")
    assert row("B1", manifest).verdict == row("B4", manifest).verdict == "inconclusive"
    record_judge_validity("entailment", "LLM q p>=0.5", "ARI", ci(0.0, -0.02, 0.03, 30), stage="ev")
    b1 = row("B1", manifest)
    assert b1.verdict == JUDGE_NOT_VALIDATED and row("B4", manifest).verdict == JUDGE_NOT_VALIDATED
    assert f"the stage's rule said inconclusive at n = 2 {CLAIMS['B1'].unit}" in b1.note and "LLM q" in b1.note
    summary = sample_summary(ledger_rows(read_claims(), read_judge_validity(), manifest))
    assert (summary.tested, summary.judge_not_validated, summary.reached) == (2, 2, 0)
    record("se", "B2", not_testable("one model"))  # a claim the run cannot test stays so
    assert row("B2", manifest).verdict == "not testable here"


def test_a_chapter_states_its_judges_agreement_in_words_naming_the_claims_they_gate():
    failed = [record_judge_validity("entailment", f"LLM {m}", "mean ARI vs coders", ci(0.0, -0.03, 0.03, 30),
                                    stage="ev") for m in ("a", "b")]
    text = validity_finding(failed)
    assert text.startswith("**Finding: none of the 2 entailment judges measured here agrees with the human labels "
                           "better than chance**")
    assert "mean ARI vs coders 0 [-0.03, 0.03], n = 30 (LLM a)" in text and "(LLM b)" in text
    assert "(B1, B2, B3, B4, B7, B8) are shown" in text  # the claims on that judge, none the project cannot test
    passed = record_judge_validity("entailment", "LLM c", "mean ARI vs coders", ci(0.4, 0.2, 0.6, 30), stage="ev")
    assert validity_finding([*failed, passed]).startswith("1 of the 3 entailment judges measured here agree")
    assert validity_finding(failed[:1]).startswith("**Finding: the entailment judge measured here does not agree")
    with pytest.raises(ValueError, match="one judge kind"):
        validity_finding([*failed, record_judge_validity("rubric", "r", "rho", ci(0.4, 0.2, 0.6, 30), stage="ev")])


@pytest.mark.parametrize(("entry", "why"), [
    (ManifestEntry(status="ok", run_id="run-2"), "the latest run of se is run-2"),
    (ManifestEntry(status="failed", run_id=RUN), "is failed"),
    (None, "has no run in the manifest"),
])
def test_a_claim_not_from_the_latest_successful_run_of_its_stage_is_stale(entry, why):
    record("se", "B1", Verdict("inconclusive", "CI contains 0", 0.1, -0.2, 0.4, 9))
    r = row("B1", {} if entry is None else {"se": entry})
    assert why in r.stale
    table = claims_markdown(read_claims(), [], {} if entry is None else {"se": entry})
    b1 = next(line for line in table.splitlines() if line.startswith("| B1 |"))
    assert "*(stale)*" in b1 and "**Stale**" in table  # the table marks it, the claim in full says why
    assert row("B1", current("se")).stale == ""


def test_a_claim_recorded_outside_the_runner_is_stale(monkeypatch):
    monkeypatch.delenv("LLMCREATIVITY_RUN_ID")
    record("se", "B1", Verdict("inconclusive", "CI contains 0", 0.1, -0.2, 0.4, 9))
    assert "outside the runner" in row("B1", current("se")).stale


def test_the_page_lists_every_claim_marking_not_run_and_not_testable_in_six_columns():
    record("eval", "A3", not_testable("the large model is not larger than the writer"))
    # a claim the table does not list (recorded by an older version): listed after the table's
    upsert(claims_path(), [Claim("X1", "extra", "A claim the project adds.", "supported", 1.0, 0.5, 1.5, 3, "",
                                 "default", "t", run_id=RUN)], key=lambda c: c.claim_id, what="claim")
    page = claims_markdown(read_claims(), [], current("eval", "extra"))
    table = [line for line in page.splitlines() if line.startswith("| ") and not line.startswith("| id |")]
    assert [line.split("|")[1].strip() for line in table] == [*CLAIMS, "X1"]
    assert all(line.count("|") == 7 for line in table)
    assert page.index("### LLM Review") < page.index("### Automated creativity") < page.index("### This project")
    assert f"| {NOT_RUN} |" in next(line for line in table if line.startswith("| A1 |"))
    assert "| **not testable here** |  |  |" in next(line for line in table if line.startswith("| A3 |"))
    assert "the large model is not larger than the writer" in page
    assert "| 0.63 (saving) |" in next(line for line in table if line.startswith("| B5 |"))
    assert "0.56 vs 0.49 (cosine)" in page


def test_forest_plot_draws_each_statistic_with_its_ci_verdict_and_the_papers_figure(tmp_path, monkeypatch):
    assert forest_plot(ledger_rows([], [], {}), tmp_path / "none.png") is None
    record("eval", "A1", Verdict("supported", "r", 0.1, 0.05, 0.15, 30, "mean paired difference"))
    record("eval", "A2", Verdict("not supported", "r", -0.3, -0.5, -0.1, 30, "mean paired difference"))
    record("eval", "B6", Verdict("inconclusive", "r", 0.4, 0.2, 0.6, 30, "accuracy difference"))
    record("eval", "B9", Verdict("supported", "r", 0.7, 0.66, 0.75, 30, "paired difference in accuracy"))
    record_judge_validity("convergent", "j", "Cohen's kappa vs labels", ci(0.6, 0.3, 0.8, 30), stage="eval")
    saved: list[Figure] = []
    savefig = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (saved.append(fig), savefig(fig, *a, **k))[1])
    path = forest_plot(ledger_rows(read_claims(), read_judge_validity(), current("eval")), tmp_path / "forest.png")
    assert path == tmp_path / "forest.png" and path.read_bytes().startswith(b"\x89PNG")
    [ax] = saved[0].axes
    # one row per claim from the bottom up (the first claim on top): its label, CI bar, point, colour and shape
    assert [t.get_text() for t in ax.get_yticklabels()] == ["B9: supported", "B6: inconclusive", "A2: not supported",
                                                          f"A1: {JUDGE_NOT_VALIDATED}"]
    green, red, grey, purple = "#2ca02c", "#d62728", "#7f7f7f", "#9467bd"
    # (x, y, colour) of each horizontal mark by marker: the CI bars (none), the statistics (one shape a verdict), the
    # paper's figure ("x")
    marks = {m: sorted((tuple(line.get_xdata()), tuple(line.get_ydata()), line.get_color()) for line in ax.lines
                       if line.get_marker() == m and len(set(line.get_ydata())) == 1)
             for m in ("None", "o", "s", "D", "^", "x")}
    assert marks["None"] == [((-0.5, -0.1), (2, 2), red), ((0.05, 0.15), (3, 3), purple),
                             ((0.2, 0.6), (1, 1), grey), ((0.66, 0.75), (0, 0), green)]
    assert marks["o"] == [((0.7,), (0,), green)] and marks["s"] == [((-0.3,), (2,), red)]
    assert marks["D"] == [((0.4,), (1,), grey)] and marks["^"] == [((0.1,), (3,), purple)]
    assert marks["x"] == [((CLAIMS["B9"].paper_value,), (0,), "black")]  # only B9's measure has a paper figure
    legend = {t.get_text() for t in ax.get_legend().get_texts()}
    assert legend == {"supported", "not supported", "inconclusive", JUDGE_NOT_VALIDATED}


def _drawn(monkeypatch, rows, path):
    """The (claim id, verdict) pairs `forest_plot` draws, read from the saved figure's axis and marks."""
    saved: list[Figure] = []
    savefig = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (saved.append(fig), savefig(fig, *a, **k))[1])
    assert forest_plot(rows, path) == path
    [ax] = saved[-1].axes
    labels = [t.get_text() for t in ax.get_yticklabels()][::-1]  # top first, as the page lists them
    points = sorted(int(line.get_ydata()[0]) for line in ax.lines if line.get_marker() in ("o", "s", "D", "v", "^"))
    assert points == list(range(len(labels)))  # one statistic drawn on every labelled line, none elsewhere
    assert "B3 (MiniLM cosine): supported" in labels or "B3" not in "".join(labels)  # a lab judge named briefly
    return [(label.split(" ")[0].rstrip(":"), label.split(": ", 1)[1]) for label in labels]


def test_the_forest_plot_draws_exactly_the_verdicts_the_summary_counts(tmp_path, monkeypatch):
    """A claim's verdicts under its stage's judges and under a confirmed laboratory judge are both counted and both
    drawn; a stale verdict and a claim not testable here are neither; the summary's counts add up to the lines
    drawn, in the same colours as the page's verdict marks."""
    from llmcreativity.pipeline.ledger import counted_verdicts
    from llmcreativity.pipeline.verdict_marks import VERDICT_STYLE, verdict_mark

    lab = "entailment: cosine average (all-minilm-l6-v2) [lab 0a8d76152bcc]"
    record_judge_validity("entailment", "LLM qwen p>=0.7", "ARI", ci(0.0, -0.02, 0.03, 30), stage="se")
    record_judge_validity("entailment", lab, "ARI", ci(0.46, 0.43, 0.48, 2281), stage="judge_lab")
    strong = Verdict("supported", "rises", 0.6, 0.3, 0.8, 30, "Spearman rho")
    record("se", "B3", strong)
    record("se", "B3", strong, judge=lab)
    record("se", "B1", Verdict("inconclusive", "contains 0", 0.1, -0.2, 0.4, 30, "Spearman rho"), judge=lab)
    record("eval", "A2", supported(20))
    record("eval", "A4", Verdict("not supported", "r", -0.1, -0.3, -0.05, 12, "Delta"))
    record("old", "A5", supported(60))  # its stage's latest run is another: stale
    record("eval", "A3", not_testable("the large model is not larger"))
    rows = ledger_rows(read_claims(), read_judge_validity(), current("se", "eval", "judge_lab"))
    drawn = _drawn(monkeypatch, rows, tmp_path / "forest.png")
    pairs = [(r.claim_id, r.verdict) for r, _ in counted_verdicts(rows)]
    assert drawn == [("A2", "supported"), ("A4", "not supported"), ("B1", "inconclusive"),
                     ("B3", JUDGE_NOT_VALIDATED), ("B3", "supported")]
    assert sorted(drawn) == sorted(pairs)
    summary = sample_summary(rows)
    assert summary.tested + summary.checks_tested + summary.named_tested == len(drawn)
    # the page's marks share the plot's colours and shapes
    for verdict, (colour, _, glyph) in VERDICT_STYLE.items():
        assert f"color:{colour}" in verdict_mark(verdict) and glyph in verdict_mark(verdict)
    page = claims_markdown(read_claims(), read_judge_validity(), current("se", "eval", "judge_lab"))
    findings = page.split("## The verdicts")[0]
    assert verdict_mark("supported") + "**supported**" in findings


def test_judge_validity_rejects_bad_input_and_a_smoke_profile_writes_nothing(monkeypatch):
    with pytest.raises(ValueError, match="kind='human' is not a judge kind"):
        record_judge_validity("human", "j", "rho", ci(0.1, 0.0, 0.2, 5), stage="eval")
    with pytest.raises(ValueError, match="low=0.3 exceeds high=0.2"):
        record_judge_validity("rubric", "j", "rho", ci(0.1, 0.3, 0.2, 5), stage="eval")
    with pytest.raises(TypeError, match="is not a ConfidenceInterval"):
        record_judge_validity("rubric", "j", "rho", (0.1, 0.0, 0.2), stage="eval")
    with pytest.raises(ValueError, match="non-empty judge, statistic and stage"):
        record_judge_validity("rubric", "j", "rho", ci(0.1, 0.0, 0.2, 5), stage="")
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "smoke")
    record_judge_validity("rubric", "j", "rho", ci(0.1, 0.0, 0.2, 5), stage="eval")
    assert not validity_path().exists()


def _stage(notebook: Path) -> list[Stage]:
    return [Stage("tiny", str(notebook), "Tiny", profiles={"default": {"n": 30}, "smoke": {"n": 3}})]


@pytest.mark.kernel
def test_the_runner_stamps_claims_with_its_run_and_a_stage_rerun_that_does_not_record_makes_them_stale(
        results, tmp_path, monkeypatch):
    monkeypatch.delenv("LLMCREATIVITY_RUN_ID")
    monkeypatch.delenv("LLMCREATIVITY_PROFILE")
    [first] = run("default", [], stages=_stage(TINY), log=lambda _: None)
    [claim] = read_claims()
    assert claim.run_id == first.run_id and claim.params_sha256 == first.parameters_sha256
    assert row("B1", read_manifest().stages).stale == ""
    executed = (results / "executed" / "tiny.ipynb").read_text()
    assert f"run `{first.run_id}` (parameters `{first.parameters_sha256}`)" in executed
    silent = tmp_path / "silent.md"
    silent.write_text(TINY.read_text().replace('record_claims("tiny"', 'print("tiny"'))
    [second] = run("default", [], only="tiny", stages=_stage(silent), log=lambda _: None)
    assert second.run_id != first.run_id and read_claims() == [claim]
    assert f"the latest run of tiny is {second.run_id}" in row("B1", read_manifest().stages).stale


@pytest.mark.kernel
def test_a_smoke_run_leaves_claims_jsonl_untouched(results, monkeypatch):
    monkeypatch.delenv("LLMCREATIVITY_PROFILE")
    record("tiny", "B1", Verdict("inconclusive", "r", 0.1, -0.2, 0.4, 9))
    before = claims_path().read_bytes(), claims_path().stat().st_mtime_ns
    run("smoke", [], stages=_stage(TINY), log=lambda _: None)
    assert (claims_path().read_bytes(), claims_path().stat().st_mtime_ns) == before
    assert not (results / "smoke" / "claims.jsonl").exists()


def test_the_claim_table_holds_every_claim_of_both_papers_with_a_minimum_sample_and_an_honest_paper_figure():
    assert list(CLAIMS) == [f"A{i}" for i in range(1, 6)] + [f"B{i}" for i in range(1, 16)]
    for c in CLAIMS.values():
        assert c.min_n >= 5 and c.unit and c.judge in ("rubric", "convergent", "entailment", "none")
        assert (c.paper_value is None) == (c.paper_scale == "") == c.paper_figure.endswith("qualitative)"), c.claim_id
        assert c.gated or c.judge != "none"
        assert c.kind in ("paper claim", "project check")
        assert bool(c.estimator) != bool(c.not_testable), c.claim_id  # decided by an estimator, or says why not
    assert [c.claim_id for c in CLAIMS.values() if c.kind == "project check"] == ["A4", "A5"]
    assert [c.claim_id for c in CLAIMS.values() if c.not_testable] == ["B12", "B13", "B14", "B15"]


def _b9_pairs(text: str) -> dict[str, float]:
    """(judge -> figure) of every "NN.N % (judge)" in the ledger's B9 figure, in the order it names them."""
    return {judge: float(x) for x, judge in re.findall(r"(\d+\.\d) % \(([^)]+)\)", text)}


def test_b9_quotes_the_papers_accuracies_each_beside_its_own_judge():
    figure = CLAIMS["B9"].paper_figure
    assert _b9_pairs(figure) == {"retrieval": 84.7, "ChatEval": 76.7, "one-shot": 64.7, "CoT": 67.3}
    assert list(_b9_pairs(figure)) == ["retrieval", "ChatEval", "one-shot", "CoT"]
    assert "human annotators 80.0-84.7 %" in figure
    assert PAPER_HUMAN_ACCURACY == (0.800, 0.847)


def test_the_judge_chapter_quotes_b9_s_accuracies_each_beside_its_own_judge():
    text = " ".join((REPO / "notebooks" / "judge_validation.md").read_text().split())
    sentence = text[text.index("The paper reports the retrieval judge at"):][:400]
    found = re.findall(r"(retrieval judge at|ChatEval's|single call's \(one-shot\)|chain of thought's) (\d+\.\d) %",
                       sentence)
    assert found == [("retrieval judge at", "84.7"), ("ChatEval's", "76.7"), ("single call's (one-shot)", "64.7"),
                     ("chain of thought's", "67.3")]
    assert "80.0 % to 84.7 %" in sentence


def test_a_claim_the_project_cannot_test_reads_not_testable_with_its_reason_though_no_stage_records_it():
    page = claims_markdown([], [], {})
    for claim_id in ("B12", "B13", "B14", "B15"):
        r = row(claim_id, {})
        assert r.verdict == "not testable here" and r.note == CLAIMS[claim_id].not_testable
        line = next(x for x in page.splitlines() if x.startswith(f"| {claim_id} |"))
        assert "| **not testable here** |" in line and line.count("|") == 7
        assert f"Not testable here: {CLAIMS[claim_id].not_testable}." in page
    assert "no BookMIA data here" in page and "83.0 % vs 73.3 % (ChatEval)" in page
    assert "Spearman rho 0.80 on 30 problems" in page and "no newer or reasoning models" in page


def test_a4_and_a5_are_shown_as_the_projects_checks_and_a5_still_gates_the_rubric_judge():
    page = claims_markdown([], [], {})
    for claim_id in ("A4", "A5"):
        assert next(x for x in page.splitlines() if x.startswith(f"| {claim_id} |")).startswith(
            f"| {claim_id} | *(project check)* ")
        assert f"**{claim_id}** (LLM Review, project check)" in page
    assert "**A1** (LLM Review, paper claim)" in page
    assert "The paper states it as motivation or procedure, not as a result" in page
    assert CLAIMS["A5"].judge == "rubric" and not CLAIMS["A5"].gated and CLAIMS["A1"].judge == "rubric"
    assert "the gate of the rubric judge for A1 and A3" in CLAIMS["A5"].estimator


def test_every_testable_claim_names_the_estimator_that_decides_it_on_the_page():
    page = claims_markdown([], [], {})
    for c in CLAIMS.values():
        if not c.not_testable:
            assert f"Estimator: {c.estimator}." in page, c.claim_id
    assert "`a2_kl`" in CLAIMS["A2"].estimator and "McNemar" in CLAIMS["B9"].estimator


def test_the_papers_words_are_quoted_for_b3_and_both_cost_figures_for_b5():
    assert CLAIMS["B3"].paper_figure.startswith("strong positive correlation, “强正相关”")  # the summary's words
    figure = CLAIMS["B5"].paper_figure
    assert "about 63 % against ChatEval (the authors' README)" in figure
    assert "over 60 % improved efficiency (abstract)" in figure


@pytest.mark.parametrize(("claim_id", "measure", "drawn"), [
    ("B7", "mean paired difference (reference - cosine) on Spearman rho with human set diversity", None),
    ("B7", "Cohen's kappa with human labels", None),  # even a measure that names kappa: B7's is a stand-in
    ("B9", "mean paired difference (reference - ChatEval) on accuracy", 0.08),
    ("B5", "token saving 1 - t_retrieval / t_ChatEval", 0.63),
    ("B5", "accuracy", None),  # not on the paper's scale
])
def test_the_forest_plot_marks_the_papers_figure_only_on_its_own_scale_and_never_beside_a_stand_in(
        claim_id, measure, drawn):
    record("judge", claim_id, Verdict("inconclusive", "r", 0.3, 0.1, 0.5, 40, measure))
    assert paper_mark(row(claim_id, current("judge"))) == drawn


def test_b7_names_its_stand_in_on_the_page_and_in_its_chapter():
    page = claims_markdown([], [], {})
    line = next(x for x in page.splitlines() if x.startswith("| B7 |"))
    assert "0.56 (kappa; this run: a stand-in, not plotted)" in line
    assert "Measured by a stand-in: Spearman rho against MuseScorer's two coders'" in page
    assert "not available" in CLAIMS["B7"].stand_in and "binarisation" in CLAIMS["B7"].stand_in
    # the chapter shows the declared deviation beside the step (`paper_deviations`), which says why
    chapter = (REPO / "notebooks" / "entailment_validation.md").read_text()
    assert 'show_deviations("entailment_validation", "b7")' in chapter
    [b7] = deviations("entailment_validation", "b7")
    assert "Spearman's rho" in b7.project_does and "not available" in b7.why and "binarised" in b7.why


def test_a_claim_under_a_laboratory_judge_stands_beside_the_stages_own_verdict_and_is_counted_apart():
    """Claims are keyed by (claim id, judge): recording B1 under the laboratory's judge keeps the stage's own B1;
    the page shows both lines, each gated on its own judge, and counts the named judge's decision apart."""
    record_judge_validity("entailment", "LLM qwen p>=0.7", "ARI", ci(0.0, -0.02, 0.03, 30), stage="se")
    record_judge_validity("entailment", "entailment: cosine average [lab 0a8d]", "ARI", ci(0.46, 0.43, 0.48, 2281),
                          stage="judge_lab", baseline="cosine greedy", baseline_low=0.09, baseline_high=0.13)
    strong = Verdict("supported", "rises", 0.6, 0.3, 0.8, 30, "Spearman rho")
    record("se", "B1", strong)
    record("se", "B1", strong, judge="entailment: cosine average [lab 0a8d]")
    record("se", "B1", strong)  # recorded again: still one line per judge
    assert sorted((c.claim_id, c.judge) for c in read_claims()) == [("B1", ""),
                                                                      ("B1", "entailment: cosine average [lab 0a8d]")]
    r = row("B1", current("se", "judge_lab"))
    assert r.verdict == JUDGE_NOT_VALIDATED and [a.verdict for a in r.also] == ["supported"]
    page = claims_markdown(read_claims(), read_judge_validity(), current("se", "judge_lab"))
    # the judge's short label on the page (the record keeps its name), the verdict marked in its plot's shape
    assert f"↳ under the confirmed equivalence judge (cosine) | {verdict_mark('supported')}**supported**" in page
    assert "Counted apart: 1 verdicts of the papers' claims under a judge of the judge laboratory" in page
    assert "1 of them decided" in page
    # each entry's folded provenance is an HTML block: a blank line must end it, or the next entry renders raw
    assert page.count("<details>") == page.count("</details>") and "</details>\n\n**B1**, under" in page
    assert all(after.startswith("\n\n") or not after.strip() for after in page.split("</details>")[1:])


def test_the_redecisions_page_keeps_the_earlier_runs_verdict_under_the_papers_judge_beside_the_confirmed_one():
    """The claims' re-decision decides B1 under the laboratory's confirmed judge only; the page shows the published
    run's B1 (the paper's LLM judge, failed: judge not validated) first, gated on that run's own agreements and
    named as its origin, and the new verdict beside it. A judge-free claim the new run decides (A2) takes nothing
    from the earlier run; a key the new run holds is never taken twice."""
    from dataclasses import replace

    from llmcreativity.claims.judge_validity import JudgeValidity
    from llmcreativity.pipeline.ledger import EarlierRun

    record_judge_validity("entailment", "entailment: cosine average [lab 0a8d]", "ARI", ci(0.46, 0.43, 0.48, 2281),
                          stage="judge_lab")
    strong = Verdict("supported", "rises", 0.6, 0.3, 0.8, 30, "Spearman rho")
    record("se", "B1", strong, judge="entailment: cosine average [lab 0a8d]")
    record("eval", "A2", supported(20))
    now = read_claims()
    old_b1 = replace(next(c for c in now if c.claim_id == "B1"), judge="", verdict="inconclusive", n=2,
                     run_id="old-run")
    old_a2 = replace(next(c for c in now if c.claim_id == "A2"), verdict="not supported", run_id="old-run")
    failing = JudgeValidity("entailment", "LLM qwen p>=0.7", "ARI", 0.0, -0.02, 0.03, 30, "se", "old-run")
    earlier = EarlierRun("the published run's record published/run", [old_b1, old_a2], [failing],
                         {"se": ManifestEntry(status="ok", run_id="old-run"),
                          "eval": ManifestEntry(status="ok", run_id="old-run")})
    rows = {r.claim_id: r for r in ledger_rows(now, read_judge_validity(), current("se", "eval", "judge_lab"),
                                                earlier)}
    b1 = rows["B1"]
    assert b1.claim.judge == "" and b1.verdict == JUDGE_NOT_VALIDATED and not b1.stale
    assert b1.origin == "from the published run's record published/run"
    assert [(a.claim.judge, a.verdict) for a in b1.also] == [("entailment: cosine average [lab 0a8d]", "supported")]
    assert rows["A2"].claim.verdict == "supported" and rows["A2"].also == ()
    page = claims_markdown(now, read_judge_validity(), current("se", "eval", "judge_lab"), earlier=earlier)
    assert "from the published run's record published/run" in page
    # the judge's short label on the page (the record keeps its name), the verdict marked in its plot's shape
    assert f"↳ under the confirmed equivalence judge (cosine) | {verdict_mark('supported')}**supported**" in page
    plain = {r.claim_id: r for r in ledger_rows(now, read_judge_validity(), current("se", "eval", "judge_lab"))}
    assert plain["B1"].claim.judge == "entailment: cosine average [lab 0a8d]" and plain["B1"].also == ()


def test_the_page_opens_with_what_was_found_and_what_stands_in_the_way():
    """Findings first: each decided claim in one line with its statistic and n, then the rest grouped by what
    blocks them (a judge that fails, a sample below its minimum, not testable, not run), then the count."""
    from llmcreativity.pipeline.ledger import FINDINGS_HEADING

    record("eval", "A2", supported(20))
    record("eval", "A1", supported(20))
    record_judge_validity("rubric", "qwen-1.5b", "Spearman rho vs HANNA", ci(0.2, -0.1, 0.5, 30), stage="eval")
    page = claims_markdown(read_claims(), read_judge_validity(), current("eval"))
    first = page.split("## The verdicts")[0]
    assert first.startswith(FINDINGS_HEADING)
    assert (f"- **A2** {verdict_mark('supported')}**supported**: Review > every baseline, novelty metrics (0.4 [0.1, "
            "0.7], n = 20 prompts).") in first
    assert "A1: the rubric judge does not agree with people better than chance" in first
    assert ": not testable here" in first and ": not run" in first
    assert "The page lists" in first  # the count, after the findings


def test_a_claim_whose_stage_judges_fail_names_the_laboratorys_unconfirmed_judge_of_its_kind_and_links_it():
    """B6 rests on the stage's own convergent judges (failed); the laboratory's committed convergent choice beat
    chance but not its baseline, so it was not confirmed: the claim in full says so, with the figures and a link to
    the laboratory's chapter. A confirmed laboratory judge, or one of another kind, is not named there."""
    record_judge_validity("convergent", "p_yes (qwen-0.5b)", "kappa", ci(0.0, -0.2, 0.2, 40), stage="judge")
    record_judge_validity("convergent", "convergent: panel [lab e72d]", "AUC", ci(0.575, 0.526, 0.618, 1350),
                          stage="judge_lab", chance=0.5, ceiling=0.648, baseline="source only",
                          baseline_low=-0.087, baseline_high=0.024, split="test: 1350 items of 94 groups",
                          choice_commit="4cbdce86fa26")
    record_judge_validity("entailment", "entailment: cosine [lab 0a8d]", "ARI", ci(0.46, 0.43, 0.48, 2281),
                          stage="judge_lab", baseline="cosine greedy", baseline_low=0.09, baseline_high=0.13)
    record("judge", "B6", Verdict("supported", "weak", 0.05, -0.1, 0.2, 8, "Spearman rho"))
    shown = row("B6", current("judge", "judge_lab"))
    assert shown.verdict == JUDGE_NOT_VALIDATED
    assert [v.judge for v in shown.unconfirmed] == ["convergent: panel [lab e72d]"]
    page = claims_markdown(read_claims(), read_judge_validity(), current("judge", "judge_lab"),
                           chapters={"judge", "judge_lab"})
    line = next(x for x in page.splitlines() if x.startswith("- Not confirmed:"))
    assert "confirmed no convergent judge" in line and "AUC 0.57 [0.53, 0.62], n = 1350" in line
    assert "chance 0.5, human ceiling 0.65" in line and "(source only): [-0.087, 0.024], not above 0" in line
    assert "choice commit 4cbdce8" in line and line.endswith("{doc}`executed/judge_lab`.")
    # a book without the laboratory's chapter (a record's page beside other chapters) links nothing
    bare = claims_markdown(read_claims(), read_judge_validity(), current("judge", "judge_lab"))
    assert "{doc}" not in next(x for x in bare.splitlines() if x.startswith("- Not confirmed:"))
    assert ("B6: the convergent judge does not agree with people better than chance, and the judge laboratory "
            "confirmed none") in page
    record("judge", "B6", Verdict("supported", "weak", 0.05, -0.1, 0.2, 8, "Spearman rho"),
           judge="p_yes (qwen-0.5b)")  # a named judge's own line: nothing to stand in for
    assert all(not a.unconfirmed for a in row("B6", current("judge", "judge_lab")).also)
    assert not row("B6", current("judge")).unconfirmed  # the laboratory's run is not current: not named


def test_what_stands_in_the_way_of_a_claim_is_read_from_its_confirmed_judges_line_where_it_has_one():
    record_judge_validity("entailment", "LLM qwen p>=0.7", "ARI", ci(0.0, -0.02, 0.03, 30), stage="se")
    record_judge_validity("entailment", "entailment: cosine [lab 0a8d]", "ARI", ci(0.46, 0.43, 0.48, 2281),
                          stage="judge_lab", baseline="cosine greedy", baseline_low=0.09, baseline_high=0.13)
    undecided = Verdict("inconclusive", "the CI contains 0", 0.2, -0.1, 0.5, 12, "Spearman rho")
    record("se", "B1", undecided)
    page = claims_markdown(read_claims(), read_judge_validity(), current("se", "judge_lab"))
    assert "B1: the entailment judge does not agree with people better than chance;" in page
    record("se", "B1", undecided, judge="entailment: cosine [lab 0a8d]")
    page = claims_markdown(read_claims(), read_judge_validity(), current("se", "judge_lab"))
    assert "B1: inconclusive at or beyond the minimum sample under the judge laboratory's judge" in page


def test_a_confirmed_laboratory_judges_agreement_stands_with_chance_its_human_ceiling_split_and_choice_commit():
    """B3 decided under the laboratory's confirmed equivalence judge: the claim in full gives that judge's agreement
    with chance, the human ceiling on the same scale, the paired difference from the job's baseline, the split it was
    scored on and the commit of its choice. A stage's own judge has none of these and is stated as before."""
    lab = "entailment: cosine average [lab 0a8d]"
    record_judge_validity("entailment", lab, "ARI (held-out objects)", ci(0.457, 0.434, 0.479, 2281),
                          stage="judge_lab", ceiling=0.462, baseline="cosine greedy", baseline_low=0.092,
                          baseline_high=0.132, split="test: 2281 items of 2 groups (split sha256 6a014de1b59b)",
                          choice_commit="6aaa70c6436774d6")
    record_judge_validity("rubric", "qwen-1.5b", "Spearman rho vs HANNA", ci(0.3, 0.1, 0.5, 44), stage="eval")
    record("se", "B3", Verdict("supported", "rises", 0.21, 0.03, 0.37, 12, "Spearman rho"), judge=lab)
    record("eval", "A1", supported(20))
    page = claims_markdown(read_claims(), read_judge_validity(), current("se", "eval", "judge_lab"))
    # the figures stand once, in the table of judges, under the judge's short label; each claim links there
    table = page.split("## The judges")[1].split("## Each claim in full")[0]
    b3 = next(x for x in table.splitlines() if x.startswith("| confirmed equivalence judge (cosine) (entailment)"))
    assert ("ARI (held-out objects) 0.46 [0.43, 0.48], n = 2281, chance 0, human ceiling 0.46; minus the baseline "
            "(cosine greedy): [0.092, 0.13] (test: 2281 items of 2 groups (split sha256 6a014de1b59b); choice commit "
            "6aaa70c) | yes | B3 |") in b3
    a1 = next(x for x in table.splitlines() if x.startswith("| qwen-1.5b"))
    assert a1 == "| qwen-1.5b (rubric) | Spearman rho vs HANNA 0.3 [0.1, 0.5], n = 44 | yes | A1 |"
    assert page.count("0.46 [0.43, 0.48]") == 1 and page.count("Spearman rho vs HANNA 0.3") == 1
    links = [x for x in page.splitlines() if x.startswith("- Judge") and "{ref}`figures <judges-table>`" in x]
    assert len(links) == 2 and "(judges-table)=" in page
