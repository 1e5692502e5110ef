"""The Wilson score interval of a proportion.

For k successes in n trials, p = k / n and z the standard normal (1 + confidence) / 2 quantile, the interval is
(p + z^2 / 2n -+ z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n) (Wilson, 1927): it stays inside [0, 1] and
keeps its coverage near 0 and 1, where the normal interval does not (a share of 0 of 14 still gets an upper bound).
"""

from __future__ import annotations

from .bootstrap import ConfidenceInterval


def wilson_ci(successes: int, n: int, *, confidence: float = 0.95) -> ConfidenceInterval:
    """The share `successes / n` with its Wilson score interval (no resamples: `n_resamples` is 0).

    >>> str(wilson_ci(0, 14))
    '0.000 [0.000, 0.215]'
    >>> str(wilson_ci(8, 14))
    '0.571 [0.326, 0.786]'
    """
    from statsmodels.stats.proportion import proportion_confint

    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"successes={successes!r}, n={n!r}: need n >= 1 and 0 <= successes <= n")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r}: must lie in (0, 1), e.g. 0.95")
    low, high = (float(x) for x in proportion_confint(successes, n, alpha=1 - confidence, method="wilson"))
    return ConfidenceInterval.of(successes / n, low, high, n, confidence=confidence)
