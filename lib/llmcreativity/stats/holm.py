"""Holm's correction of a table of comparisons that form one family (every baseline of a claim, every measure)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests


def holm_table(comparisons: pd.DataFrame, p: str = "p", *, alpha: float = 0.05) -> pd.DataFrame:
    """`comparisons` with two columns added: `p_holm`, the Holm-adjusted `p` column over the rows where it is
    defined (NaN elsewhere), and `significant` = p_holm < alpha.

    Holm (1979): with the m defined p-values sorted, p_(1) <= ... <= p_(m), the adjusted
    p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)); it controls the family-wise error rate at alpha.

    >>> holm_table(pd.DataFrame({"p": [0.01, 0.04, float("nan")]}))["p_holm"].round(2).tolist()
    [0.02, 0.04, nan]
    """
    values = comparisons[p].to_numpy(dtype=float)
    defined = np.isfinite(values)
    adjusted = np.full(values.shape, np.nan)
    if defined.any():
        adjusted[defined] = multipletests(values[defined], alpha=alpha, method="holm")[1]
    return comparisons.assign(p_holm=adjusted, significant=adjusted < alpha)
