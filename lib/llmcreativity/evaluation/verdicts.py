"""The verdict a set of paired comparisons supports for a claim "the reference beats every baseline"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Verdict:
    """What the data says about one claim, ready for `record_claim`."""

    verdict: str
    """"supported", "not supported" or "inconclusive"."""
    reason: str
    """One plain sentence on why."""
    statistic: float | None
    """Mean paired difference (reference - baseline) of the weakest comparison; None when none was computed."""
    ci_low: float | None
    """Lower end of its bootstrap 95 % CI."""
    ci_high: float | None
    """Upper end of its bootstrap 95 % CI."""
    n: int
    """Prompts (pairs) in the weakest comparison."""
    measure: str
    """What the statistic is."""


def _none(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def claim_verdict(comparisons: pd.DataFrame, *, min_pairs: int = 5) -> Verdict:
    """Verdict on "the reference beats every baseline on every measure" from `paired_comparisons` rows.

    - supported: every comparison has a positive difference that is significant after Holm;
    - not supported: some comparison is significantly negative, or (with at least `min_pairs`
      prompts everywhere) some difference is not significantly positive;
    - inconclusive: otherwise, in particular when any comparison has fewer than `min_pairs` prompts
      (the sample is too small to decide).
    The statistic is the comparison with the smallest standardized difference (d_z, or the raw
    difference when d_z is undefined): the claim is only as strong as its weakest comparison.
    """
    if comparisons.empty:
        raise ValueError("comparisons is empty: run paired_comparisons on at least one measure and baseline")
    key = comparisons["dz"].where(comparisons["dz"].notna(), comparisons["diff"])
    weakest = comparisons.loc[key.fillna(-np.inf).idxmin()]
    stat = dict(statistic=_none(weakest["diff"]), ci_low=_none(weakest["ci_low"]), ci_high=_none(weakest["ci_high"]),
                n=int(weakest["n_pairs"]),
                measure=f"mean paired difference (reference - {weakest['baseline']}) on {weakest['measure']}, "
                        f"the weakest of {len(comparisons)} comparisons")
    small = int(comparisons["n_pairs"].min())
    sig = comparisons["significant"].fillna(False).astype(bool)
    neg_sig = sig & (comparisons["diff"] < 0)
    pos_sig = sig & (comparisons["diff"] > 0)
    if neg_sig.any():
        r = comparisons[neg_sig].iloc[0]
        return Verdict("not supported", f"the reference is significantly worse than {r['baseline']} on {r['measure']} "
                       "(Holm-adjusted)", **stat)
    if pos_sig.all():
        return Verdict("supported", f"all {len(comparisons)} comparisons favour the reference significantly "
                       "(Holm-adjusted)", **stat)
    if small < min_pairs:
        return Verdict("inconclusive", f"the sample is too small to decide: as few as {small} prompt(s) per "
                       f"comparison (at least {min_pairs} needed)", **stat)
    worse = int((comparisons["diff"] <= 0).sum())
    return Verdict("not supported", f"{int((~pos_sig).sum())} of {len(comparisons)} comparisons are not significantly "
                   f"in the reference's favour ({worse} point the other way)", **stat)
