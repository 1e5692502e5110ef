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
    with pytest.raises(ValueError, match=r"texts\[0\]"):
        lexical_divergences(["zork", "blip"], corpus)


# --- Length-controlled (windowed) lexical KL ---------------------------------------------------

def _zipf_texts(rng, vocab, weights, n_texts, n_words):
    return [" ".join(rng.choice(vocab, size=n_words, p=weights)) for _ in range(n_texts)]


def _synthetic():
    import numpy as np

    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(3000)])
    zipf = 1 / np.arange(1, 3001)
    corpus = Counter(" ".join(_zipf_texts(rng, vocab, zipf / zipf.sum(), 1, 200_000)[0].split()).split())
    shifted = np.roll(zipf, 400)  # same shape, other words most frequent: other content
    return rng, vocab, corpus, zipf / zipf.sum(), shifted / shifted.sum()


def test_windowed_kl_is_near_equal_for_the_same_content_at_two_lengths_whole_kl_is_not():
    import numpy as np

    from llmcreativity.corpus.length_check import prefix
    from llmcreativity.metrics import windowed_lexical_divergences

    rng, vocab, corpus, same, _ = _synthetic()
    texts = _zipf_texts(rng, vocab, same, 40, 300)
    short, long = [prefix(t, 120) for t in texts], texts
    w_short, w_long = (windowed_lexical_divergences(x, corpus, window=50).mean() for x in (short, long))
    k_short, k_long = (lexical_divergences(x, corpus).mean() for x in (short, long))
    assert abs(w_long - w_short) / w_short < 0.03
    assert abs(k_long - k_short) / k_short > 0.08 and abs(k_long - k_short) > 3 * abs(w_long - w_short)
    assert np.isfinite(w_short)


def test_windowed_kl_separates_different_content_at_equal_length():
    from llmcreativity.metrics import windowed_lexical_divergences

    rng, vocab, corpus, same, other = _synthetic()
    a = windowed_lexical_divergences(_zipf_texts(rng, vocab, same, 30, 120), corpus, window=50)
    b = windowed_lexical_divergences(_zipf_texts(rng, vocab, other, 30, 120), corpus, window=50)
    assert b.min() > a.max()


def test_length_check_finds_length_dominates_whole_kl_but_not_windowed_kl():
    from llmcreativity.corpus.length_check import length_content_check, length_vs_content

    rng, vocab, corpus, same, other = _synthetic()
    mixed = 0.7 * same + 0.3 * other  # a moderate change of content
    sources = {"close": _zipf_texts(rng, vocab, same, 40, 300), "a bit off": _zipf_texts(rng, vocab, mixed, 40, 300)}
    summary = length_vs_content(length_content_check(sources, corpus, lengths=(120, 300), window=50))
    assert summary.loc["whole", "length_over_content"] > 1
    assert summary.loc["windowed", "length_over_content"] < 0.1


def test_windowed_kl_is_the_mean_of_its_windows_and_nan_below_one_window():
    import numpy as np

    from llmcreativity.metrics import lexical_kl, windowed_lexical_divergences

    corpus = Counter({"the": 5, "ship": 2, "moon": 1})
    text = "the ship the moon the ship"  # windows of 2: "the ship", "the moon", "the ship"
    parts = lexical_divergences(["the ship", "the moon", "the ship"], corpus)
    assert windowed_lexical_divergences([text], corpus, window=2)[0] == pytest.approx(parts.mean())
    assert np.isnan(windowed_lexical_divergences(["the"], corpus, window=2)[0])
    assert lexical_kl([text], corpus, mode="whole")[0] == pytest.approx(lexical_divergences([text], corpus)[0])
    with pytest.raises(ValueError, match="mode="):
        lexical_kl([text], corpus, mode="prefix")
    with pytest.raises(ValueError, match="window="):
        windowed_lexical_divergences([text], corpus, window=0)


def test_one_text_of_unknown_words_is_scored_but_a_batch_of_them_is_a_tokenizer_mismatch():
    from llmcreativity.metrics.divergence import lexical_divergences

    corpus = {"the": 50, "ship": 10, "star": 5}
    kl = lexical_divergences(["the ship the star", "Zorblax Quuv"], corpus)
    assert kl[1] > kl[0] > 0  # unknown words are far from the corpus, not an error
    with pytest.raises(ValueError, match="nor of any other text"):
        lexical_divergences(["Zorblax Quuv", "Blip"], corpus)


def test_windowed_kl_scores_a_text_of_unknown_words_and_refuses_a_batch_of_them():
    from llmcreativity.metrics.divergence import windowed_lexical_divergences

    corpus = {"the": 50, "ship": 10, "star": 5}
    kl = windowed_lexical_divergences(["the ship the star", "Zorblax Quuv Blip Zap"], corpus, window=2)
    assert kl[1] > kl[0] > 0
    with pytest.raises(ValueError, match="nor of any other text"):
        windowed_lexical_divergences(["Zorblax Quuv", "Blip"], corpus, window=1)
