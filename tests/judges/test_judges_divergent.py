"""Judging the semantic-entropy chains' own solutions (B6), claim B5's text and verdict, and the judge figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from llmcreativity.judges import CriterionVerdict, JudgeCall, Judgement, judgement_table
from llmcreativity.judges.criteria import MACGYVER_CRITERIA, PAPER_CRITERIA
from llmcreativity.judges.divergent import (
    PAPER_SCORER,
    chain_item_id,
    chain_items,
    domain_criteria,
    judged_chains,
    labelled_verdict,
    scale_claim,
    scale_table,
    scorer_note,
    weak_link_claim,
    weak_link_table,
)
from llmcreativity.judges.judge_figures import call_table, plot_accuracy_vs_tokens, plot_cost_by_round, tokens_by_round
from llmcreativity.judges.labelled_claims import efficiency_claim, savings_table
from llmcreativity.pipeline.claim_records import claim_text


def judgement(item, judge, verdict, tokens, confidence=0.5, round_=1):
    call = JudgeCall("valid", "a", round_, "judge", [{"role": "user", "content": "x"}], "r", tokens - 1, 1, 0.5, False)
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


def test_judged_chains_attach_the_judges_probability_of_validity_to_each_chain():
    js = [judgement(chain_item_id(c), "J", True, 10, confidence=p) for c, p in (("a", 0.2), ("c", 0.6), ("d", 0.9))]
    both = judged_chains(chains(), js)
    assert list(both["chain"]) == ["a", "c", "d"] and list(both["p_valid"]) == [0.2, 0.6, 0.9]
    assert both["solution"].iloc[0] == "Step 1: twist\nStep 2: pull"
    with pytest.raises(KeyError, match="no judgement"):
        judged_chains(chains(), js[:2])


def test_non_macgyver_domains_are_judged_on_the_papers_four_criteria():
    assert domain_criteria("macgyver", MACGYVER_CRITERIA) == MACGYVER_CRITERIA
    assert domain_criteria("hypogen-astro", MACGYVER_CRITERIA) == PAPER_CRITERIA


def domain_chains(domain, n_problems, rho_sign, models=(135, 270)):
    """Chains of `domain`: per problem, one chain per model; p_valid rises with SE (rho_sign=+1) or falls."""
    rows = []
    for p in range(n_problems):
        for m, params in enumerate(models):
            se = p + 0.5 * m
            rows.append({"chain": f"{domain}-{p}-{m}", "domain": domain, "problem_id": f"{domain}{p}",
                         "params_m": params, "se_probability": se, "p_valid": 0.5 + rho_sign * 0.04 * se,
                         "model_name": f"m{params}"})
    return pd.DataFrame(rows)


def test_weak_link_is_reported_per_domain_and_fails_where_one_domain_correlates_strongly():
    judged = {"macgyver": domain_chains("macgyver", 8, +1), "hypogen-astro": domain_chains("hypogen-astro", 8, -1)}
    table, parts = weak_link_table(judged, "se_probability", n_resamples=200)
    assert list(table["domain"]) == ["macgyver", "hypogen-astro"] and list(table["problems"]) == [8, 8]
    assert table["rho"].tolist() == pytest.approx([1.0, -1.0])
    assert parts["macgyver"].label == "not supported" and parts["hypogen-astro"].label == "not supported"
    v = weak_link_claim(table, parts, "se_probability", "J", "tiny", scorer=PAPER_SCORER)
    text = claim_text("B6", v)
    assert v.label == "not supported" and "over 16 chains of 8 problems" in text
    assert "hypogen-astro (a stand-in: no human labels): rho -1.00" in text and "macgyver: rho 1.00" in text


def test_a_domain_without_human_labels_is_shown_as_a_stand_in_and_decides_nothing_on_its_own():
    """MacGyver's weak link decides B6 though hypogen-astro's strong one would fail it; hypogen-astro alone
    decides nothing; the same for B11's parts."""
    strong = domain_chains("hypogen-astro", 8, -1)
    table, parts = weak_link_table({"macgyver": weak_domain(20), "hypogen-astro": strong}, "se_probability",
                                   n_resamples=200)
    assert parts["macgyver"].label == "supported" and parts["hypogen-astro"].label == "not supported"
    assert table["labels"].tolist() == ["human", "none: a stand-in"]
    v = weak_link_claim(table, parts, "se_probability", "J", "tiny", scorer=PAPER_SCORER)
    assert v.label == "supported" and v.statistic == pytest.approx(table["rho"].iloc[0])
    assert "stand-ins without human labels, deciding nothing: hypogen-astro: not supported" in v.reason
    alone = weak_link_table({"hypogen-astro": strong}, "se_probability", n_resamples=200)
    only = weak_link_claim(*alone, "se_probability", "J", "tiny", scorer=PAPER_SCORER)
    assert only.label == "inconclusive" and only.reason.startswith("no domain's chains have human labels")
    mine = labelled_verdict({"macgyver": parts["macgyver"]})
    assert mine.label == "supported" and "stand-in" not in mine.reason
    assert v.measure == mine.measure == "Spearman rho(se_probability, p_valid), macgyver"
    b11 = domain_chains("hypogen-astro", 8, +1)
    b11_table, b11_parts = scale_table({"hypogen-astro": b11}, "se_probability", n_resamples=100)
    assert scale_claim(b11_table, b11_parts, "J", "tiny", scorer=PAPER_SCORER).label == "inconclusive"


