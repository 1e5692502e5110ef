"""Agreement of a yes/no judge with human labels, resampling whole groups: AUC, Cohen's kappa, and the paired
difference from a baseline.

A judge scores each item; the AUC is P(score of a valid item > score of an invalid one) (ties count a half), 0.5 at
chance whatever the share of valid items, so it needs no threshold. Kappa needs one: the threshold is chosen on
development (`best_threshold`) and applied unchanged to the test split. Items of one group (the solutions of one
problem) are dependent, so every interval here is a cluster bootstrap over groups
(`stats.cluster_bootstrap_ci`); a difference between two judges is computed on the same resamples (paired).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..stats import cohen_kappa, roc_auc
from ..stats.bootstrap import ConfidenceInterval, cluster_bootstrap_ci
from .splits import Groups

AUC_CHANCE = 0.5
"""The AUC of a judge that knows nothing."""
KAPPA_CHANCE = 0.0
"""Cohen's kappa of a judge that knows nothing."""
THRESHOLD_QUANTILES = np.linspace(0.05, 0.95, 19)
"""Where `best_threshold` looks: these quantiles of the development scores."""


def auc(y: np.ndarray, s: np.ndarray) -> float:
    """Area under the ROC curve of scores `s` for labels `y` (1 valid, 0 not); NaN with one class."""
    return roc_auc(y, s)


def kappa_at(y: np.ndarray, s: np.ndarray, threshold: float) -> float:
    """Cohen's kappa of the labels with "valid when score >= threshold"."""
    return cohen_kappa([bool(v) for v in y], [bool(v) for v in np.asarray(s) >= threshold])


def best_threshold(y: np.ndarray, s: np.ndarray) -> float:
    """The threshold, among `THRESHOLD_QUANTILES` of `s`, with the highest kappa on these (development) items."""
    candidates = np.unique(np.quantile(s, THRESHOLD_QUANTILES))
    kappas = [kappa_at(y, s, t) for t in candidates]
    return float(candidates[int(np.nanargmax(kappas))])


def auc_interval(y: np.ndarray, s: np.ndarray, groups: Groups, *, n_resamples: int = 2000,
                 seed: int = 0) -> ConfidenceInterval:
    """AUC with its 95 % cluster-bootstrap interval over `groups`; `n` counts groups."""
    return cluster_bootstrap_ci([y, s], list(groups), auc, n_resamples=n_resamples, seed=seed)


def kappa_interval(y: np.ndarray, s: np.ndarray, threshold: float, groups: Groups, *,
                   n_resamples: int = 2000, seed: int = 0) -> ConfidenceInterval:
    """Kappa at `threshold` with its 95 % cluster-bootstrap interval over `groups`."""
    return cluster_bootstrap_ci([y, s], list(groups), lambda a, b: kappa_at(a, b, threshold), n_resamples=n_resamples,
                                seed=seed)


def auc_difference(y: np.ndarray, s: np.ndarray, baseline: np.ndarray, groups: Groups, *,
                   n_resamples: int = 2000, seed: int = 0) -> ConfidenceInterval:
    """AUC(s) - AUC(baseline) on the same items, with its paired 95 % cluster-bootstrap interval."""
    return cluster_bootstrap_ci([y, s, baseline], list(groups), lambda a, b, c: auc(a, b) - auc(a, c),
                                n_resamples=n_resamples, seed=seed)


def duplicate_ceiling(groups: Groups, texts: Sequence[str], labels: Sequence[bool]) -> dict[str, float]:
    """How far people agree with themselves: over texts labelled twice or more within one group, the first two
    labels of each compared. Returns pairs, agreement, Cohen's kappa and the balanced accuracy of one label as a
    predictor of the other (the AUC of a yes/no judge), the ceiling on the AUC and kappa scales."""
    first: dict[tuple[str, str], list[bool]] = {}
    for g, t, v in zip(groups, texts, labels, strict=True):
        first.setdefault((str(g), t.strip().lower()), []).append(bool(v))
    pairs = [(v[0], v[1]) for v in first.values() if len(v) >= 2]
    if not pairs:
        return {"pairs": 0.0, "agreement": float("nan"), "kappa": float("nan"), "auc": float("nan")}
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    both = np.concatenate([a, b]), np.concatenate([b, a])  # either label of a pair may be "the judge"
    tpr = float((both[1] & both[0]).sum() / max(both[0].sum(), 1))
    tnr = float((~both[1] & ~both[0]).sum() / max((~both[0]).sum(), 1))
    return {"pairs": float(len(pairs)), "agreement": float((a == b).mean()),
            "kappa": cohen_kappa(list(a), list(b)), "auc": (tpr + tnr) / 2}
