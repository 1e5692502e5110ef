"""Percentile bootstrap confidence intervals for any statistic of one or more paired samples, and the paired
bootstrap of a difference between two statistics.

Every bootstrap here draws its resamples from `np.random.default_rng(seed)`, so a seed gives the same interval
on every machine; `bootstrap_ci`, `bootstrap_draws` and `bootstrap_difference` share one stream of row indices,
so statistics resampled with one seed are paired.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ConfidenceInterval:
    """A point estimate with its percentile bootstrap interval."""

    estimate: float
    """The statistic on the full sample."""
    low: float
    """Lower bound: the (1 - confidence) / 2 quantile of the bootstrap distribution."""
    high: float
    """Upper bound: the (1 + confidence) / 2 quantile of the bootstrap distribution."""
    confidence: float
    """Nominal coverage, e.g. 0.95."""
    n: int
    """Number of observations (rows) resampled."""
    n_resamples: int
    """Bootstrap resamples drawn."""
    n_undefined: int
    """Resamples on which the statistic was undefined (NaN, e.g. kappa with one class) and were left out."""

    def __str__(self) -> str:
        return f"{self.estimate:.3f} [{self.low:.3f}, {self.high:.3f}]"

    @classmethod
    def of(cls, estimate: float, low: float, high: float, n: int, *, confidence: float = 0.95) -> ConfidenceInterval:
        """An interval computed elsewhere, e.g. read from a table's estimate and bounds over `n` items (its resamples
        are not known here: `n_resamples` and `n_undefined` are 0)."""
        return cls(estimate, low, high, confidence, n, 0, 0)


def bootstrap_ci(
    samples: Sequence[Sequence[float]] | Sequence[np.ndarray],
    statistic: Callable[..., float],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ConfidenceInterval:
    """Percentile bootstrap CI of `statistic(*samples)`, resampling rows jointly (paired samples).

    Draw B index vectors i_b ~ Uniform{0..n-1}^n, compute theta_b = statistic(*(s[i_b] for s in samples)),
    and return the (alpha/2, 1 - alpha/2) quantiles of the finite theta_b, alpha = 1 - confidence.
    """
    arrays = [np.asarray(s, dtype=object if _is_object(s) else None) for s in samples]
    if not arrays:
        raise ValueError("samples is empty: pass a list of one or more equally long arrays, e.g. [y_true, y_pred]")
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        raise ValueError(f"samples have lengths {[len(a) for a in arrays]}: paired samples must be equally long")
    if n < 2:
        raise ValueError(f"samples have {n} observation(s): the bootstrap needs at least 2")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r}: must lie in (0, 1), e.g. 0.95")
    if n_resamples < 1:
        raise ValueError(f"n_resamples={n_resamples!r}: must be a positive integer")
    estimate = float(statistic(*arrays))
    draws = bootstrap_draws(arrays, statistic, n_resamples=n_resamples, seed=seed)
    finite = draws[np.isfinite(draws)]
    alpha = 1 - confidence
    low, high = (np.quantile(finite, [alpha / 2, 1 - alpha / 2]) if finite.size else (np.nan, np.nan))
    return ConfidenceInterval(estimate, float(low), float(high), confidence, n, n_resamples,
                              int(draws.size - finite.size))


def bootstrap_draws(samples: Sequence[Sequence[float]] | Sequence[np.ndarray], statistic: Callable[..., float], *,
                    n_resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """theta_b = statistic(*(s[i_b] for s in samples)) for the B = `n_resamples` index vectors
    i_b ~ Uniform{0..n-1}^n that `bootstrap_ci` draws with this seed (undefined values kept as NaN); empty below 2
    rows."""
    arrays = [np.asarray(s, dtype=object if _is_object(s) else None) for s in samples]
    n = len(arrays[0])
    if n < 2:
        return np.empty(0)
    rng = np.random.default_rng(seed)
    return np.array([float(statistic(*(a[idx] for a in arrays))) for idx in rng.integers(0, n, size=(n_resamples, n))])


@dataclass(frozen=True)
class DifferenceTest:
    """theta(reference) - theta(other), resampled in pairs: the difference, its interval, size and p-value."""

    diff: float
    """theta(reference) - theta(other) on the full samples."""
    low: float
    """2.5th percentile of the resampled differences (NaN when undefined)."""
    high: float
    """97.5th percentile of the resampled differences (NaN when undefined)."""
    dz: float
    """diff / sd*(d), the difference in units of its bootstrap standard deviation (NaN when undefined)."""
    p: float
    """Two-sided bootstrap p-value, min(1, 2 min(P*(d <= 0), P*(d >= 0))) (NaN when undefined)."""


def bootstrap_difference(reference: Sequence[np.ndarray], other: Sequence[np.ndarray], statistic: Callable[..., float],
                         *, n_resamples: int = 2000, seed: int = 0) -> DifferenceTest:
    """Paired percentile bootstrap of statistic(*reference) - statistic(*other) (e.g. two measures' correlation with
    the same human scores, over the same sets).

    Both sides are resampled with the same row indices (`bootstrap_draws` with one seed), d_b = theta_ref,b -
    theta_other,b is kept where both are defined, and the interval is its 2.5 and 97.5 percentiles. Everything but
    `diff` is NaN when fewer than two d_b are defined or `diff` is undefined (no resample below two rows).
    """
    diff = statistic(*reference) - statistic(*other)
    d = (bootstrap_draws(reference, statistic, n_resamples=n_resamples, seed=seed)
         - bootstrap_draws(other, statistic, n_resamples=n_resamples, seed=seed))
    d = d[np.isfinite(d)]
    if not (d.size > 1 and np.isfinite(diff)):
        return DifferenceTest(diff, np.nan, np.nan, np.nan, np.nan)
    sd = d.std(ddof=1)
    return DifferenceTest(diff, float(np.quantile(d, 0.025)), float(np.quantile(d, 0.975)),
                          float(diff / sd) if sd > 0 else np.nan,
                          float(min(1.0, 2 * min((d <= 0).mean(), (d >= 0).mean()))))


def distinct_bootstrap_ci(samples: Sequence[Sequence[object]], statistic: Callable[..., float], *,
                          n_resamples: int = 1000, seed: int = 0) -> ConfidenceInterval:
    """95 % percentile interval of `statistic(*samples)` over resamples that draw n rows with replacement and keep each
    drawn row once (resamples with fewer than 2 distinct rows are left out, counted in `n_undefined`).

    For statistics a repeated row would bias, e.g. a partition agreement (ARI): a row drawn twice forms a pair that
    every partition puts together, which pulls the plain bootstrap towards agreement. A resample then holds about
    63 % of the rows, so the interval is wider than the plain one. The estimate is NaN below 2 rows, the bounds NaN
    when no resample is left.
    """
    arrays = [np.asarray(s) for s in samples]
    n = len(arrays[0])
    estimate = float(statistic(*arrays)) if n >= 2 else float("nan")
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_resamples):
        idx = np.unique(rng.integers(0, n, n))
        if len(idx) >= 2:
            draws.append(statistic(*(a[idx] for a in arrays)))
    if not draws:
        return ConfidenceInterval(estimate, float("nan"), float("nan"), 0.95, n, n_resamples, n_resamples)
    low, high = np.percentile(draws, [2.5, 97.5])
    return ConfidenceInterval(estimate, float(low), float(high), 0.95, n, n_resamples, n_resamples - len(draws))


def _is_object(s: Iterable[object]) -> bool:
    """True for samples holding strings, None or mixed labels, which numpy must keep as objects."""
    return any(not isinstance(v, (int, float, np.number, bool, np.bool_)) for v in s)


def cluster_bootstrap_ci(
    samples: Sequence[Sequence[float]] | Sequence[np.ndarray],
    groups: Sequence[object],
    statistic: Callable[..., float],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ConfidenceInterval:
    """Percentile cluster-bootstrap CI of `statistic(*samples)`: the resampling unit is the group, not the row.

    With G distinct groups (e.g. problems), draw B vectors g_b ~ Uniform{groups}^G with replacement,
    take every row of every drawn group (a group drawn twice contributes its rows twice), compute
    theta_b = statistic(*(s[rows_b] for s in samples)) and return the (alpha/2, 1 - alpha/2) quantiles of
    the finite theta_b. Rows of one group (chains or steps of one problem) stay together, so their
    dependence is kept. `n` of the result is the number of groups.
    """
    arrays = [np.asarray(s, dtype=float) for s in samples]
    if not arrays:
        raise ValueError("samples is empty: pass a list of one or more equally long arrays, e.g. [x, y]")
    codes, picked = _group_draws(arrays, groups, n_resamples, confidence, seed)
    members = [np.flatnonzero(codes == g) for g in range(picked.shape[1])]
    estimate = float(statistic(*arrays))
    draws = np.empty(n_resamples)
    for b, row_groups in enumerate(picked):
        rows = np.concatenate([members[g] for g in row_groups])
        draws[b] = float(statistic(*(a[rows] for a in arrays)))
    return _percentile_ci(estimate, draws, confidence, picked.shape[1])


def cluster_bootstrap_spearman_ci(x: Sequence[float], y: Sequence[float], groups: Sequence[object], *,
                                  n_resamples: int = 2000, confidence: float = 0.95,
                                  seed: int = 0) -> ConfidenceInterval:
    """`cluster_bootstrap_ci` of Spearman's rho (`stats.spearman`), every resample at once: the same draws give the
    same interval, about a hundred times faster. The draws are `cluster_bootstrap_spearman_draws`'."""
    from .agreement import spearman

    rho = cluster_bootstrap_spearman_draws(x, y, groups, n_resamples=n_resamples, confidence=confidence, seed=seed)
    n_groups = len(np.unique(np.asarray(groups, dtype=object).astype(str)))
    return _percentile_ci(spearman(np.asarray(x, dtype=float), np.asarray(y, dtype=float))[0], rho, confidence,
                          n_groups)


