"""How far to trust the rubric judge: rank correlation of its dimensions with HANNA's human ratings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.hanna import HannaHuman
from ..stats.agreement import agreement_with_raters, rater_ceiling, spearman
from ..stats.bootstrap import ConfidenceInterval, bootstrap_ci

CLOSEST_CRITERION: dict[str, str] = {
    "integration": "Complexity",
    "logic": "Coherence",
    "character": "Empathy",
    "world": "Engagement",
    "ethics": "Complexity",
    "judge_mean": "Surprise",
}
"""Rubric dimension -> the HANNA criterion closest in meaning (HANNA has no science criterion; the
judge's overall mean is set against Surprise, HANNA's creativity-like criterion)."""


def judge_vs_human(judge: pd.DataFrame, hanna: HannaHuman, *, seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """Per dimension: Spearman rho between judge score and the mean human rating of the closest criterion.

    `judge` has story_id (HANNA's 0-95, as int or str) and the dimension columns. Columns: dimension,
    criterion, n, rho, p, ci_low/ci_high (bootstrap over stories), rho_each_rater (mean of rho with each
    rater), human_ceiling (mean leave-one-out rho of a rater with the other two, on the same stories).
    """
    scores = judge.assign(story_id=judge["story_id"].astype(int)).set_index("story_id")
    means = hanna.mean_scores()
    rows = []
    for dim, criterion in CLOSEST_CRITERION.items():
        if dim not in scores.columns:
            continue
        s = scores[dim].dropna()
        h = means.loc[s.index, criterion]
        rho, p = spearman(s.to_numpy(), h.to_numpy()) if len(s) >= 3 else (np.nan, np.nan)
        ci = (bootstrap_ci([s.to_numpy(), h.to_numpy()], lambda a, b: spearman(a, b)[0], n_resamples=n_resamples,
                           seed=seed) if len(s) >= 3 else None)
        raters = hanna.wide(criterion).loc[s.index]
        each = agreement_with_raters(s, raters)["spearman_each"] if len(s) >= 3 else np.nan
        ceiling = rater_ceiling(raters)["spearman_loo"] if len(s) >= 3 else np.nan
        rows.append({"dimension": dim, "criterion": criterion, "n": len(s), "rho": rho, "p": p,
                     "ci_low": ci.low if ci else np.nan, "ci_high": ci.high if ci else np.nan,
                     "rho_each_rater": each, "human_ceiling": ceiling})
    return pd.DataFrame(rows)


def overall_agreement(table: pd.DataFrame | None) -> ConfidenceInterval:
    """The judge's overall agreement with people from a `judge_vs_human` table: the "judge_mean" row's Spearman rho
    (its mean score against the mean human Surprise rating) with its bootstrap CI over its n stories; undefined (NaN,
    n = 0) without a table (no HANNA story graded). What the claims page gates the rubric judge's claims on."""
    if table is None:
        return ConfidenceInterval.of(float("nan"), float("nan"), float("nan"), 0)
    row = table.set_index("dimension").loc["judge_mean"]
    return ConfidenceInterval.of(row["rho"], row["ci_low"], row["ci_high"], int(row["n"]))


def correlation_matrix(judge: pd.DataFrame, hanna: HannaHuman, dimensions: list[str]) -> pd.DataFrame:
    """Spearman rho of every judge dimension (rows) with every HANNA criterion's mean rating (columns)."""
    scores = judge.assign(story_id=judge["story_id"].astype(int)).set_index("story_id")
    means = hanna.mean_scores().loc[scores.index]
    return pd.DataFrame({c: [spearman(scores[d].to_numpy(), means[c].to_numpy())[0] for d in dimensions]
                         for c in means.columns}, index=dimensions)
