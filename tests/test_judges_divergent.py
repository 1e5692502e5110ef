"""Judging the semantic-entropy chains' own solutions (B6), claim B5's text and verdict, and the judge figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from llmcreativity.judges import CallLog, CriterionVerdict, Judgement, judgement_table
from llmcreativity.judges.claims import efficiency_claim, savings_table
from llmcreativity.judges.divergent import chain_item_id, chain_items, divergent_convergent, weak_link_claim
from llmcreativity.judges.figures import call_table, plot_accuracy_vs_tokens, plot_cost_by_round, tokens_by_round


def judgement(item, judge, verdict, tokens, confidence=0.5, round_=1):
    call = CallLog("valid", "a", round_, "judge", [{"role": "user", "content": "x"}], "r", tokens - 1, 1, 0.5, False)
    crit = CriterionVerdict("valid", verdict, confidence, "a", 1, False, 0 if verdict is not None else 1)
    return Judgement(item, judge, verdict, [crit], [call])


def chains():
    return pd.DataFrame({"chain": ["a", "b", "c", "d"], "domain": ["macgyver", "scifi100", "macgyver", "macgyver"],
                         "problem": ["Open a jar.", "Write.", "Fix a lamp.", "Dry a sock."],
                         "solution_steps": [["twist", "pull"], ["x"], [], ["wring"]],
                         "model_name": ["m1", "m1", "m2", "m2"], "se_discrete": [0.1, 0.5, 0.7, 0.9]})


def test_chain_items_pair_each_chain_problem_with_its_own_steps():
    items = chain_items(chains())
    assert [(i.item_id, i.task, i.response) for i in items] == [
        ("chain-a", "Open a jar.", "Step 1: twist\nStep 2: pull"), ("chain-c", "Fix a lamp.", "(no steps)"),
        ("chain-d", "Dry a sock.", "Step 1: wring")]
    with pytest.raises(ValueError, match="re-run the semantic_entropy stage"):
        chain_items(chains().drop(columns="solution_steps"))


def test_divergent_convergent_correlates_se_with_the_judges_probability_of_validity():
    js = [judgement(chain_item_id(c), "J", True, 10, confidence=p) for c, p in (("a", 0.2), ("c", 0.6), ("d", 0.9))]
    both, stats = divergent_convergent(chains(), js, "se_discrete", n_resamples=50)
    assert list(both["chain"]) == ["a", "c", "d"] and list(both["p_valid"]) == [0.2, 0.6, 0.9]
    assert both["solution"].iloc[0] == "Step 1: twist\nStep 2: pull"
    assert stats["rho"] == pytest.approx(1.0) and stats["n"] == 3
    text, v = weak_link_claim(both, stats, "se_discrete", "J", "tiny")
    assert text.startswith("Over 3 MacGyver chains (models m1, m2)")
    assert v.measure == "Spearman rho(se_discrete, p_valid)"
    assert v.label in ("not supported", "inconclusive") and v.n == 3 and v.statistic == pytest.approx(1.0)


def _per_item():
    labels = {i: i in "ab" for i in "abcd"}
    js = [judgement(i, "R", labels[i], 10) for i in "abcd"] + [judgement(i, "C", labels[i], 100) for i in "abcd"]
    return judgement_table(js, labels)


def test_efficiency_claim_is_inconclusive_below_min_items_and_says_why():
    text, v = efficiency_claim(_per_item(), "R", "C", judge_model="tiny", min_items=30, n_resamples=50)
    assert v.label == "inconclusive" and v.statistic == pytest.approx(0.9) and v.n == 4
    assert text.startswith("R vs C on 4 labelled items, judge model tiny: token saving 90% [90%, 90%]")
    assert text.endswith("4 items (< 30) cannot test the accuracy part.")


def test_savings_table_has_one_row_per_judge():
    assert list(savings_table(_per_item(), ["R"], "C", n_resamples=50)["judge"]) == ["R"]


def test_tokens_by_round_and_the_figures():
    js = {"R": [judgement("a", "R", True, 10, round_=1), judgement("a", "R", True, 20, round_=2)],
          "C": [judgement("a", "C", True, 40, round_=1)]}
    calls = call_table(js, ["R", "C"])
    assert tokens_by_round(calls).to_dict() == {("C", 1): 40, ("R", 1): 10, ("R", 2): 20}
    fig = plot_cost_by_round(calls, {"C": "tab:red", "R": "tab:blue"}, "t")
    assert [len(line.get_xdata()) for line in fig.axes[0].lines] == [1, 2]
    summary = pd.DataFrame([{"judge": "retrieval", "accuracy": 0.5, "accuracy_low": 0.4, "accuracy_high": 0.6,
                             "tokens_per_item": 200.0}])
    assert plot_accuracy_vs_tokens(summary, "t").axes[0].get_xscale() == "log"
