"""Sample sizes that reach a stated precision: the smallest n at which the 95 % confidence interval of a claim's
statistic has half-width at most h.

One function per estimator the claims use, each with its formula; the normal approximation throughout, with
z = z_{1 - alpha / (2 m)} (two-sided, Bonferroni over the m tests of one family; Holm, which the claims use, never
needs more than Bonferroni). Every function returns at least `MIN_N` (a bootstrap needs two units), and a
`NotReachable` with the reason, never inf or an exception, when the pilot cannot size the sample: a zero variance
(nothing to scale), a target half-width of 0 (the pilot's estimate sits on the boundary the interval must clear),
or a non-finite input. The spread always comes from the pilot; its own uncertainty is not propagated (a pilot of a
few units can under- or over-state it several-fold).

References: Fisher's z and the Spearman variance factor 1 + r^2 / 2 (Bonett & Wright 2000, Psychometrika 65:23);
the design effect of clustered units (Kish 1965); the paired-proportion variance of McNemar's setting; the delta
method for a ratio of sums (Cochran 1977, ch. 6).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from scipy.stats import norm

from .agreement import Values
from .bootstrap import cluster_bootstrap_spearman_draws

MIN_N = 2
"""The smallest sample any function returns: a bootstrap interval needs two units."""
RHO_CLIP = 0.999999
"""|rho| is clipped to this before Fisher's z, so a resample with a perfect correlation stays finite."""


@dataclass(frozen=True)
class NotReachable:
    """The stated precision cannot be sized from this pilot, and why (one lower-case clause)."""

    reason: str
    """E.g. "the pilot's standard deviation is 0: no variance to scale"."""


SampleSize: TypeAlias = int | NotReachable
"""A sample size (at least `MIN_N`), or why there is none."""


