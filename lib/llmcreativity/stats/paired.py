"""A reference system versus each baseline, paired by prompt: paired t and Wilcoxon tests, a mixed model, Holm,
effect sizes. Paper A's claims compare Review with the baselines (`evaluation.review_claims`, A1-A3) and the frameworks'
convergence (`writing.convergence`, A4); the judges' comparisons use d_z (`judges.labelled_claims`).

Frameworks deliver different numbers of stories per prompt (Single Agent one, the others three), so
the pairing unit is the prompt: each system's stories on a prompt are averaged, and for prompt i
d_i = mean_review(i) - mean_baseline(i). The mixed model instead uses every story,
y = b0 + b1 [system = reference] + u_prompt + e, with a random intercept u per prompt.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

from .bootstrap import bootstrap_ci
from .holm import holm_table


def prompt_means(table: pd.DataFrame, measures: Sequence[str], *, by: str = "system") -> pd.DataFrame:
    """Mean of each measure over a system's stories on one prompt: rows (system, prompt_id)."""
    return table.groupby([by, "prompt_id"])[list(measures)].mean().reset_index()


def cohen_dz(d: np.ndarray) -> float:
    """Effect size of paired differences, d_z = mean(d) / sd(d) (ddof 1); NaN below two pairs or with sd = 0."""
    d = np.asarray(d, dtype=float)
    if len(d) < 2 or np.std(d, ddof=1) == 0:
        return float("nan")
    return float(d.mean() / d.std(ddof=1))


def mixed_model_difference(table: pd.DataFrame, measure: str, reference: str, other: str, *,
                           by: str = "system") -> tuple[float, float]:
    """(b1, p) of y ~ [system = reference] with a random intercept per prompt, fitted by statsmodels MixedLM.

    Uses the stories of the two systems on the prompts both wrote for; (NaN, NaN) with fewer than
    three such prompts or when the fit fails (e.g. a singular random-effect variance).
    """
    sub = table[table[by].isin([reference, other])][[by, "prompt_id", measure]].dropna()
    shared = set(sub.loc[sub[by] == reference, "prompt_id"]) & set(sub.loc[sub[by] == other, "prompt_id"])
    sub = sub[sub["prompt_id"].isin(shared)]
    if len(shared) < 3:
        return float("nan"), float("nan")
    data = pd.DataFrame({"y": sub[measure].astype(float), "ref": (sub[by] == reference).astype(float),
                         "prompt": sub["prompt_id"].astype(str)})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = smf.mixedlm("y ~ ref", data, groups=data["prompt"]).fit(reml=True)
        return float(fit.params["ref"]), float(fit.pvalues["ref"])
    except (np.linalg.LinAlgError, ValueError):
        return float("nan"), float("nan")


def paired_comparisons(table: pd.DataFrame, measures: Sequence[str], reference: str, others: Sequence[str], *,
                       by: str = "system", alpha: float = 0.05, n_resamples: int = 2000,
                       seed: int = 0) -> pd.DataFrame:
    """One row per (measure, baseline) with the reference-minus-baseline paired statistics.

    Columns: measure, baseline, n_pairs (prompts), reference_mean, baseline_mean, diff (mean of d_i),
    ci_low/ci_high (percentile bootstrap of mean d), dz (Cohen's d_z), t and p_t (paired t-test,
    statsmodels), p_wilcoxon (scipy signed-rank, exact for small n), mixed_diff and p_mixed (MixedLM
    with a prompt random intercept), p_holm (Holm-adjusted p_t over all rows of this call: one family,
    `stats.holm_table`) and significant (p_holm < alpha). Tests are NaN where the sample cannot support them.
    """
    absent = [s for s in (reference, *others) if s not in set(table[by])]
    if absent:
        raise ValueError(f"systems {absent} have no stories in the table; present: {sorted(set(table[by]))}")
    means = prompt_means(table, measures, by=by)
    rows = []
    for m in measures:
        wide = means.pivot(index="prompt_id", columns=by, values=m)
        for other in others:
            pair = wide[[reference, other]].dropna()
            d = (pair[reference] - pair[other]).to_numpy(dtype=float)
            n = len(d)
            row = {"measure": m, "baseline": other, "n_pairs": n,
                   "reference_mean": float(pair[reference].mean()) if n else np.nan,
                   "baseline_mean": float(pair[other].mean()) if n else np.nan,
                   "diff": float(d.mean()) if n else np.nan, "ci_low": np.nan, "ci_high": np.nan,
                   "dz": cohen_dz(d), "t": np.nan, "p_t": np.nan, "p_wilcoxon": np.nan}
            if n >= 2:
                ci = bootstrap_ci([d], np.mean, n_resamples=n_resamples, seed=seed)
                row["ci_low"], row["ci_high"] = ci.low, ci.high
                if np.std(d, ddof=1) > 0:
                    t, p, _ = DescrStatsW(d).ttest_mean(0.0)
                    row["t"], row["p_t"] = float(t), float(p)
            if n >= 1 and np.any(d != 0):
                row["p_wilcoxon"] = float(stats.wilcoxon(d).pvalue)
            row["mixed_diff"], row["p_mixed"] = mixed_model_difference(table, m, reference, other, by=by)
            rows.append(row)
    return holm_table(pd.DataFrame(rows), "p_t", alpha=alpha)
