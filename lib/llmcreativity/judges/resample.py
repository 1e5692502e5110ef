"""Rank correlations over a chain table with confidence intervals that resample problems, not chains.

Chains of one problem share its difficulty, so they are not independent: the interval comes from
`entropy.analysis.spearman_with_ci` with the problem as the group (a cluster bootstrap that draws
problems with replacement and keeps every chain of a drawn problem).
"""

from __future__ import annotations

import pandas as pd

from ..entropy.analysis import spearman_with_ci


def problem_spearman(df: pd.DataFrame, x: str, y: str, *, group: str = "problem_id", n_resamples: int = 1000,
                     seed: int = 0) -> dict[str, float]:
    """Spearman's rho(x, y) over the rows of `df` with a 95 % CI that resamples `group`s (rho, p, low, high,
    n rows, n_groups); rows with a NaN in x or y are dropped first."""
    missing = [c for c in (x, y, group) if c not in df.columns]
    if missing:
        raise KeyError(f"columns {missing} are not in the table; it has {list(df.columns)}")
    return spearman_with_ci(df[x], df[y], groups=df[group], n_resamples=n_resamples, seed=seed)
