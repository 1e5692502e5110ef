"""Exploratory verdicts of the SE claims under every SE statistic, and their block on the claims page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llmcreativity import output_files as out
from llmcreativity.claims.verdicts import Verdict
from llmcreativity.entropy.entropy_claims import se_correlations, se_verdicts
from llmcreativity.entropy.exploratory_verdicts import (
    STATISTICS,
    cluster_link_sentence,
    correlation_verdicts,
    disagreements,
    novelty_verdicts,
    sign_disagreement,
    verdict_reading,
)
from llmcreativity.pipeline.se_exploratory_page import (
    EXPLORATORY_MARK,
    exploratory_items,
    judge_domain_sentence,
    ledger_items,
    statistics_disagree,
)

LAB = "entailment: cosine average (all-minilm-l6-v2) [lab 0a8d76152bcc]"


def _run_tables(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run shaped like the recorded one: 12 problems, 2 models, T 0.3 and 1.5, 3 steps per chain. The unweighted
    SEs and the cluster count rise with temperature; SE_P falls, as one sample takes the weight."""
    rng = np.random.default_rng(seed)
    steps = []
    for p in range(12):
        for m, size in (("smollm2", 135.0), ("qwen-0.5b", 494.0)):
            for t in (0.3, 1.5):
                for k in range(1, 4):
                    k_clusters = int(rng.integers(1, 4)) if t == 0.3 else int(rng.integers(8, 11))
                    steps.append({
                        "chain": f"{p}-{m}-{t}", "problem_id": f"p{p}", "domain": "macgyver" if p < 6 else "astro",
                        "model_name": m, "params_m": size, "temperature": t, "step": k, "n_clusters": k_clusters,
                        "se_discrete": np.log(k_clusters) + rng.normal(0, 0.05),
                        "se_length_normalized": 0.3 * np.log(k_clusters) + rng.normal(0, 0.05),
                        "se_probability": (0.25 if t == 0.3 else 0.08) + rng.normal(0, 0.05),
                        "se_probability_distinct": 0.4 * np.log(k_clusters) + rng.normal(0, 0.05),
                        "mean_cosine": 0.9 - 0.05 * k_clusters + rng.normal(0, 0.02),
                        "distinct_2": 0.1 * k_clusters, "self_bleu": 1 - 0.1 * k_clusters})
    steps_df = pd.DataFrame(steps)
    keys = ["chain", "problem_id", "domain", "model_name", "params_m", "temperature"]
    chains = steps_df.groupby(keys, as_index=False).mean(numeric_only=True)
    return chains, steps_df


@pytest.fixture(scope="module")
def explored():
    chains, steps = _run_tables()
    corr = se_correlations(chains, steps, n_resamples=200, seed=0)
    return corr, correlation_verdicts(corr, entailment=True), chains


def test_every_se_claim_is_decided_under_every_statistic_and_the_registered_row_matches_the_record(explored):
    corr, table, _ = explored
    overall = table[table["domain"] == "all"]
    assert sorted(overall["claim"].unique()) == ["B1", "B2", "B3", "B4"]
    assert all(list(g["column"]) == list(STATISTICS) for _, g in overall.groupby("claim"))
    registered = se_verdicts(corr, "who", entailment=True)
    for claim, v in registered.items():
        r = overall[(overall["claim"] == claim) & overall["registered"]].iloc[0]
        assert r["verdict"] == v.label and r["rho"] == pytest.approx(v.statistic)
        assert r["low"] == pytest.approx(v.ci_low) and int(r["n_groups"]) == v.n
    assert set(table["domain"]) == {"all", "macgyver", "astro"}


def test_embedding_clusters_decide_nothing_here_either(explored):
    corr, _, _ = explored
    assert set(correlation_verdicts(corr, entailment=False)["verdict"]) == {"not testable here"}


def test_b1_disagrees_in_sign_and_the_reading_says_it_is_not_a_run_too_small(explored):
    corr, table, _ = explored
    split = disagreements(table)
    assert "B1" in split and "disagree in sign" in split["B1"]
    assert "under SE_P" in split["B1"] and "under SE_D (interval above 0)" in split["B1"]
    reading = verdict_reading(table, [("B1", "inconclusive"), ("B2", "supported")])
    assert "For B1 the registered verdict is inconclusive while the SE statistics point in opposite" in reading
    assert "not a run too small to decide" in reading
    assert verdict_reading(table, [("B1", "supported")]) == ""


def test_an_inconclusive_claim_whose_statistics_agree_is_read_as_wide_not_as_a_disagreement():
    rows = pd.DataFrame({"claim": ["B2"] * 2, "domain": ["all"] * 2, "statistic": ["SE_P", "SE_D"],
                         "rho": [0.2, 0.3], "low": [-0.1, -0.05], "high": [0.5, 0.6]})
    assert sign_disagreement(rows) == ""
    assert "more problems could narrow them" in verdict_reading(rows, [("B2", "inconclusive")])


