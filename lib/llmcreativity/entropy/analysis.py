"""Per-step tables of semantic entropy beside surface diversity, and rank correlations with CIs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..llm.backend import TextEmbedder
from ..metrics.diversity import distinct_n, mean_pairwise_cosine, self_bleu
from ..stats import adjusted_rand, bootstrap_ci, spearman
from ..stats.agreement import Values
from ..stats.bootstrap import cluster_bootstrap_spearman_ci
from .chains import Candidate, Chain, StepResult
from .entailment import EntailmentJudge
from .se_estimators import length_normalized_semantic_entropy, probability_weighted_semantic_entropy


def _or_nan(f: Any, *args: Any) -> float:
    """f(*args), or NaN where the metric is undefined on these candidates (too few or too short texts)."""
    try:
        return float(f(*args))
    except ValueError:
        return float("nan")


def _distinct_rule(step: StepResult, estimator: Callable[..., float], scores: list[Any]) -> float:
    """`estimator` with `duplicates="distinct"` on a stored step; NaN when no candidate has a token, or when every
    candidate kept has none (a text first sampled with zero tokens, e.g. an empty step, then again with some: the
    first occurrence is the one kept, and its probability is unknown)."""
    kept: dict[tuple[int, str], Candidate] = {}
    for cluster, c in zip(step.cluster_ids, step.candidates, strict=True):
        kept.setdefault((cluster, c.text), c)
    if not any(c.logprobs for c in kept.values()):
        return float("nan")
    return float(estimator(step.cluster_ids, scores, [c.text for c in step.candidates], duplicates="distinct"))


def step_table(chains: Sequence[Chain], embedder: TextEmbedder | None = None) -> pd.DataFrame:
    """One row per step: settings, entropies, cluster count and surface diversity of its candidates.

    The stored SEs count every sample (`duplicates="every"`); `se_probability_distinct` and
    `se_length_normalized_distinct` recompute them with each distinct sequence counted once.
    Surface diversity is computed over the non-empty candidate texts: Distinct-1/2, Self-BLEU and,
    when an embedder is given, the mean pairwise cosine of their embeddings.
    """
    rows = []
    for ch in chains:
        for s in ch.steps:
            texts = [c.text for c in s.candidates if c.text]
            row = {
                "chain": ch.id, "problem_id": ch.problem_id, "domain": ch.domain, "model": ch.model,
                "judge": ch.judge, "temperature": ch.settings.sampling.temperature, "n": ch.settings.sampling.n,
                "step": s.index,
                "n_clusters": s.n_clusters, "se_discrete": s.se_discrete, "se_probability": s.se_probability,
                "se_length_normalized": s.se_length_normalized,
                "se_probability_distinct": _distinct_rule(s, probability_weighted_semantic_entropy,
                                                          [c.sum_logprob for c in s.candidates]),
                "se_length_normalized_distinct": _distinct_rule(s, length_normalized_semantic_entropy,
                                                                [c.logprobs for c in s.candidates]),
                "judge_calls": s.judge_calls,
                "stop_votes": s.stop_votes, "n_nonempty": len(texts),
                "distinct_1": _or_nan(distinct_n, texts, 1), "distinct_2": _or_nan(distinct_n, texts, 2),
                "self_bleu": _or_nan(self_bleu, texts),
            }
            if embedder is not None:
                row["mean_cosine"] = _or_nan(mean_pairwise_cosine,
                                             embedder.encode(texts)) if len(texts) >= 2 else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def spearman_with_ci(x: Values, y: Values, *, groups: Sequence[Any] | pd.Series | None = None,
                     n_resamples: int = 1000, seed: int = 0) -> dict[str, float]:
    """Spearman's rho of paired (x, y) with its p-value and a percentile bootstrap 95 % CI.

    Without `groups` the rows are resampled; with `groups` (one label per row, e.g. the problem) whole
    groups are (`stats.bootstrap.cluster_bootstrap_spearman_ci`), so rows of one group stay together. Pairs with
    a NaN on either side are dropped first; `n` is the number of pairs used and `n_groups` the number of
    groups among them (equal to `n` without `groups`). Fewer than 2 groups give a NaN interval, no pair at all
    (e.g. sizes of endpoint models, which are unknown) NaN throughout.
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if a.size == 0:
        return {"rho": np.nan, "p": np.nan, "low": np.nan, "high": np.nan, "n": 0, "n_groups": 0}
    rho, p = spearman(a, b)
    if groups is None:
        ci = bootstrap_ci([a, b], lambda u, v: spearman(u, v)[0], n_resamples=n_resamples, seed=seed)
        return {"rho": rho, "p": p, "low": ci.low, "high": ci.high, "n": int(a.size), "n_groups": int(a.size)}
    g = np.asarray(groups, dtype=object)
    if g.size != keep.size:
        raise ValueError(f"groups has {g.size} labels for {keep.size} pairs: give one group label per pair")
    g = g[keep]
    n_groups = len(set(g.tolist()))
    if n_groups < 2:
        return {"rho": rho, "p": p, "low": np.nan, "high": np.nan, "n": int(a.size), "n_groups": n_groups}
    ci = cluster_bootstrap_spearman_ci(a, b, g, n_resamples=n_resamples, seed=seed)
    return {"rho": rho, "p": p, "low": ci.low, "high": ci.high, "n": int(a.size), "n_groups": n_groups}


def correlation_table(df: pd.DataFrame, pairs: Sequence[tuple[str, str]], *, group: str | None = None,
                      n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """`spearman_with_ci` for each (x column, y column) of `df`, one row per pair; with `group` (a column, e.g.
    "problem_id") the bootstrap resamples its values, not rows."""
    missing = ({c for p in pairs for c in p} | ({group} if group else set())) - set(df.columns)
    if missing:
        raise KeyError(f"columns {sorted(missing)} are not in the table; it has {list(df.columns)}")
    groups = df[group] if group else None
    return pd.DataFrame([{"x": x, "y": y, **spearman_with_ci(df[x], df[y], groups=groups, n_resamples=n_resamples,
                                                             seed=seed)}
                         for x, y in pairs])


def recluster_steps(chains: Sequence[Chain], judge: EntailmentJudge, *, max_steps: int,
                    batch_size: int = 4) -> pd.DataFrame:
    """Cluster the candidates of the first `max_steps` steps again with another judge.

    One row per step: the stored clustering's cluster count and discrete SE beside the new judge's,
    their adjusted Rand index, and the judge calls the new clustering took.
    """
    from .se_estimators import discrete_semantic_entropy
    from .stepwise import cluster_candidates

    rows = []
    steps = [(ch, s) for ch in chains for s in ch.steps][:max_steps]
    for ch, s in steps:
        ids, calls = cluster_candidates(s.candidates, judge, context=None, batch_size=batch_size)
        rows.append({"chain": ch.id, "model": ch.model, "temperature": ch.settings.sampling.temperature,
                     "step": s.index,
                     "clusters_stored": s.n_clusters, "clusters_new": len(set(ids)),
                     "se_stored": s.se_discrete, "se_new": discrete_semantic_entropy(ids),
                     "ari": adjusted_rand(s.cluster_ids, ids), "judge_calls": calls})
    return pd.DataFrame(rows)
