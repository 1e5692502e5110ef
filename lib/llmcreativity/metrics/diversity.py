"""Diversity within a set of texts: Distinct-n, Self-BLEU and mean pairwise embedding cosine.

Used to compare how varied the stories of one agent, framework or condition are. Higher
Distinct-n means more varied wording; higher Self-BLEU and higher mean pairwise cosine mean
more homogeneous texts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics.bleu import BLEU

from llmcreativity.metrics._validation import check_matrix, check_texts, unit_rows

from .tokenize import Tokenizer, tokenize


def distinct_n(texts: Sequence[str], n: int, tokenizer: Tokenizer = "words") -> float:
    """Distinct-n = |unique n-grams| / |n-grams|, pooled over all texts (Li et al., 2016).

    n-grams never cross text boundaries. Returns a value in (0, 1]; raises if no text has n tokens.
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n={n!r}: the n-gram order must be an integer >= 1")
    items = check_texts(texts, "texts")
    grams: list[tuple[str, ...]] = []
    for t in items:
        toks = tokenize(t, tokenizer)
        grams.extend(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))
    if not grams:
        raise ValueError(f"no text has {n} or more tokens under tokenizer {tokenizer!r}: Distinct-{n} is undefined")
    return len(set(grams)) / len(grams)


def self_bleu(texts: Sequence[str]) -> float:
    """Self-BLEU = (1/K) sum_k BLEU(t_k ; {t_j : j != k}) (Zhu et al., 2018), on a 0-1 scale.

    Each text is scored as a hypothesis against all the others as references, with sacrebleu's
    sentence BLEU (13a tokenization, exponential smoothing, effective order: `sacrebleu.sentence_bleu`'s
    settings), and the K scores are averaged. One BLEU object scores them all, so each text is tokenized once.
    """
    items = check_texts(texts, "texts", min_count=2)
    bleu = BLEU(smooth_method="exp", effective_order=True)
    scores = [bleu.sentence_score(hyp, items[:k] + items[k + 1 :]).score / 100.0 for k, hyp in enumerate(items)]
    return float(np.mean(scores))


def mean_pairwise_cosine(embeddings: np.ndarray) -> float:
    """Mean cosine over distinct pairs: (2 / (K(K-1))) sum_{i<j} cos(e_i, e_j), in [-1, 1].

    Rows are normalized here, so the embeddings need not be unit length.
    """
    e = unit_rows(check_matrix(embeddings, "embeddings", min_rows=2), "embeddings")
    k = e.shape[0]
    gram = e @ e.T
    return float((gram.sum() - np.trace(gram)) / (k * (k - 1)))