def z_quantile(confidence: float = 0.95, tests: int = 1) -> float:
    """z_{1 - alpha / (2 m)}, alpha = 1 - `confidence`, m = `tests`: the two-sided normal quantile, Bonferroni over m.

    >>> round(z_quantile(), 3)
    1.96
    >>> round(z_quantile(tests=3), 3)
    2.394
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r}: must lie in (0, 1), e.g. 0.95")
    if tests < 1:
        raise ValueError(f"tests={tests!r}: a family holds at least one test")
    return float(norm.ppf(1 - (1 - confidence) / (2 * tests)))


def _degenerate(spread: float, half_width: float, what: str) -> NotReachable | None:
    """Why (spread, half-width) cannot size a sample, or None when they can."""
    if not (math.isfinite(spread) and math.isfinite(half_width)):
        return NotReachable(f"the pilot's {what} or the target half-width is undefined")
    if spread < 0:
        raise ValueError(f"{what}={spread!r} is negative")
    if spread == 0:
        return NotReachable(f"the pilot's {what} is 0: no variance to scale")
    if half_width <= 0:
        return NotReachable("the target half-width is 0: the pilot's estimate sits on the boundary its interval "
                            "must clear")
    return None


def _at_least(n: float) -> int:
    """ceil(n), at least `MIN_N` (n is rounded to 9 decimals first, so 16.0000000001 stays 16)."""
    return max(MIN_N, math.ceil(round(n, 9)))


def n_for_mean(sd: float, half_width: float, *, confidence: float = 0.95, tests: int = 1) -> SampleSize:
    """Units for a mean of per-unit values (e.g. paired differences d_i) to have CI half-width h:

        n = ceil((z sd / h)^2),

    sd the per-unit standard deviation, h = `half_width`, z = `z_quantile(confidence, tests)`.

    >>> n_for_mean(15.0, 5.0)   # the textbook case: sigma 15, margin 5 -> 34.6
    35
    >>> n_for_mean(0.0, 1.0)
    NotReachable(reason="the pilot's standard deviation is 0: no variance to scale")
    """
    if (why := _degenerate(sd, half_width, "standard deviation")) is not None:
        return why
    return _at_least((z_quantile(confidence, tests) * sd / half_width) ** 2)


def fisher_z(r: float) -> float:
    """Fisher's z = atanh(r) = (1/2) ln((1 + r) / (1 - r)), with |r| clipped to `RHO_CLIP`.

    >>> round(fisher_z(0.3), 4)
    0.3095
    """
    return float(np.arctanh(np.clip(r, -RHO_CLIP, RHO_CLIP)))


def correlation_half_width(r: float, boundaries: Sequence[float]) -> float:
    """The half-width, in Fisher-z units, of an interval around z(r) that just clears every boundary b:
    min_b |z(r) - z(b)|. 0 when r sits on a boundary; NaN when r is undefined.

    >>> round(correlation_half_width(0.1, [-0.3, 0.3]), 4)   # inside (-0.3, 0.3): the nearer bound is 0.3
    0.2092
    """
    if not math.isfinite(r):
        return float("nan")
    return min(abs(fisher_z(r) - fisher_z(b)) for b in boundaries)


def n_for_correlation(r: float, half_width_z: float, *, design_effect: float = 1.0, points_per_unit: float = 1.0,
                      spearman: bool = True, confidence: float = 0.95, tests: int = 1) -> SampleSize:
    """Units for a correlation's CI to have half-width h_z on Fisher's z scale.

    var(z) = c D / (N - 3) over N points, c = 1 + r^2 / 2 for Spearman's rho (Bonett & Wright 2000), 1 for
    Pearson's; D = `design_effect` when the points come in clusters resampled whole (e.g. chains within problems).
    Solving z_q sqrt(var) <= h_z for N and counting units of m = `points_per_unit` points:

        N = c D (z_q / h_z)^2 + 3,    n = ceil(N / m).

    The design effect holds for clusters of the pilot's size m; D = 1 and m = 1 for independent units.

    >>> n_for_correlation(0.0, 0.196, spearman=False)   # SE(z) = 1/sqrt(n - 3) = 0.1 at n = 103
    103
    >>> n_for_correlation(0.2, 0.0)
    NotReachable(reason="the target half-width is 0: the pilot's estimate sits on the boundary its interval must clear")
    """
    if not math.isfinite(r):
        return NotReachable("the pilot's correlation is undefined")
    if abs(r) >= 1:
        return NotReachable(f"the pilot's correlation is {r:g}: a perfect correlation has no spread to scale")
    if (why := _degenerate(design_effect, half_width_z, "design effect")) is not None:
        return why
    if points_per_unit < 1:
        raise ValueError(f"points_per_unit={points_per_unit!r}: a unit holds at least one point")
    c = 1 + r * r / 2 if spearman else 1.0
    points = c * design_effect * (z_quantile(confidence, tests) / half_width_z) ** 2 + 3
    return _at_least(points / points_per_unit)


def design_effect(x: Values, y: Values, groups: Sequence[object] | np.ndarray, *, n_resamples: int = 1000,
                  seed: int = 0) -> float | NotReachable:
    """D = var*_cluster(z) / var*_iid(z) of Fisher's z of Spearman's rho(x, y), floored at 1.

    var*_cluster resamples whole groups (`cluster_bootstrap_spearman_draws`), var*_iid single rows (each row its
    own group), both with B = `n_resamples` draws from `seed`; undefined draws are left out. Floored at 1: a pilot
    too small to tell a design effect below 1 from noise is not trusted to shrink a sample. For a correlation of
    variables with intraclass correlations rho_x, rho_y in clusters of m, D is about 1 + (m - 1) rho_x rho_y.

    >>> design_effect([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5], ["a", "a", "b", "b", "c", "c"]) >= 1
    True
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(np.unique(np.asarray(groups, dtype=object).astype(str))) < 2:
        return NotReachable("fewer than 2 groups: the cluster bootstrap cannot resample them")
    if len(a) < 3:
        return NotReachable(f"{len(a)} points: a rank correlation needs 3")
    clustered = cluster_bootstrap_spearman_draws(a, b, groups, n_resamples=n_resamples, seed=seed)
    iid = cluster_bootstrap_spearman_draws(a, b, np.arange(len(a)), n_resamples=n_resamples, seed=seed)
    var_cluster, var_iid = (_z_variance(d) for d in (clustered, iid))
    if not (math.isfinite(var_iid) and var_iid > 0 and math.isfinite(var_cluster)):
        return NotReachable("the bootstrap variance of the correlation is 0 or undefined")
    return max(1.0, var_cluster / var_iid)


