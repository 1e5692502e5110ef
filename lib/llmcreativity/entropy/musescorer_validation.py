"""Validation of entailment clustering against two human coders' "same idea" buckets (MuseScorer, read by
`data.musescorer`)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import pandas as pd
from sklearn.metrics import normalized_mutual_info_score

from ..data.musescorer import CODERS, ROUND_OBJECTS
from ..stats.agreement import adjusted_rand
from .clustering import cluster_by_bidirectional_entailment
from .entailment import EntailmentJudge


def sample_round(df: pd.DataFrame, round_id: int, size: int, *, seed: int = 0) -> pd.DataFrame:
    """A uniform random sample of `size` ideas of one round (all of them if the round is smaller)."""
    ideas = df[df["round_id"] == round_id]
    if ideas.empty:
        raise ValueError(f"round_id={round_id!r} has no ideas; rounds present: {sorted(df['round_id'].unique())}")
    return ideas.sample(n=min(size, len(ideas)), random_state=seed).reset_index(drop=True)


def partition_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> dict[str, float]:
    """Adjusted Rand index and normalized mutual information (arithmetic mean) of two partitions."""
    if len(a) != len(b) or len(a) == 0:
        raise ValueError(f"partitions have {len(a)} and {len(b)} items: give two equally long, non-empty labelings")
    return {"ari": adjusted_rand(a, b), "nmi": float(normalized_mutual_info_score(a, b))}


def agreement_table(ideas: pd.DataFrame, judges: dict[str, EntailmentJudge], *, batch_size: int = 4) -> pd.DataFrame:
    """Agreement of each judge's clustering with each coder, and of the coders with each other.

    Each round in `ideas` is clustered separately (ideas about different objects never share a
    bucket), with "alternate uses of a <object>" as context; labels are made distinct across rounds.
    Rows: (method, reference, ari, nmi, n_ideas, clusters, judge_calls).
    """
    labels: dict[str, list[str]] = {name: [] for name in judges}
    calls = {name: 0 for name in judges}
    order: list[int] = []
    for rid, group in ideas.groupby(ideas["round_id"].astype(int), sort=True):
        order.extend(group.index)
        context = f"Unusual uses of a {ROUND_OBJECTS.get(rid, 'common object')}"
        for name, judge in judges.items():
            c = cluster_by_bidirectional_entailment(group["idea_content"].astype(str).tolist(), judge,
                                                    context=context, batch_size=batch_size)
            labels[name].extend(f"{rid}-{i}" for i in c.ids)
            calls[name] += c.judge_calls
    ordered = ideas.loc[order]
    coder = {c: [f"{r}-{v}" for r, v in zip(ordered["round_id"], ordered[c], strict=True)] for c in CODERS}
    rows = [{"method": f"coder {CODERS[0]}", "reference": CODERS[1],
             **partition_agreement(coder[CODERS[0]], coder[CODERS[1]]),
             "clusters": len(set(coder[CODERS[0]])), "judge_calls": 0}]
    for name in judges:
        for ref in CODERS:
            rows.append({"method": name, "reference": ref, **partition_agreement(labels[name], coder[ref]),
                         "clusters": len(set(labels[name])), "judge_calls": calls[name]})
    out = pd.DataFrame(rows)
    out.insert(4, "n_ideas", len(ideas))
    return out