def test_b8_under_every_statistic_resamples_problems_like_the_registered_rule(explored):
    from llmcreativity.judges.divergent import novelty_claim

    _, _, chains = explored
    rng = np.random.default_rng(3)
    scored = chains.assign(novelty=2 + chains["se_discrete"] + rng.normal(0, 0.3, len(chains)))
    rows = novelty_verdicts(scored, entailment=True, n_resamples=200, seed=0)
    assert list(rows["column"]) == list(STATISTICS) and set(rows["claim"]) == {"B8"}
    registered = novelty_claim(scored, "se_probability", "judge", entailment=True, n_resamples=200, seed=0)
    first = rows.iloc[0]
    assert first["registered"] and first["verdict"] == registered.label
    assert (first["low"], first["high"]) == pytest.approx((registered.ci_low, registered.ci_high))


def test_the_cluster_link_is_measured_not_assumed(explored):
    corr, _, _ = explored
    text = cluster_link_sentence(corr)
    assert "SE_D +0.9" in text and "Following the count closely (interval above 0.9): SE_D" in text
    assert "Not: SE_P" in text


def _files(folder, table: pd.DataFrame, run_id: str = "run-1") -> None:
    se = folder / "semantic_entropy"
    se.mkdir(parents=True, exist_ok=True)
    table.assign(run_id=run_id, judge=LAB).to_csv(se / "exploratory_verdicts.csv", index=False)
    pd.DataFrame({"temperature": [0.3, 0.3, 1.5, 1.5], "n_eff_probability": [3.0, 2.0, 1.0, 1.1],
                  "run_id": run_id}).to_csv(se / "weight_diagnostic.csv", index=False)


def test_the_claims_block_shows_the_disagreement_line_only_when_the_data_disagree(explored, tmp_path):
    _, table, _ = explored
    _files(tmp_path, table)
    items = ledger_items("B1", "semantic_entropy", "run-1", LAB, tmp_path)
    text = "\n".join(items)
    assert f"{EXPLORATORY_MARK}: under SE_D" in text and "under SE_LN" in text
    assert "SE_P (distinct sequences)" in text
    assert "per temperature: T 0.3: 2.5, T 1.5: 1.1" in text
    assert "disagree in sign" in text and "Why they can differ: at T 1.5" in text
    assert "not validated on solution steps" in text
    # mutate the data: SE_P rises with temperature too, and the line goes
    agree = table.copy()
    b1_p = (agree["claim"] == "B1") & agree["registered"]
    agree.loc[b1_p, ["rho", "low", "high"]] = [0.4, 0.1, 0.6]
    _files(tmp_path, agree)
    text = "\n".join(ledger_items("B1", "semantic_entropy", "run-1", LAB, tmp_path))
    assert "disagree in sign" not in text and EXPLORATORY_MARK in text
    # and comes back when it falls again
    agree.loc[b1_p, ["rho", "low", "high"]] = [-0.3, -0.5, -0.1]
    _files(tmp_path, agree)
    assert "disagree in sign" in "\n".join(ledger_items("B1", "semantic_entropy", "run-1", LAB, tmp_path))


def test_b1_says_how_much_of_the_rise_comes_with_incoherent_candidates(explored, tmp_path):
    _, table, _ = explored
    _files(tmp_path, table)
    steps = [{"rule": "text", "temperature": t, "candidates": 10, "empty": 0, "coherent_text": c, "kept": c,
              "se_discrete_all": a, "se_discrete_coherent": k, "se_probability_all": p, "se_probability_coherent": q}
             for t, c, a, k, p, q in ((0.3, 10, 0.4, 0.4, 0.25, 0.25), (1.5, 2, 2.2, 0.6, 0.08, 0.07))]
    pd.DataFrame(steps).to_csv(tmp_path / "semantic_entropy" / out.SE_COHERENT.path, index=False)
    [line] = [i for i in ledger_items("B1", "semantic_entropy", "run-1", LAB, tmp_path) if "coherent" in i]
    assert line.startswith("Of the candidates with text, 100% are coherent at T = 0.3 and 20% at T = 1.5")
    assert "rises from 0.40 to 2.20 nats with every candidate, and from 0.40 to 0.60 without" in line
    assert not any("coherent at" in i for i in ledger_items("B2", "semantic_entropy", "run-1", LAB, tmp_path))
    assert not any("coherent at" in i for i in ledger_items("B1", "semantic_entropy", "run-9", LAB, tmp_path))


def test_rows_of_another_run_or_another_claim_are_not_shown(explored, tmp_path):
    _, table, _ = explored
    _files(tmp_path, table, run_id="run-0")
    items = ledger_items("B1", "semantic_entropy", "run-1", LAB, tmp_path)
    assert items == [judge_domain_sentence()]
    assert ledger_items("A1", "evaluation", "run-0", LAB, tmp_path) == []
    assert ledger_items("B1", "semantic_entropy", "run-0", "", tmp_path)[0].startswith(EXPLORATORY_MARK)
    b6 = ledger_items("B6", "judge_validation", "jv-run", "", tmp_path)
    assert any("median effective number" in x for x in b6)
    assert any("judgements of the chains were not found" in x for x in b6)


