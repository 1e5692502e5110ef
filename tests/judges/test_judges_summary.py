import math

import pytest

from llmcreativity.judges import (
    CriterionVerdict,
    JudgeCall,
    Judgement,
    accuracy_difference,
    judgement_table,
    summarize_judges,
    token_saving,
)


def judgement(item, judge, verdict, tokens):
    call = JudgeCall("valid", "a", 1, "judge", [{"role": "user", "content": "x"}], "r", tokens - 1, 1, 0.5, False)
    crit = CriterionVerdict("valid", verdict, 0.5, "a", 1, False, 0 if verdict is not None else 1)
    return Judgement(item, judge, verdict, [crit], [call])


def test_summary_accuracy_kappa_and_tokens_match_hand_values():
    labels = {"a": True, "b": True, "c": False, "d": False}
    js = [judgement("a", "J", True, 10), judgement("b", "J", False, 20), judgement("c", "J", False, 30),
          judgement("d", "J", True, 40)]
    s = summarize_judges(judgement_table(js, labels), n_resamples=200).iloc[0]
    # 2 of 4 right; table [[1,1],[1,1]] -> kappa 0; mean tokens 25; each item 0.5 s
    assert s["accuracy"] == 0.5 and s["kappa"] == pytest.approx(0.0) and s["tokens_per_item"] == 25
    assert s["seconds_per_item"] == 0.5 and s["accuracy_low"] <= 0.5 <= s["accuracy_high"]


def test_summary_counts_unparsed_as_wrong_and_reports_parsed_share():
    labels = {"a": True, "b": False}
    js = [judgement("a", "J", None, 10), judgement("b", "J", False, 10)]
    s = summarize_judges(judgement_table(js, labels), n_resamples=50).iloc[0]
    assert s["accuracy"] == 0.5 and s["parsed_share"] == 0.5 and s["parse_failures"] == 1
    assert math.isnan(s["kappa"])


def test_table_requires_a_label_for_every_item():
    with pytest.raises(KeyError, match="no human label"):
        judgement_table([judgement("z", "J", True, 5)], {"a": True})


def test_token_saving_is_one_minus_the_token_ratio():
    js = [judgement("a", "R", True, 30), judgement("b", "R", True, 10),
          judgement("a", "C", True, 100), judgement("b", "C", True, 100)]
    ci = token_saving(judgement_table(js, {"a": True, "b": True}), "R", "C", n_resamples=100)
    assert ci.estimate == pytest.approx(0.8)
    assert 0.7 <= ci.low <= ci.high <= 0.9


def test_accuracy_difference_is_the_paired_mean_of_correctness():
    labels = {"a": True, "b": True, "c": False, "d": False}
    js = [judgement(i, "R", v, 10) for i, v in zip("abcd", [True, True, False, True], strict=True)]  # 3 right
    # 1 right (None is wrong)
    js += [judgement(i, "C", v, 30) for i, v in zip("abcd", [True, False, True, None], strict=True)]
    d = accuracy_difference(judgement_table(js, labels), "R", "C", n_resamples=300)
    assert d.estimate == pytest.approx(0.5) and d.low <= 0.5 <= d.high
