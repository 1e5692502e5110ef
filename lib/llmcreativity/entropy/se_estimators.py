"""Semantic-entropy estimators over a partition of sampled answers into meaning clusters.

Three estimators from the semantic-uncertainty literature (Kuhn et al. 2023; Farquhar et al. 2024):

* discrete: clusters weighted by how many samples fell in them;
* probability-weighted: clusters weighted by the model's probability of their members;
* length-normalized: as probability-weighted, with each sequence scored by its mean token
  log-probability, so long answers are not penalized for their length.

All work in log space with `scipy.special.logsumexp`, so answers whose probability is far
below the smallest float (log p = -900, say) still weigh correctly against each other.

A cluster's mass sums its members' probabilities, and a sequence sampled k times can count k times
(`duplicates="every"`, the default: the rule of the reference implementation of Farquhar et al. 2024
and of the step-wise paper's code) or once (`duplicates="distinct"`: the mass the model gives the
cluster's distinct sequences, a lower bound on the cluster's true probability). At low temperature
most samples repeat the mode, so "every" weights the mode's cluster by its sampled frequency times
its probability and gives a much lower SE than "distinct".
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np
from scipy.special import logsumexp

Duplicates = Literal["every", "distinct"]
"""How a sequence sampled k times counts in its cluster's mass: k times ("every") or once ("distinct")."""
DUPLICATE_RULES: tuple[str, ...] = ("every", "distinct")
"""The values of `Duplicates`."""


def _check_duplicates(duplicates: str) -> None:
    if duplicates not in DUPLICATE_RULES:
        raise ValueError(f"duplicates={duplicates!r}: use 'every' (each sample counts, the papers' rule) or "
                         "'distinct' (each distinct sequence counts once)")


def _check_ids(cluster_ids: Sequence[Hashable]) -> np.ndarray:
    ids = np.asarray(cluster_ids)
    if ids.ndim != 1 or ids.size == 0:
        raise ValueError(f"cluster_ids={cluster_ids!r}: give a non-empty flat sequence, one cluster id per sample")
    return ids


def _entropy_from_log_masses(log_mass: np.ndarray) -> float:
    """H = -sum_c p_c ln p_c with p_c = exp(log_mass_c - logsumexp(log_mass))."""
    finite = log_mass[np.isfinite(log_mass)]
    if finite.size == 0:
        raise ValueError("every cluster has zero probability (all log-probabilities are -inf): nothing to weigh")
    log_p = finite - logsumexp(finite)
    return float(max(0.0, -np.sum(np.exp(log_p) * log_p)))


def discrete_semantic_entropy(cluster_ids: Sequence[Hashable]) -> float:
    """Discrete semantic entropy, from cluster frequencies only (cluster ids, or any labels of one kind).

    SE_D = - sum_c (n_c / N) ln(n_c / N), where n_c samples of N fell in cluster c.

    >>> import math
    >>> round(discrete_semantic_entropy([0, 1, 2, 1]) / math.log(2), 6)
    1.5
    >>> discrete_semantic_entropy([3, 3, 3])
    0.0
    """
    ids = _check_ids(cluster_ids)
    _, counts = np.unique(ids, return_counts=True)
    return _entropy_from_log_masses(np.log(counts.astype(float)))


def cluster_log_probabilities(
    cluster_ids: Sequence[int], sequence_log_probs: Sequence[float], texts: Sequence[Hashable],
    *, duplicates: Duplicates = "every",
) -> dict[int, float]:
    """Normalized log-probability of each cluster over the sampled clusters.

    log p(c) = logsumexp_{s in S(c)} log p(s),   then   log p~(c) = log p(c) - logsumexp_c' log p(c'),

    where S(c) holds every sample of cluster c (`duplicates="every"`: a sequence sampled k times
    counts k times) or its *distinct* sequences U(c) (`duplicates="distinct"`: it counts once).

    >>> lp = cluster_log_probabilities([0, 0, 1], [math.log(0.2), math.log(0.2), math.log(0.2)], ["a", "a", "b"])
    >>> {c: round(math.exp(v), 3) for c, v in lp.items()}
    {0: 0.667, 1: 0.333}
    >>> lp = cluster_log_probabilities([0, 0, 1], [math.log(0.2)] * 3, ["a", "a", "b"], duplicates="distinct")
    >>> {c: round(math.exp(v), 3) for c, v in lp.items()}
    {0: 0.5, 1: 0.5}
    """
    _check_duplicates(duplicates)
    ids = _check_ids(cluster_ids)
    logp = np.asarray(sequence_log_probs, dtype=float)
    if logp.shape != ids.shape or len(texts) != ids.size:
        raise ValueError(
            f"cluster_ids ({ids.size}), sequence_log_probs ({logp.size}) and texts ({len(texts)}) "
            "must have one entry per sample"
        )
    if np.isnan(logp).any() or (logp > 1e-6).any():
        raise ValueError("sequence_log_probs must be natural-log probabilities: no NaN and none above 0")
    members: list[tuple[int, float]] = []
    seen: set[tuple[int, Hashable]] = set()
    for c, t, v in zip(ids.tolist(), texts, logp.tolist(), strict=True):
        if duplicates == "every" or (c, t) not in seen:
            members.append((c, v))
        seen.add((c, t))
    clusters = sorted({c for c, _ in members})
    mass = np.array([logsumexp([v for c2, v in members if c2 == c]) for c in clusters])
    finite = mass[np.isfinite(mass)]
    if finite.size == 0:
        raise ValueError("every sample has probability 0 (log-probability -inf): nothing to weigh")
    norm = mass - logsumexp(finite)
    return dict(zip(clusters, norm.tolist(), strict=True))


def probability_weighted_semantic_entropy(
    cluster_ids: Sequence[int], sequence_log_probs: Sequence[float], texts: Sequence[Hashable],
    *, duplicates: Duplicates = "every",
) -> float:
    """Semantic entropy with clusters weighted by the probability of their members.

    SE = - sum_c p~(c) ln p~(c),  p~(c) = sum_{s in S(c)} p(s) / sum_c' sum_{s in S(c')} p(s),

    with log p(s) = sum_j log p(x_j | x_<j) the full sequence log-probability and S(c) every sample
    of cluster c, or its distinct sequences with `duplicates="distinct"` (`cluster_log_probabilities`).

    >>> round(probability_weighted_semantic_entropy([0, 1], [-1000.0, -1000.0], ["a", "b"]) / math.log(2), 6)
    1.0
    """
    log_pc = np.array(list(cluster_log_probabilities(cluster_ids, sequence_log_probs, texts,
                                                     duplicates=duplicates).values()))
    return _entropy_from_log_masses(log_pc)


def length_normalized_semantic_entropy(
    cluster_ids: Sequence[int], token_log_probs: Sequence[Sequence[float]], texts: Sequence[Hashable],
    *, duplicates: Duplicates = "every",
) -> float:
    """Probability-weighted semantic entropy with length-normalized sequence scores.

    log p_bar(s) = (1 / L_s) sum_{j=1}^{L_s} log p(x_j | x_<j);  SE_LN = - sum_c p~(c) ln p~(c)
    with p~(c) built from p_bar as in `probability_weighted_semantic_entropy`. A sequence with no
    tokens gets log p_bar = -inf (no mass).

    >>> round(length_normalized_semantic_entropy([0, 1], [[-1.0, -1.0], [-1.0]], ["a b", "c"]) / math.log(2), 6)
    1.0
    """
    means = [float(np.mean(t)) if len(t) else -math.inf for t in token_log_probs]
    return probability_weighted_semantic_entropy(cluster_ids, means, texts, duplicates=duplicates)
