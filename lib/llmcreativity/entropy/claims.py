"""The semantic-entropy chapter's correlations and its verdicts on claims B1-B4 of the creativity-evaluation paper."""

from __future__ import annotations

import pandas as pd

from ..verdicts import Verdict, sign_verdict
from .analysis import correlation_table

CHAIN_PAIRS = [("temperature", "se_discrete"), ("temperature", "se_probability"),
               ("temperature", "se_length_normalized"), ("params_m", "se_discrete")]
"""(x, y) pairs correlated over chains (one point per chain: its mean SE)."""
STEP_PAIRS = [("n_clusters", "se_discrete"), ("n_clusters", "se_probability"), ("mean_cosine", "se_discrete"),
              ("mean_cosine", "se_probability"), ("distinct_2", "se_discrete"), ("self_bleu", "se_discrete")]
"""(x, y) pairs correlated over steps."""
SE_CLAIMS = [
    ("B1", ("temperature", "se_discrete"), 1, "Spearman rho(temperature, per-chain discrete SE)",
     "SE rises with sampling temperature ({who})."),
    ("B2", ("params_m", "se_discrete"), 0, "Spearman rho(parameters, per-chain discrete SE)",
     "SE does not grow with model size ({who}; the models are not one family)."),
    ("B3", ("n_clusters", "se_probability"), 1, "Spearman rho(clusters, per-step probability-weighted SE)",
     "SE correlates positively with the number of clusters ({who})."),
    ("B4", ("mean_cosine", "se_discrete"), -1, "Spearman rho(mean pairwise cosine, per-step discrete SE)",
     "SE correlates negatively with candidate similarity ({who})."),
]
"""(claim id, (x, y) row of the correlation table, expected sign, measure, text with a {who} slot)."""


def se_correlations(chains: pd.DataFrame, steps: pd.DataFrame, *, n_resamples: int = 1000,
                    seed: int = 0) -> pd.DataFrame:
    """Spearman's rho with bootstrap 95 % CIs: `CHAIN_PAIRS` over chains (unit "chain"), `STEP_PAIRS` over steps."""
    return pd.concat([
        correlation_table(chains, CHAIN_PAIRS, n_resamples=n_resamples, seed=seed).assign(unit="chain"),
        correlation_table(steps, STEP_PAIRS, n_resamples=n_resamples, seed=seed).assign(unit="step"),
    ])


def se_verdicts(correlations: pd.DataFrame, who: str) -> dict[str, tuple[str, Verdict]]:
    """Claim id -> (claim text naming `who` was measured, `sign_verdict` of its correlation) for B1-B4."""
    row = correlations.set_index(["x", "y"]).loc
    out = {}
    for claim_id, pair, sign, measure, text in SE_CLAIMS:
        r = row[pair]
        out[claim_id] = (text.format(who=who), sign_verdict(r["low"], r["high"], sign, statistic=r["rho"],
                                                            n=int(r["n"]), measure=measure))
    return out