def test_the_judge_domain_is_read_from_the_committed_choice(tmp_path):
    import json

    choice = tmp_path / "entailment.choice.json"
    choice.write_text(json.dumps({"protocol": "cosine average (e5)", "development": {"objects": ["brick"]},
                                  "settings": {"test_objects": ["fork"]}}))
    text = judge_domain_sentence(choice)
    assert "(cosine average (e5))" in text and "fitted on brick; confirmed on fork" in text
    assert "MuseScorer" in text and "not validated on solution steps" in text
    assert judge_domain_sentence(tmp_path / "none.json") == ""


def test_the_claims_page_puts_the_block_beneath_the_registered_verdict(explored, results, monkeypatch):
    from llmcreativity.pipeline.claim_records import record_claims
    from llmcreativity.pipeline.ledger import claims_markdown
    from llmcreativity.pipeline.manifest import ManifestEntry

    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    monkeypatch.setenv("LLMCREATIVITY_RUN_ID", "run-1")
    _, table, _ = explored
    record_claims("semantic_entropy", {"B1": Verdict("inconclusive", "the CI contains 0", -0.27, -0.56, 0.003, 12)},
                  judge=LAB)
    _files(results, table)
    from llmcreativity.pipeline.claim_records import read_claims

    page = claims_markdown(read_claims(), [], {"semantic_entropy": ManifestEntry(status="ok", run_id="run-1")})
    b1 = page[page.index("**B1**"):]
    b1 = b1[b1.index("- Verdict:"):]
    assert b1.index("- Verdict:") < b1.index(EXPLORATORY_MARK) < b1.index("disagree in sign")
    assert "too small to decide" not in page


def test_exploratory_items_are_empty_for_a_claim_not_on_se():
    assert exploratory_items("A1", "r", None, None, "judge") == []


def test_b6_under_every_statistic_reproduces_the_registered_weak_rule_per_domain(explored):
    from llmcreativity.judges.divergent import weak_link_table, weak_link_verdicts

    _, _, chains = explored
    rng = np.random.default_rng(5)
    judged = {d: g.assign(p_valid=rng.uniform(0.2, 0.9, len(g))) for d, g in chains.groupby("domain")}
    judged = {("macgyver" if d == "macgyver" else "hypogen-astro"): g for d, g in judged.items()}
    rows = weak_link_verdicts(judged, n_resamples=200, seed=0)
    assert set(rows["statistic"]) == {"SE_P", "SE_D", "SE_LN", "SE_P (distinct sequences)"}
    assert set(rows["domain"]) == {"all", "macgyver", "hypogen-astro"}
    table, _ = weak_link_table(judged, "se_probability", n_resamples=200, seed=0)
    mine = rows[rows["registered"] & (rows["domain"] == "macgyver")].iloc[0]
    theirs = table[table["domain"] == "macgyver"].iloc[0]
    assert mine["rho"] == pytest.approx(theirs["rho"]) and mine["verdict"] == theirs["verdict"]
    overall = rows[rows["registered"] & (rows["domain"] == "all")].iloc[0]
    assert overall["rho"] == pytest.approx(theirs["rho"])  # the labelled domain decides; the other is a stand-in


def test_a_sign_split_with_no_interval_off_zero_is_said_but_not_read_as_settled():
    rows = pd.DataFrame({"claim": ["B6"] * 2, "domain": ["all"] * 2, "statistic": ["SE_P", "SE_LN"],
                         "rho": [-0.01, 0.12], "low": [-0.31, -0.24], "high": [0.46, 0.46]})
    assert sign_disagreement(rows).endswith("No interval excludes 0, so neither sign is established.")
    assert "more problems could narrow them" in verdict_reading(rows, [("B6", "inconclusive")])
    assert disagreements(rows, only_established=True) == {} and "B6" in disagreements(rows)


def test_the_summary_knows_when_an_inconclusive_verdict_is_contradicted_not_too_small(explored, tmp_path):
    """`statistics_disagree` tells the claims page's summary not to file B1 under "inconclusive at or beyond the
    minimum sample" when the other SE statistics establish the opposite sign; mutated, it goes and comes back."""
    _, table, _ = explored
    _files(tmp_path, table)
    assert statistics_disagree("B1", "semantic_entropy", "run-1", tmp_path)
    assert not statistics_disagree("B1", "semantic_entropy", "run-0", tmp_path)  # another run's rows
    assert not statistics_disagree("A2", "evaluation", "run-1", tmp_path)
    agree = table.copy()
    b1 = agree["claim"] == "B1"
    agree.loc[b1, ["rho", "low", "high"]] = [0.4, 0.1, 0.6]  # every statistic rises: no disagreement
    _files(tmp_path, agree)
    assert not statistics_disagree("B1", "semantic_entropy", "run-1", tmp_path)
    agree.loc[b1 & agree["registered"], ["rho", "low", "high"]] = [-0.3, -0.5, -0.1]
    _files(tmp_path, agree)
    assert statistics_disagree("B1", "semantic_entropy", "run-1", tmp_path)
