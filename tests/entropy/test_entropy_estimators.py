"""Semantic-entropy estimators: hand-worked cases, known pitfalls and properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.entropy.se_estimators import (
    cluster_log_probabilities,
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)


def test_discrete_entropy_of_0_1_2_1_is_one_and_a_half_ln2():
    # frequencies 1/4, 1/2, 1/4: -(1/4 ln 1/4 + 1/2 ln 1/2 + 1/4 ln 1/4) = 1.5 ln 2
    assert discrete_semantic_entropy([0, 1, 2, 1]) == pytest.approx(1.5 * math.log(2))


def test_discrete_entropy_of_one_cluster_is_zero():
    assert discrete_semantic_entropy([7] * 10) == 0.0


def test_probability_weighted_entropy_worked_by_hand():
    # cluster 0 holds p=0.3 and p=0.1, cluster 1 holds p=0.4: masses 0.4 and 0.4 -> ln 2
    ids, lp, texts = [0, 0, 1], np.log([0.3, 0.1, 0.4]), ["a", "b", "c"]
    assert probability_weighted_semantic_entropy(ids, lp, texts) == pytest.approx(math.log(2))


def test_probability_weighted_entropy_uneven_masses_by_hand():
    # masses 0.6 and 0.2 -> p~ = 3/4, 1/4 -> H = -(3/4 ln 3/4 + 1/4 ln 1/4)
    h = probability_weighted_semantic_entropy([0, 1], np.log([0.6, 0.2]), ["a", "b"])
    assert h == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))


def test_every_sample_counts_by_default_and_distinct_counts_each_sequence_once():
    # "a" (p=0.9) sampled five times and "b" (p=0.1) once
    ids, lp, texts = [0] * 5 + [1], [math.log(0.9)] * 5 + [math.log(0.1)], ["a"] * 5 + ["b"]
    every = cluster_log_probabilities(ids, lp, texts)
    assert math.exp(every[0]) == pytest.approx(4.5 / 4.6) and math.exp(every[1]) == pytest.approx(0.1 / 4.6)
    distinct = cluster_log_probabilities(ids, lp, texts, duplicates="distinct")
    assert math.exp(distinct[0]) == pytest.approx(0.9) and math.exp(distinct[1]) == pytest.approx(0.1)


def _entropy(masses):
    q = np.asarray(masses, dtype=float) / np.sum(masses)
    return float(-np.sum(q * np.log(q)))


def test_duplicate_heavy_low_temperature_step_separates_the_two_rules():
    # a low-temperature step: the mode (p=0.3) sampled nine times, one other answer (p=0.2) once
    ids, lp, texts = [0] * 9 + [1], [math.log(0.3)] * 9 + [math.log(0.2)], ["mode"] * 9 + ["other"]
    every = probability_weighted_semantic_entropy(ids, lp, texts)
    distinct = probability_weighted_semantic_entropy(ids, lp, texts, duplicates="distinct")
    assert every == pytest.approx(_entropy([9 * 0.3, 0.2]))
    assert distinct == pytest.approx(_entropy([0.3, 0.2]))
    assert distinct > 2.5 * every  # the distinct rule forgets that the mode came back nine times
    # the length-normalized estimator follows the same rule
    toks = [[math.log(0.3)]] * 9 + [[math.log(0.2)]]
    assert length_normalized_semantic_entropy(ids, toks, texts) == pytest.approx(every)
    assert length_normalized_semantic_entropy(ids, toks, texts, duplicates="distinct") == pytest.approx(distinct)


def test_unknown_duplicate_rule_is_refused():
    with pytest.raises(ValueError, match="duplicates='all'.*every.*distinct"):
        probability_weighted_semantic_entropy([0, 1], [-1.0, -1.0], ["a", "b"], duplicates="all")


def test_tiny_log_probabilities_do_not_underflow():
    # exp(-2000) is 0.0 in floating point; the ratio exp(-2000)/exp(-2000 - ln 3) = 3 must survive
    h = probability_weighted_semantic_entropy([0, 1], [-2000.0, -2000.0 - math.log(3)], ["a", "b"])
    assert h == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))


def test_length_normalized_entropy_uses_mean_token_logprob():
    # means: -1 and -1 (a long and a short sequence) -> equal mass -> ln 2, although sums differ
    h = length_normalized_semantic_entropy([0, 1], [[-1.0] * 8, [-1.0]], ["long", "short"])
    assert h == pytest.approx(math.log(2))


def test_empty_sequence_gets_no_mass_in_length_normalized_entropy():
    assert length_normalized_semantic_entropy([0, 1], [[-0.5], []], ["a", ""]) == pytest.approx(0.0)


@pytest.mark.parametrize("bad", [[], [[0, 1]]])
def test_bad_cluster_ids_raise_naming_input(bad):
    with pytest.raises(ValueError, match="cluster_ids"):
        discrete_semantic_entropy(bad)


def test_mismatched_lengths_raise():
    with pytest.raises(ValueError, match="one entry per sample"):
        probability_weighted_semantic_entropy([0, 1], [-1.0], ["a", "b"])


def test_positive_log_probability_is_rejected():
    with pytest.raises(ValueError, match="natural-log"):
        probability_weighted_semantic_entropy([0, 1], [0.5, -1.0], ["a", "b"])


def test_all_minus_infinity_is_rejected():
    with pytest.raises(ValueError, match="probability 0"):
        probability_weighted_semantic_entropy([0, 1], [-math.inf, -math.inf], ["a", "b"])


ids_strategy = st.lists(st.integers(0, 5), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(ids_strategy)
def test_discrete_entropy_lies_between_zero_and_log_k(ids):
    h = discrete_semantic_entropy(ids)
    assert -1e-12 <= h <= math.log(len(set(ids))) + 1e-9


@settings(max_examples=60, deadline=None)
@given(ids_strategy, st.permutations(range(6)))
def test_discrete_entropy_ignores_cluster_names(ids, perm):
    assert discrete_semantic_entropy([perm[i] for i in ids]) == pytest.approx(discrete_semantic_entropy(ids))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(-3000, 0)), min_size=1, max_size=25))
def test_probability_weighted_entropy_is_bounded_and_shift_invariant(rows):
    ids = [c for c, _ in rows]
    lp = [v for _, v in rows]
    texts = [f"s{i}" for i in range(len(rows))]
    h = probability_weighted_semantic_entropy(ids, lp, texts)
    assert -1e-12 <= h <= math.log(len(set(ids))) + 1e-9
    shifted = probability_weighted_semantic_entropy(ids, [v - 500.0 for v in lp], texts)
    assert shifted == pytest.approx(h, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(ids_strategy)
def test_equal_probabilities_of_distinct_samples_reduce_to_discrete(ids):
    texts = [f"s{i}" for i in range(len(ids))]
    h = probability_weighted_semantic_entropy(ids, [-4.0] * len(ids), texts)
    assert h == pytest.approx(discrete_semantic_entropy(ids), abs=1e-9)
