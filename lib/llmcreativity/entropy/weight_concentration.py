"""How concentrated a probability-weighted SE's sample weights are: the effective number of samples of each step.

A probability-weighted SE weighs each sample s by w_s proportional to p(s) (`se_estimators`); the length-normalized one
by exp of its mean token log-probability. When the weights spread over orders of magnitude, one sample carries
nearly all of them and SE_P falls towards 0 however many clusters there are. Two numbers per step say how far:

* the effective number of samples, n_eff = (sum_s w_s)^2 / sum_s w_s^2, between 1 (one sample holds all the
  weight) and the number of weighted samples (equal weights);
* the top sample's share, max_s w_s / sum_s w_s.

Both come from the log-probabilities the chains already hold (no model call) and are computed in log space:
n_eff = exp(2 logsumexp(l) - logsumexp(2 l)), share = exp(max(l) - logsumexp(l)), so weights far below the
smallest float still compare correctly. The weighted samples are those each SE sums: every sample (`duplicates=
"every"`), or each distinct (cluster, text) once (`"distinct"`), a sample without tokens weighing nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from .chains import Candidate, Chain, StepResult

WEIGHTINGS: dict[str, tuple[str, str]] = {
    "probability": ("sequence", "every"),
    "probability_distinct": ("sequence", "distinct"),
    "length_normalized": ("mean_token", "every"),
    "length_normalized_distinct": ("mean_token", "distinct"),
}
"""Suffix of a step-table SE column (`se_<suffix>`) -> (the sample's log weight: its sequence log-probability or
its mean token log-probability, which samples count: every one or each distinct sequence once)."""

STEP_KEYS = ["chain", "problem_id", "domain", "model", "temperature", "step"]
"""Columns that identify a step in `weight_table`, as in `analysis.step_table`."""


def weight_concentration(log_weights: Sequence[float]) -> tuple[float, float]:
    """(n_eff, top share) of samples with unnormalized log weights `log_weights` (-inf: no weight).

    n_eff = (sum w)^2 / sum w^2 and share = max w / sum w, from the log weights with `logsumexp`;
    (NaN, NaN) when no weight is finite.

    >>> n, top = weight_concentration([-1000.0, -1000.0, -1000.0, -1000.0])
    >>> round(n, 6), round(top, 6)
    (4.0, 0.25)
    >>> n, top = weight_concentration([0.0, -50.0, -60.0])
    >>> round(n, 6), round(top, 6)
    (1.0, 1.0)
    >>> n, top = weight_concentration([0.0, 0.0, -math.inf])
    >>> round(n, 6), round(top, 6)
    (2.0, 0.5)
    """
    lw = np.asarray(log_weights, dtype=float)
    if np.isnan(lw).any():
        raise ValueError("log_weights holds NaN: give log weights, -inf for a sample with no weight")
    finite = lw[np.isfinite(lw)]
    if finite.size == 0:
        return math.nan, math.nan
    total = logsumexp(finite)
    n_eff = float(np.exp(2 * total - logsumexp(2 * finite)))
    return n_eff, float(np.exp(finite.max() - total))


def _mean_token(c: Candidate) -> float:
    return float(np.mean(c.logprobs)) if c.logprobs else -math.inf


def _sequence(c: Candidate) -> float:
    return c.sum_logprob


def step_log_weights(step: StepResult, score: str = "sequence", duplicates: str = "every") -> list[float]:
    """The log weights a probability-weighted SE of `step` sums: each sample's sequence log-probability
    (`score="sequence"`) or mean token log-probability (`"mean_token"`), of every sample (`duplicates="every"`) or
    of the first sample of each distinct (cluster, text) (`"distinct"`, as `se_estimators.cluster_log_probabilities`
    keeps them); a sample without tokens weighs -inf.

    >>> from llmcreativity.entropy.chains import Candidate, StepResult
    >>> a, b = Candidate("a", (-1.0, -1.0), False, "stop"), Candidate("b", (-3.0,), False, "stop")
    >>> s = StepResult(1, (a, a, b), (0, 0, 1), 2, 0.0, 0.0, 0.0, 0, 0, None, 0.0, 0.0)
    >>> step_log_weights(s), step_log_weights(s, "mean_token", "distinct")
    ([-2.0, -2.0, -3.0], [-1.0, -3.0])
    """
    scorers: dict[str, Callable[[Candidate], float]] = {"sequence": _sequence, "mean_token": _mean_token}
    if score not in scorers or duplicates not in ("every", "distinct"):
        raise ValueError(f"score={score!r}, duplicates={duplicates!r}: use score 'sequence' or 'mean_token' and "
                         "duplicates 'every' or 'distinct'")
    kept: dict[tuple[int, str], Candidate] = {}
    chosen: list[Candidate] = []
    for cluster, c in zip(step.cluster_ids, step.candidates, strict=True):
        if duplicates == "every":
            chosen.append(c)
        elif (cluster, c.text) not in kept:
            kept[(cluster, c.text)] = c
            chosen.append(c)
    return [scorers[score](c) for c in chosen]


def weight_table(chains: Sequence[Chain], names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per step: `STEP_KEYS`, `model_name` (`names`: model identity -> name; the identity without it), the
    number of clusters and candidates, and for each weighting of `WEIGHTINGS` `n_eff_<suffix>` and
    `top_share_<suffix>` of its sample weights (`weight_concentration`)."""
    rows = []
    for ch in chains:
        for s in ch.steps:
            row: dict[str, object] = {
                "chain": ch.id, "problem_id": ch.problem_id, "domain": ch.domain, "model": ch.model,
                "temperature": ch.settings.sampling.temperature, "step": s.index,
                "model_name": (names or {}).get(ch.model, ch.model), "n_clusters": s.n_clusters,
                "n_candidates": len(s.candidates)}
            for suffix, (score, duplicates) in WEIGHTINGS.items():
                n_eff, top = weight_concentration(step_log_weights(s, score, duplicates))
                row[f"n_eff_{suffix}"], row[f"top_share_{suffix}"] = n_eff, top
            rows.append(row)
    return pd.DataFrame(rows)


def weight_summary(weights: pd.DataFrame, by: Sequence[str] = ("model_name", "temperature")) -> pd.DataFrame:
    """Per group of `by`: steps, the median n_eff of each weighting, and the median top share and the share of steps
    whose top sample holds at least 90 % of the weight, both of the SE_P weights (every sample)."""
    cols = {f"median_n_eff_{s}": (f"n_eff_{s}", "median") for s in WEIGHTINGS}
    return (weights.groupby(list(by))
            .agg(steps=("step", "size"), **cols,
                 median_top_share=("top_share_probability", "median"),
                 top_holds_90=("top_share_probability", lambda v: float((v >= 0.9).mean())))
            .reset_index())