def cluster_bootstrap_spearman_draws(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
                                     groups: Sequence[object] | np.ndarray, *,
                                     n_resamples: int = 2000, confidence: float = 0.95,
                                     seed: int = 0) -> np.ndarray:
    """Spearman's rho on each of the B = `n_resamples` cluster-bootstrap resamples of `cluster_bootstrap_ci` with
    this seed (NaN where undefined); with one group per row it is the plain bootstrap of the rows.

    Resample b holds row i w_bi times (the times its group was drawn). There the average rank of x_i is
    r_bi = sum_j w_bj [x_j < x_i] + (sum_j w_bj [x_j = x_i] + 1) / 2, and rho_b is the Pearson correlation of the
    x- and y-ranks weighted by w_b: the Pearson correlation of the resample's ranks, ties averaged. rho_b is
    undefined (NaN) where a side is constant or the resample has fewer than 3 rows, as in `spearman`.
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    codes, picked = _group_draws([a, b], groups, n_resamples, confidence, seed)
    n_groups = picked.shape[1]
    counts = np.zeros((n_resamples, n_groups))
    np.add.at(counts, (np.repeat(np.arange(n_resamples), n_groups), picked.ravel()), 1.0)
    w: np.ndarray = counts[:, codes]  # w[b, i]: copies of row i in resample b

    def ranks(v: np.ndarray) -> np.ndarray:
        less, same = (v[None, :] < v[:, None]).astype(float), (v[None, :] == v[:, None]).astype(float)
        averaged: np.ndarray = w @ less.T + (w @ same.T + 1) / 2
        return averaged

    rx, ry, total = ranks(a), ranks(b), w.sum(axis=1, keepdims=True)
    dx, dy = rx - (w * rx).sum(1, keepdims=True) / total, ry - (w * ry).sum(1, keepdims=True) / total
    present = w > 0
    constant = [np.where(present, v, np.inf).min(1) == np.where(present, v, -np.inf).max(1) for v in (a, b)]
    with np.errstate(invalid="ignore", divide="ignore"):
        rho: np.ndarray = (w * dx * dy).sum(1) / np.sqrt((w * dx * dx).sum(1) * (w * dy * dy).sum(1))
    rho[constant[0] | constant[1] | (total[:, 0] < 3)] = np.nan
    return rho


def _group_draws(arrays: list[np.ndarray], groups: Sequence[object] | np.ndarray, n_resamples: int, confidence: float,
                 seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(each row's group code, the B x G group indices drawn with replacement), after checking the inputs."""
    labels = np.asarray(groups, dtype=object)
    if any(len(a) != len(labels) for a in arrays):
        raise ValueError(f"samples have lengths {[len(a) for a in arrays]} and groups {len(labels)}: give one group "
                         "label per row")
    uniq, codes = np.unique(labels.astype(str), return_inverse=True)
    if uniq.size < 2:
        raise ValueError(f"groups has {uniq.size} distinct value(s): the cluster bootstrap needs at least 2 groups")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r}: must lie in (0, 1), e.g. 0.95")
    if n_resamples < 1:
        raise ValueError(f"n_resamples={n_resamples!r}: must be a positive integer")
    rng = np.random.default_rng(seed)
    return codes, rng.integers(0, uniq.size, size=(n_resamples, uniq.size))


def _percentile_ci(estimate: float, draws: np.ndarray, confidence: float, n: int) -> ConfidenceInterval:
    """The percentile interval of the finite `draws` around `estimate`."""
    finite = draws[np.isfinite(draws)]
    alpha = 1 - confidence
    low, high = (np.quantile(finite, [alpha / 2, 1 - alpha / 2]) if finite.size else (np.nan, np.nan))
    return ConfidenceInterval(float(estimate), float(low), float(high), confidence, n, int(draws.size),
                              int(draws.size - finite.size))