def test_weak_link_is_inconclusive_with_too_few_problems():
    table, parts = weak_link_table({"macgyver": domain_chains("macgyver", 3, +1)}, "se_probability", n_resamples=100)
    assert parts["macgyver"].label == "inconclusive" and "sample too small" in parts["macgyver"].reason
    assert table["verdict"].tolist() == ["inconclusive"]


def weak_domain(n_problems=8):
    """Chains whose SE and p_valid are unrelated (rho about 0) and both vary."""
    both = domain_chains("macgyver", n_problems, +1)
    both["p_valid"] = [0.3 + 0.05 * ((7 * i) % 5) for i in range(len(both))]
    return both


def test_weak_link_is_inconclusive_when_the_convergent_score_barely_varies_not_weak():
    flat = weak_domain()
    flat["p_valid"] = 0.9  # a small model's stated confidence: the same for every solution
    flat.loc[0, "p_valid"] = 0.85
    table, parts = weak_link_table({"macgyver": flat}, "se_probability", n_resamples=200)
    assert parts["macgyver"].label == "inconclusive"
    assert parts["macgyver"].reason == "p_valid barely varies: 2 distinct values (fewer than 3)"
    _, varied = weak_link_table({"macgyver": weak_domain()}, "se_probability", n_resamples=200)
    assert varied["macgyver"].reason.startswith("the CI ")  # the weak-correlation rule decides, not the guard


def test_a_stand_in_scorer_shows_b6_and_b11_but_does_not_decide_them():
    judged = {"macgyver": domain_chains("macgyver", 8, +1)}
    table, parts = weak_link_table(judged, "se_probability", n_resamples=200)
    paper = weak_link_claim(table, parts, "se_probability", "J", "tiny", scorer=PAPER_SCORER)
    stand_in = weak_link_claim(table, parts, "se_probability", "p(yes)", "tiny", scorer="p_yes")
    assert paper.label == "not supported" and stand_in.label == "inconclusive"
    assert "stand-in" in stand_in.reason and "it would read: not supported" in stand_in.reason
    assert stand_in.statistic == paper.statistic and stand_in.ci_low == paper.ci_low
    assert "cheaper stand-in" in scorer_note("p_yes", "p(yes)") and "stand-in" not in scorer_note(PAPER_SCORER, "R")


def test_the_paper_profile_scores_the_chains_with_the_multi_agent_judge_and_the_default_keeps_p_yes():
    from llmcreativity.pipeline.stages import STAGES

    jv = next(s for s in STAGES if s.name == "judge_validation")
    assert jv.profiles["paper"]["se_judge"] == PAPER_SCORER
    assert jv.profiles["default"].get("se_judge", "p_yes") == "p_yes"  # the notebook's default: the stand-in


def test_scale_claim_needs_convergent_rising_and_divergent_not_rising():
    both = domain_chains("macgyver", 8, +1)
    both["se_probability"] = both["se_probability"] - both["params_m"] / 27  # SE falls with size within a problem
    both["p_valid"] = 0.2 + both["params_m"] / 1000 + both["problem_id"].str[-1].astype(int) / 1000
    table, parts = scale_table({"macgyver": both}, "se_probability", n_resamples=200)
    assert parts["macgyver convergent"].label == "supported" and parts["macgyver divergent"].label == "supported"
    v = scale_claim(table, parts, "J", "tiny", scorer=PAPER_SCORER)
    assert v.label == "supported" and v.statistic == pytest.approx(table["rho"].iloc[0])
    one_size = domain_chains("macgyver", 8, +1, models=(135, 135))
    _, parts = scale_table({"macgyver": one_size}, "se_probability", n_resamples=50)
    assert scale_claim(*scale_table({"macgyver": one_size}, "se_probability", n_resamples=50), "J", "t",
                       scorer="p_yes").label == "not testable here"
    assert "one model size" in parts["macgyver convergent"].reason


def _per_item():
    labels = {i: i in "ab" for i in "abcd"}
    js = [judgement(i, "R", labels[i], 10) for i in "abcd"] + [judgement(i, "C", labels[i], 100) for i in "abcd"]
    return judgement_table(js, labels)


def test_efficiency_claim_is_inconclusive_below_its_minimum_number_of_items_and_says_why():
    v = efficiency_claim(_per_item(), "R", "C", judge_model="tiny", n_resamples=50)
    text = claim_text("B5", v)
    assert v.label == "inconclusive" and v.statistic == pytest.approx(0.9) and v.n == 4
    assert text.startswith("R vs C on 4 labelled items, judge model tiny, matched rounds and reply length: "
                           "token saving 90% [90%, 90%], accuracy")
    assert text.endswith("4 items (< 30) cannot test the accuracy part.")


def test_efficiency_claim_also_gives_the_saving_with_early_stopping_off():
    labels = {i: i in "ab" for i in "abcd"}
    js = [judgement(i, name, labels[i], t) for i in "abcd" for name, t in (("R", 10), ("R0", 40), ("C", 100))]
    v = efficiency_claim(judgement_table(js, labels), "R", "C", judge_model="tiny", no_stop="R0",
                               n_resamples=50)
    assert "token saving 90% [90%, 90%] (early stop off, R0: 60% [60%, 60%])" in claim_text("B5", v)
    assert v.statistic == pytest.approx(0.9)  # the verdict rests on the judge with early stopping


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
