"""Criteria sets, and the judge chapter's claims on labelled items: B9 (accuracy vs baselines), B10 (weaker model),
the problem-level resampling of chain correlations and the all-of verdict."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llmcreativity.claims.verdicts import Verdict, all_of_verdict
from llmcreativity.judges import CriterionVerdict, JudgeCall, Judgement, criteria_set, judgement_table
from llmcreativity.judges.labelled_claims import (
    PAPER_HUMAN_ACCURACY,
    accuracy_claim,
    accuracy_comparisons,
    not_weaker,
    untested_weaker_claim,
    weaker_model_claim,
)
from llmcreativity.judges.resample import problem_spearman
from llmcreativity.pipeline.claim_records import claim_text


def test_paper_set_is_the_papers_four_convergent_criteria_and_macgyver_its_own_three():
    assert [c.name for c in criteria_set("paper")] == ["feasible", "coherent", "relevant", "domain-correct"]
    assert [c.name for c in criteria_set("macgyver")] == ["feasible", "effective", "safe"]
    assert [c.name for c in criteria_set("valid")] == ["valid"]
    for c in criteria_set("paper"):
        assert c.definition.startswith("Yes if") and "; no if" in c.definition  # a yes/no definition


def test_unknown_criteria_set_is_refused_listing_the_sets():
    with pytest.raises(ValueError, match="criteria='feasible'.*'valid', 'macgyver', 'paper', 'story'"):
        criteria_set("feasible")


def judgement(item, judge, verdict):
    call = JudgeCall("valid", "a", 1, "judge", [{"role": "user", "content": "x"}], "r", 9, 1, 0.5, False)
    return Judgement(item, judge, verdict, [CriterionVerdict("valid", verdict, 0.9, "a", 1, False, 0)], [call])


def table(n, correct_share):
    """Judges R (always right), and A, B wrong on the first correct_share[name] * n items' complement."""
    labels = {f"i{i}": i % 2 == 0 for i in range(n)}
    js = [judgement(i, "R", y) for i, y in labels.items()]
    for name, share in correct_share.items():
        js += [judgement(i, name, y if k < share * n else not y) for k, (i, y) in enumerate(labels.items())]
    return judgement_table(js, labels)


def test_b9_is_supported_only_when_the_reference_beats_every_baseline_significantly():
    rows = accuracy_comparisons(table(40, {"A": 0.5, "B": 0.6}), "R", ["A", "B"], n_resamples=200)
    assert rows["diff"].tolist() == pytest.approx([0.5, 0.4]) and rows["losses"].tolist() == [0, 0]
    assert (rows["p_holm"] >= rows["p"]).all() and rows["significant"].all()
    v = accuracy_claim(rows, "R", judge_model="m", kappa=1.0)
    text = claim_text("B9", v)
    assert v.label == "supported" and "accuracy 100% vs A 50%, B 60%" in text
    assert "Human-level: accuracy 100% [91%, 100%] against the paper's annotators' 80.0%-84.7%" in text
    close = accuracy_comparisons(table(40, {"A": 0.5, "B": 0.975}), "R", ["A", "B"], n_resamples=200)
    assert accuracy_claim(close, "R", judge_model="m", kappa=1.0).label == "not supported"


def comparisons(reference_mean: float, n: int = 40) -> pd.DataFrame:
    """Two baselines the reference beats significantly, the reference right on `reference_mean` of `n` items."""
    return pd.DataFrame([{"measure": "accuracy", "baseline": b, "n_pairs": n, "reference_mean": reference_mean,
                          "baseline_mean": 0.2, "diff": reference_mean - 0.2, "ci_low": 0.3, "ci_high": 0.6, "dz": 1.0,
                          "wins": 20, "losses": 0, "p": 1e-6, "p_holm": 1e-6, "significant": True} for b in "AB"])


@pytest.mark.parametrize(("accuracy", "label", "why"), [
    (0.975, "supported", "lies at or above 80.0%"),
    (0.6, "not supported", "lies below 80.0%"),  # beats every baseline, but below the least accurate human
    (0.85, "inconclusive", "reaches below 80.0%"),  # 34 of 40: its interval reaches below 80 %
])
def test_b9_holds_only_when_the_judge_is_also_human_level_against_the_papers_annotators(accuracy, label, why):
    v = accuracy_claim(comparisons(accuracy), "R", judge_model="m", kappa=0.5)
    assert v.label == label and f"human-level: {label}" in v.reason and why in v.reason
    # the deciding part's statistic: the failing human-level part's accuracy, else the baselines part's difference
    assert v.statistic == pytest.approx(accuracy if label == "not supported" else accuracy - 0.2)
    assert PAPER_HUMAN_ACCURACY == (0.800, 0.847)


def test_b9_is_inconclusive_below_its_minimum_number_of_items():
    rows = accuracy_comparisons(table(10, {"A": 0.0}), "R", ["A"], n_resamples=100)
    assert accuracy_claim(rows, "R", judge_model="m", kappa=1.0).label == "inconclusive"


def test_b10_compares_the_same_judge_on_the_same_items_with_two_models():
    per = table(40, {"weak": 0.5})
    v = weaker_model_claim(per, "R", "weak", strong_model="big", weak_model="small", n_resamples=200)
    assert v.label == "supported" and v.statistic == pytest.approx(0.5) and "big vs small" in claim_text("B10", v)
    small = weaker_model_claim(table(8, {"weak": 0.5}), "R", "weak", strong_model="b", weak_model="s")
    assert small.label == "inconclusive" and "too small" in small.reason


def test_b10_refuses_a_weak_model_that_is_not_smaller_and_needs_a_second_model():
    assert not_weaker("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b") == ""
    assert "is not smaller" in not_weaker("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
    assert "is the judge model itself" in not_weaker("smollm2-135m", "smollm2-135m")
    reason = not_weaker("qwen2.5-coder-0.5b", "")
    assert "one judge model" in reason
    untested = untested_weaker_claim("qwen2.5-coder-0.5b", reason)
    assert untested.label == "not testable here"
    assert claim_text("B10", untested) == "The retrieval judge with qwen2.5-coder-0.5b only."


def test_problem_spearman_resamples_problems_not_chains():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"problem_id": np.repeat(np.arange(6), 5), "x": rng.normal(size=30)})
    df["y"] = df["x"] + rng.normal(size=30)
    s = problem_spearman(df, "x", "y", n_resamples=300)
    assert s["n"] == 30 and s["n_groups"] == 6 and s["low"] < s["rho"] < s["high"]
    one = problem_spearman(df.assign(problem_id=0), "x", "y", n_resamples=50)
    assert np.isnan(one["low"]) and np.isnan(one["high"])  # one problem: no interval, however many chains


def test_all_of_verdict_fails_on_any_failed_part_and_passes_only_when_all_pass():
    ok = Verdict("supported", "fine", 0.1, 0.0, 0.2, 9, "m1")
    bad = Verdict("not supported", "too strong", 0.8, 0.5, 0.9, 7, "m2")
    unsure = Verdict("inconclusive", "wide", 0.2, -0.5, 0.7, 5, "m3")
    assert all_of_verdict({"a": ok, "b": ok}).label == "supported"
    v = all_of_verdict({"a": ok, "b": unsure, "c": bad})
    assert v.label == "not supported" and v.statistic == 0.8 and v.n == 7 and "c: not supported" in v.reason
    assert all_of_verdict({"a": ok, "b": unsure}).label == "inconclusive"
    with pytest.raises(ValueError, match="at least one part"):
        all_of_verdict({})
