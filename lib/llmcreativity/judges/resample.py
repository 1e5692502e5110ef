"""Rank correlations over chains with confidence intervals that resample problems, not chains.

Chains of one problem share its difficulty, so they are not independent; the bootstrap draws
problems with replacement and keeps every chain of a drawn problem (a cluster bootstrap).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.agreement import spearman


def problem_spearman(df: pd.DataFrame, x: str, y: str, *, group: str = "problem_id", n_resamples: int = 1000,
                     seed: int = 0) -> dict[str, float]:
    """Spearman's rho(x, y) over the rows of `df`, with a percentile 95 % CI from resampling `group`s.

    Rows with a NaN in x or y are dropped first. Returns rho, low, high, n (rows) and n_groups;
    a resample whose rho is undefined (e.g. one distinct x) is skipped, and the CI is NaN when
    fewer than half the resamples are defined or there are fewer than 2 groups.
    """
    missing = [c for c in (x, y, group) if c not in df.columns]
    if missing:
        raise KeyError(f"columns {missing} are not in the table; it has {list(df.columns)}")
    d = df[[x, y, group]].dropna(subset=[x, y])
    a, b = d[x].to_numpy(float), d[y].to_numpy(float)
    rho = spearman(a, b)[0] if len(d) >= 3 else float("nan")
    rows = [np.flatnonzero(d[group].to_numpy() == g) for g in pd.unique(d[group])]
    low = high = float("nan")
    if len(rows) >= 2:
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(n_resamples):
            idx = np.concatenate([rows[i] for i in rng.integers(0, len(rows), len(rows))])
            r = spearman(a[idx], b[idx])[0] if len(idx) >= 3 else float("nan")
            if np.isfinite(r):
                draws.append(r)
        if len(draws) >= n_resamples / 2:
            low, high = (float(q) for q in np.percentile(draws, [2.5, 97.5]))
    return {"rho": float(rho), "low": low, "high": high, "n": len(d), "n_groups": len(rows)}