def _z_variance(draws: np.ndarray) -> float:
    """Sample variance of Fisher's z of the finite draws; NaN with fewer than 2."""
    finite = draws[np.isfinite(draws)]
    if finite.size < 2:
        return float("nan")
    return float(np.var(np.arctanh(np.clip(finite, -RHO_CLIP, RHO_CLIP)), ddof=1))


def n_for_proportion(p: float, half_width: float, *, confidence: float = 0.95, tests: int = 1) -> SampleSize:
    """Units for a proportion (e.g. an accuracy) to have CI half-width h:

        n = ceil(z^2 p (1 - p) / h^2).

    >>> n_for_proportion(0.5, 0.05)   # the textbook poll: 384.2
    385
    """
    if not 0 <= p <= 1:
        raise ValueError(f"p={p!r}: a proportion lies in [0, 1]")
    sd = math.sqrt(p * (1 - p))
    if (why := _degenerate(sd, half_width, "standard deviation")) is not None:
        return why
    return n_for_mean(sd, half_width, confidence=confidence, tests=tests)


def n_for_paired_proportions(discordant: float, difference: float, half_width: float, *, confidence: float = 0.95,
                             tests: int = 1) -> SampleSize:
    """Units for a paired difference of two proportions (e.g. two judges' accuracy on the same items) to have CI
    half-width h, from the pilot's discordant share.

    With d_i = c_1i - c_2i in {-1, 0, 1}, psi = P(d_i != 0) the discordant share and delta = E d_i the difference,
    var(d_i) = psi - delta^2, so

        n = ceil(z^2 (psi - delta^2) / h^2).

    >>> n_for_paired_proportions(0.3, 0.1, 0.1)   # 1.96^2 x 0.29 / 0.01 = 111.4
    112
    >>> n_for_paired_proportions(0.0, 0.0, 0.1)
    NotReachable(reason="the pilot's discordant share is 0: no variance to scale")
    """
    if not (0 <= discordant <= 1 and abs(difference) <= discordant + 1e-12):
        raise ValueError(f"discordant={discordant!r}, difference={difference!r}: need |difference| <= discordant <= 1")
    if discordant == 0:
        return NotReachable("the pilot's discordant share is 0: no variance to scale")
    return n_for_mean(math.sqrt(max(0.0, discordant - difference ** 2)), half_width, confidence=confidence,
                      tests=tests)


def n_for_ratio(numerator: Values, denominator: Values, half_width: float, *,
                confidence: float = 0.95, tests: int = 1) -> SampleSize:
    """Units for a ratio of per-unit sums R = sum_i a_i / sum_i b_i (or a saving 1 - R: the same variance) to have
    CI half-width h, by the delta method on the pilot's units:

        var(R) = s_e^2 / (n mean(b)^2),  e_i = a_i - R b_i,    n = ceil(z^2 s_e^2 / (mean(b)^2 h^2)),

    s_e the standard deviation (ddof 1) of the residuals e_i.

    >>> n_for_ratio([1.0, 3.0], [2.0, 2.0], 0.5)   # R = 1, e = (-1, 1), s_e = sqrt 2, mean b = 2: 1.96^2 x 2 / 1
    8
    """
    a, b = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"numerator and denominator must be 1-D and equally long, got {a.shape} and {b.shape}")
    if len(a) < 2:
        return NotReachable(f"{len(a)} unit(s): no variance")
    if not b.mean() > 0:
        return NotReachable("the denominator's mean is not positive")
    residual = a - a.sum() / b.sum() * b
    return n_for_mean(float(residual.std(ddof=1) / b.mean()), half_width, confidence=confidence, tests=tests)
