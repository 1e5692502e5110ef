import math
from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from llmcreativity.metrics import kl_divergence, lexical_divergence, lexical_divergences, smoothed_distribution

counts = st.dictionaries(st.sampled_from(list("abcdefg")), st.integers(0, 20), min_size=1)


def test_kl_matches_hand_computation_with_laplace_smoothing():
    # V = {a, b}; p = (1+1, 0+1)/3 = (2/3, 1/3); q = (1+1, 1+1)/4 = (1/2, 1/2)
    expected = 2 / 3 * math.log((2 / 3) / 0.5) + 1 / 3 * math.log((1 / 3) / 0.5)
    assert kl_divergence({"a": 1}, {"a": 1, "b": 1}, alpha=1.0) == pytest.approx(expected)


def test_lidstone_distribution_matches_formula():
    p = smoothed_distribution({"a": 3}, ["a", "b"], alpha=0.5)
    assert p.tolist() == pytest.approx([3.5 / 4, 0.5 / 4])


@given(counts, counts, st.floats(0.01, 2))
def test_kl_is_non_negative(p, q, alpha):
    assert kl_divergence(p, q, alpha) >= 0


@given(counts, st.floats(0.01, 2))
def test_kl_of_identical_distributions_is_zero(p, alpha):
    assert kl_divergence(p, dict(p), alpha) == pytest.approx(0.0, abs=1e-12)


def test_kl_without_smoothing_refuses_unseen_words():
    with pytest.raises(ValueError, match="infinite"):
        kl_divergence({"zork": 1}, {"a": 1}, alpha=0.0)


def test_lexical_divergence_tokenizes_text_like_the_corpus():
    corpus = Counter({"the": 3, "ship": 1})
    assert lexical_divergence("the ship", corpus, alpha=1.0) == pytest.approx(
        kl_divergence({"the": 1, "ship": 1}, corpus, alpha=1.0)
    )


def test_lexical_divergence_errors_name_the_problem():
    corpus = Counter({"the": 3})
    with pytest.raises(ValueError, match="text is empty"):
        lexical_divergence("  ", corpus)
    with pytest.raises(ValueError, match="no tokens"):
        lexical_divergence("?! ...", corpus, tokenizer="words")
    with pytest.raises(ValueError, match="same tokenizer"):
        lexical_divergence("zork blorp", corpus)
    with pytest.raises(ValueError, match="corpus_counts is empty"):
        lexical_divergence("the", Counter())
    with pytest.raises(ValueError, match="alpha"):
        lexical_divergence("the", corpus, alpha=-1)


def test_batched_divergences_equal_the_direct_path_on_a_small_case():
    corpus = Counter({"the": 3, "ship": 1, "sea": 2})
    texts = ["the zork zork", "sea sea ship", "the"]
    fast = lexical_divergences(texts, corpus, alpha=0.5)
    assert fast.tolist() == pytest.approx([lexical_divergence(t, corpus, 0.5) for t in texts], rel=1e-12, abs=1e-12)


words = st.sampled_from("alpha beta gamma delta eps zeta eta theta".split())


@given(st.lists(st.lists(words, min_size=1, max_size=12), min_size=1, max_size=4),
       st.dictionaries(words, st.integers(1, 30), min_size=1), st.floats(0.01, 2))
def test_batched_divergences_equal_the_direct_path(texts, corpus, alpha):
    texts = [" ".join(t) for t in texts]
    assume(all(any(w in corpus for w in t.split()) for t in texts))  # an unknown text is an error on both paths
    fast = lexical_divergences(texts, corpus, alpha)
    assert fast.tolist() == pytest.approx([lexical_divergence(t, corpus, alpha) for t in texts], rel=1e-9, abs=1e-12)


def test_batched_divergences_without_smoothing_and_with_a_bad_text():
    corpus = Counter({"the": 3, "ship": 1})
    one = lexical_divergence("the ship", corpus, 0)
    assert lexical_divergences(["the ship"], corpus, alpha=0).tolist() == pytest.approx([one])
    with pytest.raises(ValueError, match="infinite"):
        lexical_divergences(["the zork"], corpus, alpha=0)
    with pytest.raises(ValueError, match="alpha"):
        lexical_divergences(["the"], corpus, alpha=-1)
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        lexical_divergences(["the", "zork"], corpus)
