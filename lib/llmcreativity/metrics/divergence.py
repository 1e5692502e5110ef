"""Lexical divergence of a text from a reference corpus: KL between smoothed unigram distributions.

Two modes (`LEXICAL_KL_MODES`):

- ``"windowed"`` (the default of the pipeline): the mean KL over consecutive, non-overlapping windows of
  W tokens, so every story is compared at the same length (`windowed_lexical_divergences`);
- ``"whole"``: the KL of the whole story's unigram distribution (`lexical_divergences`), as the LLM Review
  paper computed it. With add-one smoothing over a corpus vocabulary of tens of thousands of words, a
  story of L tokens keeps only about L / (L + |V|) of its mass on its own counts, so this value mostly
  measures L: longer stories of the same content score differently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from llmcreativity.metrics._validation import check_text

from .tokenize import Tokenizer, tokenize


def smoothed_distribution(counts: Mapping[str, int], vocab: list[str], alpha: float) -> np.ndarray:
    """Additive (Lidstone) smoothing over `vocab`: p(w) = (c(w) + alpha) / (N + alpha |V|).

    alpha = 1 is Laplace smoothing; alpha = 0 is the maximum-likelihood estimate.
    """
    if alpha < 0:
        raise ValueError(f"alpha={alpha!r}: the smoothing constant must be >= 0")
    c = np.array([counts.get(w, 0) for w in vocab], dtype=np.float64)
    if np.any(c < 0):
        raise ValueError("counts must be non-negative")
    total = float(c.sum()) + alpha * len(vocab)
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
    rows = []
    for i, text in enumerate(texts):
        check_text(text, f"texts[{i}]")
        tokens = tokenize(text, tokenizer)
        if not tokens:
            raise ValueError(f"texts[{i}]={text[:40]!r} has no tokens under tokenizer {tokenizer!r}")
        rows.append(Counter(tokens))
    return _kl_of_counts(rows, corpus_counts, alpha, names=[f"texts[{i}]={t[:40]!r}" for i, t in enumerate(texts)],
                         tokenizer=tokenizer)


def _kl_of_counts(rows: Sequence[Counter[str]], corpus_counts: Mapping[str, int], alpha: float, *,
                  names: Sequence[str] | None, tokenizer: str) -> np.ndarray:
    """KL(p_row || q_corpus) of each token count table, by the closed form of `lexical_divergences` (alpha > 0).

    With `names`, rows none of whose tokens the corpus knows are an error naming the first when *every* row is
    like that (a tokenizer mismatch); one such row among known ones is scored (a text of unknown words, or a short
    window of an otherwise known text, is far from the corpus, not a mismatch)."""
    if not corpus_counts:
        raise ValueError("corpus_counts is empty: build it with llmcreativity.corpus.unigram.unigram_counts")
    counts = np.fromiter(corpus_counts.values(), dtype=np.float64, count=len(corpus_counts))
    n_q, n_vocab_c = counts.sum(), len(counts)
    total_log = float(np.log(counts + alpha).sum())
    out, unknown_rows = np.empty(len(rows)), 0
    for i, tokens in enumerate(rows):
        c_p = np.array(list(tokens.values()), dtype=np.float64)
        c_q = np.array([corpus_counts.get(w, 0) for w in tokens], dtype=np.float64)
        known = np.array([w in corpus_counts for w in tokens])
        unknown_rows += int(not known.any())
        n_vocab = n_vocab_c + int((~known).sum())
        z_p, z_q = c_p.sum() + alpha * n_vocab, n_q + alpha * n_vocab
        p, q = (c_p + alpha) / z_p, (c_q + alpha) / z_q
        p0 = alpha / z_p
        rest_log = total_log - float(np.log(c_q[known] + alpha).sum())
        n_rest = n_vocab - len(tokens)
        kl = float(np.sum(p * np.log(p / q))) + p0 * (n_rest * np.log(p0 * z_q) - rest_log)
        out[i] = max(0.0, kl)
    if names is not None and rows and unknown_rows == len(rows):
        raise ValueError(f"no token of {names[0]} (nor of any other text) occurs in the corpus: check the tokenizer "
                         f"({tokenizer!r})")
    return out


LexicalKLMode = Literal["windowed", "whole"]
"""How a story's lexical KL is computed: mean over fixed-size windows (length-controlled) or over the whole story."""
LEXICAL_KL_MODES: tuple[str, ...] = ("windowed", "whole")
"""`LexicalKLMode`'s values; the first is the default."""
KL_WINDOW = 50
"""Default window W (tokens) of the windowed lexical KL: short enough that a 120-word story gives two windows."""


def windowed_lexical_divergences(texts: Sequence[str], corpus_counts: Mapping[str, int], window: int = KL_WINDOW,
                                 alpha: float = 1.0, tokenizer: Tokenizer = "whitespace") -> np.ndarray:
    """Length-controlled lexical KL: the mean KL of consecutive, non-overlapping windows of `window` tokens,

        KL_W(x) = (1/M) sum_{m=1}^{M} KL(p_{x[(m-1)W : mW]} || q_corpus),   M = floor(L / W),

    where L is the number of tokens of x and each window is Lidstone-smoothed as in `lexical_divergences`.
    Every window has the same length, so the smoothing weighs the same in every story, and the value of a
    story does not depend on how long it is, only on what its windows say. A trailing part shorter than
    W is left out; a text shorter than W has no window and gets NaN (it cannot be compared at this length).
    """
    if window < 1:
        raise ValueError(f"window={window!r}: a window needs at least 1 token")
    if alpha <= 0:
        raise ValueError(f"alpha={alpha!r}: the windowed KL needs alpha > 0 (a window's unseen words)")
    windows: list[Counter[str]] = []
    owner: list[int] = []
    known = False
    for i, text in enumerate(texts):
        check_text(text, f"texts[{i}]")
        tokens = tokenize(text, tokenizer)
        known = known or any(t in corpus_counts for t in tokens)
        for start in range(0, len(tokens) - window + 1, window):
            windows.append(Counter(tokens[start:start + window]))
            owner.append(i)
    if texts and not known:
        raise ValueError(f"no token of texts[0]={texts[0][:40]!r} (nor of any other text) occurs in the corpus: check "
                         f"the tokenizer ({tokenizer!r})")
    kl = _kl_of_counts(windows, corpus_counts, alpha, names=None, tokenizer=tokenizer)
    sums = np.bincount(np.asarray(owner, dtype=int), weights=kl, minlength=len(texts))
    n = np.bincount(np.asarray(owner, dtype=int), minlength=len(texts))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, sums / np.maximum(n, 1), np.nan)


def lexical_kl(texts: Sequence[str], corpus_counts: Mapping[str, int], *, mode: LexicalKLMode = "windowed",
               window: int = KL_WINDOW, alpha: float = 1.0, tokenizer: Tokenizer = "whitespace") -> np.ndarray:
    """The lexical KL of each text in the chosen `mode`: "windowed" (`windowed_lexical_divergences`, default) or
    "whole" (`lexical_divergences`, the paper's whole-story value)."""
    if mode == "windowed":
        return windowed_lexical_divergences(texts, corpus_counts, window, alpha, tokenizer)
    if mode == "whole":
        return lexical_divergences(texts, corpus_counts, alpha, tokenizer)
    raise ValueError(f"mode={mode!r}: choose one of {LEXICAL_KL_MODES}")
