import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.metrics import distinct_n, mean_pairwise_cosine, self_bleu

words = st.lists(st.sampled_from(["moon", "ship", "red", "sky", "robot", "dust"]), min_size=1, max_size=12)
texts = st.lists(words.map(" ".join), min_size=2, max_size=5)


def test_distinct_1_and_2_match_hand_count():
    # unigrams: a b c a | a b -> 6 tokens, 3 types; bigrams: ab bc ca | ab -> 4, 3 types
    assert distinct_n(["a b c a", "a b"], 1) == pytest.approx(3 / 6)
    assert distinct_n(["a b c a", "a b"], 2) == pytest.approx(3 / 4)


def test_distinct_n_does_not_count_ngrams_across_texts():
    assert distinct_n(["a b", "c d"], 2) == 1.0


@given(texts, st.integers(1, 3))
def test_distinct_n_lies_in_unit_interval(ts, n):
    if all(len(t.split()) < n for t in ts):
        with pytest.raises(ValueError, match="Distinct"):
            distinct_n(ts, n)
    else:
        assert 0 < distinct_n(ts, n) <= 1


def test_self_bleu_matches_hand_computed_bleu():
    # each text vs the other: precisions 4/5, 3/4, 2/3, 1/2, equal lengths so no brevity penalty
    expected = (4 / 5 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25
    assert self_bleu(["a b c d e", "a b c d f"]) == pytest.approx(expected, abs=1e-9)


def test_self_bleu_of_identical_texts_is_one():
    assert self_bleu(["the red ship lands"] * 3) == pytest.approx(1.0)


@settings(max_examples=30, deadline=None)
@given(texts)
def test_self_bleu_lies_in_unit_interval(ts):
    assert 0 <= self_bleu(ts) <= 1 + 1e-12


def test_mean_pairwise_cosine_matches_hand_value():
    e = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert mean_pairwise_cosine(e) == pytest.approx((0 + 2 / math.sqrt(2)) / 3)


@given(st.integers(0, 10_000))
def test_mean_pairwise_cosine_ignores_row_order_and_scale(seed):
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(6, 4))
    shuffled = e[rng.permutation(6)] * rng.uniform(0.5, 3, size=(6, 1))
    assert mean_pairwise_cosine(shuffled) == pytest.approx(mean_pairwise_cosine(e))
    assert -1 <= mean_pairwise_cosine(e) <= 1


def test_diversity_rejects_bad_inputs_with_clear_errors():
    with pytest.raises(ValueError, match=r"texts\[1\] is empty"):
        distinct_n(["a b", "  "], 1)
    with pytest.raises(TypeError, match="not one string"):
        self_bleu("one text")
    with pytest.raises(ValueError, match="at least 2"):
        self_bleu(["only one"])
    with pytest.raises(ValueError, match="at least 2"):
        mean_pairwise_cosine(np.ones((1, 3)))
    with pytest.raises(ValueError, match="zero vector"):
        mean_pairwise_cosine(np.array([[1.0, 0.0], [0.0, 0.0]]))
