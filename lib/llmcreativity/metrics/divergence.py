"""Lexical divergence of a text from a reference corpus: KL between smoothed unigram distributions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from llmcreativity.corpus.tokenize import Tokenizer, tokenize
from llmcreativity.metrics._validation import check_text


def smoothed_distribution(counts: Mapping[str, int], vocab: list[str], alpha: float) -> np.ndarray:
    """Additive (Lidstone) smoothing over `vocab`: p(w) = (c(w) + alpha) / (N + alpha |V|).

    alpha = 1 is Laplace smoothing; alpha = 0 is the maximum-likelihood estimate.
    """
    if alpha < 0:
        raise ValueError(f"alpha={alpha!r}: the smoothing constant must be >= 0")
    c = np.array([counts.get(w, 0) for w in vocab], dtype=np.float64)
    if np.any(c < 0):
        raise ValueError("counts must be non-negative")
    total = c.sum() + alpha * len(vocab)
    if total == 0:
        raise ValueError("all counts are zero and alpha = 0: the distribution is undefined")
    return (c + alpha) / total


def kl_divergence(p_counts: Mapping[str, int], q_counts: Mapping[str, int], alpha: float = 1.0) -> float:
    """KL(p || q) = sum_{w in V} p(w) log(p(w) / q(w)), in nats, with V = vocab(p) U vocab(q).

    Both distributions are Lidstone-smoothed over V with the same `alpha` (see
    `smoothed_distribution`). With alpha = 0 a word of p absent from q gives infinity, which is
    refused with an error.
    """
    vocab = sorted(set(p_counts) | set(q_counts))
    if not vocab:
        raise ValueError("both count tables are empty: KL is undefined")
    p = smoothed_distribution(p_counts, vocab, alpha)
    q = smoothed_distribution(q_counts, vocab, alpha)
    support = p > 0
    if np.any(q[support] == 0):
        missing = vocab[int(np.flatnonzero(support & (q == 0))[0])]
        raise ValueError(f"alpha=0 and the token {missing!r} of p is absent from q: KL is infinite; use alpha > 0")
    return float(max(0.0, np.sum(p[support] * np.log(p[support] / q[support]))))


def lexical_divergence(
    text: str, corpus_counts: Mapping[str, int], alpha: float = 1.0, tokenizer: Tokenizer = "whitespace"
) -> float:
    """KL(p_text || q_corpus) of the text's unigram distribution from the corpus's (see `kl_divergence`).

    `corpus_counts` must come from the same `tokenizer` (see `llmcreativity.corpus.unigram`).
    A text with no tokens, or none that the corpus knows, is an error: its divergence would
    measure only the smoothing.
    """
    check_text(text, "text")
    if not corpus_counts:
        raise ValueError("corpus_counts is empty: build it with llmcreativity.corpus.unigram.unigram_counts")
    tokens = tokenize(text, tokenizer)
    if not tokens:
        raise ValueError(f"text={text[:40]!r} has no tokens under tokenizer {tokenizer!r}")
    if not any(t in corpus_counts for t in tokens):
        raise ValueError(
            f"no token of text={text[:40]!r} occurs in the corpus: check that the corpus counts were built "
            f"with the same tokenizer ({tokenizer!r}) and language"
        )
    return kl_divergence(Counter(tokens), corpus_counts, alpha)


def lexical_divergences(
    texts: Sequence[str], corpus_counts: Mapping[str, int], alpha: float = 1.0, tokenizer: Tokenizer = "whitespace"
) -> np.ndarray:
    """`lexical_divergence` of many texts against one corpus, without rebuilding the corpus distribution per text.

    With V_c the corpus vocabulary, T a text's vocabulary, V = V_c U T, Z_p = N_p + alpha|V|,
    Z_q = N_q + alpha|V| and p_0 = alpha / Z_p (the smoothed mass of a word the text lacks):

        KL = sum_{w in T} p(w) log(p(w) / q(w)) + p_0 (|V \\ T| log(p_0 Z_q) - sum_{w in V_c \\ T} log(c_q(w) + alpha))

    and sum_{w in V_c \\ T} log(c_q(w) + alpha) = L - sum_{w in T and V_c} log(c_q(w) + alpha), with
    L = sum_{w in V_c} log(c_q(w) + alpha) computed once. Equal to `lexical_divergence` up to rounding;
    alpha = 0 (where p_0 log p_0 needs the limit) takes the direct path.
    """
    if alpha <= 0:
        return np.array([lexical_divergence(t, corpus_counts, alpha, tokenizer) for t in texts], dtype=float)
    if not corpus_counts:
        raise ValueError("corpus_counts is empty: build it with llmcreativity.corpus.unigram.unigram_counts")
    counts = np.fromiter(corpus_counts.values(), dtype=np.float64, count=len(corpus_counts))
    n_q, n_vocab_c = counts.sum(), len(counts)
    total_log = float(np.log(counts + alpha).sum())
    out = np.empty(len(texts))
    for i, text in enumerate(texts):
        check_text(text, f"texts[{i}]")
        tokens = Counter(tokenize(text, tokenizer))
        if not tokens:
            raise ValueError(f"texts[{i}]={text[:40]!r} has no tokens under tokenizer {tokenizer!r}")
        c_p = np.array(list(tokens.values()), dtype=np.float64)
        c_q = np.array([corpus_counts.get(w, 0) for w in tokens], dtype=np.float64)
        known = np.array([w in corpus_counts for w in tokens])
        if not known.any():
            raise ValueError(f"no token of texts[{i}]={text[:40]!r} occurs in the corpus: check the tokenizer "
                             f"({tokenizer!r})")
        n_vocab = n_vocab_c + int((~known).sum())
        z_p, z_q = c_p.sum() + alpha * n_vocab, n_q + alpha * n_vocab
        p, q = (c_p + alpha) / z_p, (c_q + alpha) / z_q
        p0 = alpha / z_p
        rest_log = total_log - float(np.log(c_q[known] + alpha).sum())
        n_rest = n_vocab - len(tokens)
        kl = float(np.sum(p * np.log(p / q))) + p0 * (n_rest * np.log(p0 * z_q) - rest_log)
        out[i] = max(0.0, kl)
    return out
