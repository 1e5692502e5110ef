import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.stats import accuracy, cohen_kappa, confusion_table, icc, spearman


def test_accuracy_counts_matches_over_all_items():
    assert accuracy([True, True, False, False], [True, False, False, True]) == 0.5


def test_accuracy_counts_missing_prediction_as_wrong():
    assert accuracy([True, False], [None, False]) == 0.5


def test_accuracy_rejects_unequal_lengths():
    with pytest.raises(ValueError, match="equally long"):
        accuracy([1, 2], [1])


def test_cohen_kappa_matches_hand_computation():
    # table [[20, 5], [10, 15]]: p_o = 35/50 = 0.7; p_e = (25*30 + 25*20)/50^2 = 0.5; kappa = 0.2/0.5 = 0.4
    a = [0] * 25 + [1] * 25
    b = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_is_nan_when_both_labelings_are_one_constant():
    assert math.isnan(cohen_kappa([True, True, True], [True, True, True]))


def test_cohen_kappa_rejects_missing_labels():
    with pytest.raises(ValueError, match="None"):
        cohen_kappa([True, False], [None, False])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=40))
def test_cohen_kappa_is_symmetric_and_at_most_one(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    k1, k2 = cohen_kappa(a, b), cohen_kappa(b, a)
    assert (math.isnan(k1) and math.isnan(k2)) or (k1 == pytest.approx(k2) and k1 <= 1 + 1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.booleans(), min_size=2, max_size=40).filter(lambda v: len(set(v)) == 2))
def test_cohen_kappa_of_identical_labelings_is_one(v):
    assert cohen_kappa(v, v) == pytest.approx(1.0)


def test_confusion_table_counts_and_missing_column():
    t = confusion_table([True, True, False, False], [True, None, False, True], labels=[True, False])
    assert t.loc[True, True] == 1 and t.loc[True, "missing"] == 1
    assert t.loc[False, True] == 1 and t.loc[False, False] == 1
    assert list(t.columns) == [True, False, "missing"]


def test_spearman_of_monotone_data_is_one_and_constant_is_nan():
    assert spearman([1, 2, 3, 4], [10, 20, 25, 100])[0] == pytest.approx(1.0)
    assert math.isnan(spearman([1, 1, 1, 1], [1, 2, 3, 4])[0])


def test_icc_reproduces_shrout_fleiss_1979_example():
    # Shrout & Fleiss (1979), Table 2: ICC(1,1)=.17, ICC(2,1)=.29, ICC(3,1)=.71
    data = pd.DataFrame([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    assert icc(data, "ICC(1,1)").icc == pytest.approx(0.17, abs=0.005)
    assert icc(data, "ICC(A,1)").icc == pytest.approx(0.29, abs=0.005)
    assert icc(data, "ICC(C,1)").icc == pytest.approx(0.71, abs=0.005)


def test_icc_of_identical_raters_is_one():
    x = np.array([1, 3, 2, 5, 4, 2], dtype=float)
    assert icc(pd.DataFrame({"a": x, "b": x, "c": x})).icc == pytest.approx(1.0)


def test_icc_rejects_unknown_kind_naming_the_choices():
    with pytest.raises(ValueError, match="ICC\\(A,1\\)"):
        icc(pd.DataFrame({"a": [1, 2, 3], "b": [1, 2, 3]}), "ICC2")


def test_rater_ceiling_of_identical_raters_is_perfect():
    x = [1, 2, 3, 4, 5, 3]
    from llmcreativity.stats import rater_ceiling

    c = rater_ceiling(pd.DataFrame({"a": x, "b": x, "c": x}))
    assert c["spearman_pairwise"] == pytest.approx(1) and c["spearman_loo"] == pytest.approx(1)
    assert c["icc_single"] == pytest.approx(1) and c["n_raters"] == 3


def test_rater_ceiling_pairwise_spearman_is_the_mean_over_pairs():
    from llmcreativity.stats import rater_ceiling

    r = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 3, 4], "c": [4, 3, 2, 1]})
    # pairs: (a,b)=1, (a,c)=-1, (b,c)=-1 -> mean -1/3
    assert rater_ceiling(r)["spearman_pairwise"] == pytest.approx(-1 / 3)


def test_agreement_with_raters_uses_shared_items_only():
    from llmcreativity.stats import agreement_with_raters

    ratings = pd.DataFrame({"r1": [1, 2, 3, 4], "r2": [2, 2, 4, 5]}, index=[10, 11, 12, 13])
    scores = pd.Series([1.5, 2.0, 3.5, 4.5, 99.0], index=[10, 11, 12, 13, 14])
    a = agreement_with_raters(scores, ratings)
    assert a["n_items"] == 4 and a["spearman_mean"] == pytest.approx(1.0) and a["icc_mean"] == pytest.approx(1.0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(-6, 6)), min_size=2, max_size=120),
       st.sampled_from([1.0, 0.37, 1e-3]))
def test_roc_auc_is_sklearns_bit_for_bit(pairs, scale):
    from sklearn.metrics import roc_auc_score

    from llmcreativity.stats import roc_auc

    y = np.array([float(p[0]) for p in pairs])
    s = np.array([p[1] * scale for p in pairs])  # small integers: many ties, collinear corners dropped
    if len(np.unique(y)) < 2:
        assert math.isnan(roc_auc(y, s))
    else:
        assert roc_auc(y, s) == roc_auc_score(y, s)


def test_roc_auc_on_continuous_scores_equals_sklearns():
    from sklearn.metrics import roc_auc_score

    from llmcreativity.stats import roc_auc

    rng = np.random.default_rng(3)
    for n in (2, 7, 60, 400):
        for _ in range(50):
            y = (rng.random(n) < rng.random()).astype(float)
            s = rng.normal(size=n).astype(np.float32 if n == 60 else float)
            if len(np.unique(y)) == 2:
                assert roc_auc(y, s) == roc_auc_score(y, s)


def test_roc_auc_refuses_scores_it_cannot_rank():
    from llmcreativity.stats import roc_auc

    with pytest.raises(ValueError, match="NaN"):
        roc_auc([0, 1, 1], [0.2, float("nan"), 0.3])
    with pytest.raises(ValueError, match="0 or 1"):
        roc_auc([0, 2, 1], [0.2, 0.1, 0.3])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 5)), min_size=1, max_size=150))
def test_adjusted_rand_is_sklearns_bit_for_bit(pairs):
    from sklearn.metrics import adjusted_rand_score

    from llmcreativity.stats import adjusted_rand

    a, b = [p[0] for p in pairs], [f"c{p[1]}" for p in pairs]
    assert adjusted_rand(a, b) == adjusted_rand_score(a, b)
    assert adjusted_rand(a, a) == 1.0


def test_adjusted_rand_of_independent_partitions_is_near_zero():
    from llmcreativity.stats import adjusted_rand

    rng = np.random.default_rng(0)
    assert abs(adjusted_rand(rng.integers(0, 5, 4000), rng.integers(0, 5, 4000))) < 0.01
