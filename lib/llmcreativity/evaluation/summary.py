"""Per-framework summaries of the scoring table: mean, sd and a bootstrap CI of the mean, in the paper's shape."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..stats.bootstrap import bootstrap_ci


def framework_summary(table: pd.DataFrame, measures: Sequence[str], *, by: str = "system", confidence: float = 0.95,
                      n_resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per (system, measure): n, mean, sd (ddof 1) and the percentile-bootstrap CI of the mean over stories.

    NaN values (a missing judge score) are left out of that measure; sd and CI are NaN below two values.
    """
    absent = [m for m in (*measures, by) if m not in table.columns]
    if absent:
        raise ValueError(f"table lacks columns {absent}: pass measures among {list(table.columns)}")
    rows = []
    for system, group in table.groupby(by, sort=False):
        for m in measures:
            x = group[m].dropna().to_numpy(dtype=float)
            ci = bootstrap_ci([x], np.mean, n_resamples=n_resamples, confidence=confidence,
                              seed=seed) if len(x) >= 2 else None
            rows.append({by: system, "measure": m, "n": len(x), "mean": float(x.mean()) if len(x) else np.nan,
                         "sd": float(x.std(ddof=1)) if len(x) >= 2 else np.nan,
                         "ci_low": ci.low if ci else np.nan, "ci_high": ci.high if ci else np.nan})
    return pd.DataFrame(rows)


def paper_table(summary: pd.DataFrame, measures: Sequence[str], *, by: str = "system", digits: int = 2,
                order: Sequence[str] | None = None) -> pd.DataFrame:
    """Systems as rows, measures as columns, cells "mean ± sd" (the layout of the paper's results table)."""
    cell = summary.assign(cell=[f"{m:.{digits}f} ± {s:.{digits}f}" if np.isfinite(s) else f"{m:.{digits}f}"
                                for m, s in zip(summary["mean"], summary["sd"], strict=True)])
    wide = cell.pivot(index=by, columns="measure", values="cell").reindex(columns=list(measures))
    return wide.reindex(list(order)) if order is not None else wide
