"""The verdict rules of `llmcreativity.claims.verdicts`: each rule's three outcomes and the Verdict type."""

from __future__ import annotations

import pandas as pd
import pytest

from llmcreativity.claims.verdicts import (
    LABELS,
    MIN_DISTINCT,
    MIN_SD,
    Verdict,
    barely_varies,
    beats_every_baseline,
    efficiency_verdict,
    human_level_verdict,
    not_testable,
    sign_verdict,
    weak_verdict,
)
from llmcreativity.stats.bootstrap import ConfidenceInterval


def test_verdict_rejects_an_unknown_label_naming_it():
    with pytest.raises(ValueError, match="verdict label 'true' is not one of"):
        Verdict("true", "because")


def test_labels_are_the_three_verdicts_and_not_testable():
    assert LABELS == ("supported", "not supported", "inconclusive", "not testable here")


def test_not_testable_carries_its_reason_and_refuses_none():
    v = not_testable("  the large model is not larger than the writer ")
    assert v.label == "not testable here"
    assert (v.reason, v.statistic) == ("the large model is not larger than the writer", None)
    with pytest.raises(ValueError, match="reason"):
        not_testable(" ")


@pytest.mark.parametrize("low, high, expected, verdict", [
    (0.1, 0.5, 1, "supported"), (-0.5, -0.1, 1, "not supported"), (-0.1, 0.4, 1, "inconclusive"),
    (-0.5, -0.1, -1, "supported"), (0.1, 0.3, -1, "not supported"),
    (-0.4, -0.1, 0, "supported"), (0.1, 0.4, 0, "not supported"), (-0.2, 0.3, 0, "inconclusive"),
    (float("nan"), 0.3, 1, "inconclusive"),
])
def test_sign_verdict(low, high, expected, verdict):
    assert sign_verdict(low, high, expected).label == verdict


def test_sign_verdict_carries_the_statistic_and_stores_undefined_bounds_as_none():
    v = sign_verdict(float("nan"), 0.3, 1, statistic=0.2, n=7, measure="rho")
    assert (v.statistic, v.ci_low, v.ci_high, v.n, v.measure) == (0.2, None, 0.3, 7, "rho")
    assert v.reason == "the interval is undefined"


def test_sign_verdict_rejects_an_expected_sign_that_is_not_minus_one_zero_or_one():
    with pytest.raises(ValueError, match="expected=2"):
        sign_verdict(0.1, 0.2, 2)


@pytest.mark.parametrize("low, high, verdict", [
    (-0.2, 0.25, "supported"), (0.35, 0.8, "not supported"), (-0.9, -0.3, "not supported"),
    (-0.1, 0.6, "inconclusive"), (float("nan"), 0.1, "inconclusive"),
])
def test_weak_verdict(low, high, verdict):
    assert weak_verdict(low, high).label == verdict


@pytest.mark.parametrize("saving, diff, n, verdict", [
    ((0.7, 0.6, 0.8), (0.0, -0.02, 0.03), 300, "supported"),
    ((0.7, 0.6, 0.8), (0.0, -0.5, 0.5), 4, "inconclusive"),      # too few items for the accuracy part
    ((0.3, 0.2, 0.4), (0.0, -0.5, 0.5), 4, "not supported"),     # the saving alone already fails
    ((0.7, 0.6, 0.8), (-0.2, -0.3, -0.1), 300, "not supported"),  # clearly less accurate
    ((0.7, 0.45, 0.8), (0.0, -0.02, 0.03), 300, "inconclusive"),
])
def test_efficiency_verdict(saving, diff, n, verdict):
    def ci(t):
        return ConfidenceInterval(*t, confidence=0.95, n=n, n_resamples=1000, n_undefined=0)

    v = efficiency_verdict(ci(saving), ci(diff), n)
    assert v.label == verdict and v.statistic == saving[0] and (v.ci_low, v.ci_high) == saving[1:] and v.n == n


def _comparisons(diffs, n=10, sig=True):
    return pd.DataFrame([{"measure": "x", "baseline": f"b{i}", "n_pairs": n, "diff": d, "ci_low": d - 1,
                          "ci_high": d + 1, "dz": d, "significant": sig} for i, d in enumerate(diffs)])


def test_beats_every_baseline_supported_when_all_significantly_positive():
    v = beats_every_baseline(_comparisons([1.0, 2.0]))
    assert v.label == "supported" and v.statistic == 1.0 and "b0" in v.measure


def test_beats_every_baseline_not_supported_when_one_significantly_negative():
    assert beats_every_baseline(_comparisons([1.0, -2.0])).label == "not supported"


def test_beats_every_baseline_inconclusive_when_sample_too_small():
    v = beats_every_baseline(_comparisons([1.0, 2.0], n=2, sig=False), min_pairs=5)
    assert v.label == "inconclusive" and "too small" in v.reason and v.n == 2


def test_beats_every_baseline_not_supported_with_enough_prompts_and_no_significance():
    assert beats_every_baseline(_comparisons([0.1, 0.2], n=30, sig=False)).label == "not supported"


def test_beats_every_baseline_needs_comparisons():
    with pytest.raises(ValueError, match="comparisons is empty"):
        beats_every_baseline(_comparisons([]))


@pytest.mark.parametrize(("correct", "n", "label"), [(38, 40, "supported"), (20, 40, "not supported"),
                                                     (34, 40, "inconclusive"), (4, 4, "inconclusive")])
def test_human_level_holds_when_the_accuracys_wilson_interval_lies_at_or_above_the_least_accurate_human(
        correct, n, label):
    v = human_level_verdict(correct, n, 0.80, 0.847)
    assert v.label == label and v.statistic == pytest.approx(correct / n) and v.n == n
    assert v.ci_low < correct / n <= v.ci_high or correct == n


def test_human_level_refuses_an_impossible_count_or_range():
    with pytest.raises(ValueError, match="correct=5, n=4"):
        human_level_verdict(5, 4, 0.8, 0.85)
    with pytest.raises(ValueError, match="human range"):
        human_level_verdict(3, 4, 0.9, 0.8)


def test_barely_varies_flags_too_few_distinct_values_and_a_tiny_spread_and_passes_a_varied_score():
    assert barely_varies([0.9] * 9 + [0.8]) == f"2 distinct values (fewer than {MIN_DISTINCT})"
    assert barely_varies([0.5, float("nan")]) == f"1 distinct value (fewer than {MIN_DISTINCT})"
    tight = [0.5, 0.501, 0.502, 0.503]  # four distinct values, sd 0.0011
    assert barely_varies(tight).startswith("standard deviation 0.00112") and f"below {MIN_SD:g}" in barely_varies(tight)
    assert barely_varies([0.50, 0.53, 0.56]) == ""  # sd 0.0245, just above the threshold
    assert barely_varies([0.50, 0.52, 0.54]) != ""  # sd 0.0163, just below it
    assert barely_varies(tight, min_sd=0.001) == "" and barely_varies([1, 2], min_distinct=2) == ""
