"""Tables of judge performance against human labels: accuracy, kappa, cost, with bootstrap CIs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..stats.agreement import accuracy, cohen_kappa
from ..stats.bootstrap import ConfidenceInterval, bootstrap_ci
from .judgement import Judgement


def judgement_table(judgements: Iterable[Judgement], labels: Mapping[str, bool]) -> pd.DataFrame:
    """One row per (judge, item): verdict, human label, correct, tokens, seconds, calls, parse failures, rounds."""
    rows = []
    for j in judgements:
        if j.item_id not in labels:
            raise KeyError(f"item {j.item_id!r} has no human label: pass labels for every judged item")
        rows.append({
            "judge": j.judge, "item_id": j.item_id, "verdict": j.verdict, "label": bool(labels[j.item_id]),
            "correct": j.verdict is not None and j.verdict == bool(labels[j.item_id]),
            "prompt_tokens": j.prompt_tokens, "completion_tokens": j.completion_tokens, "total_tokens": j.total_tokens,
            "seconds": j.seconds, "calls": len(j.calls), "parse_failures": j.parse_failures,
            "rounds_used": float(np.mean([c.rounds_used for c in j.criteria])),
            "stopped_early": any(c.stopped_early for c in j.criteria),
        })
    return pd.DataFrame(rows)


def validity_score(judgement: Judgement) -> float:
    """Probability that the item is valid: prod_c q_c, q_c = confidence_c if verdict_c else 1 - confidence_c.

    NaN when a criterion lacks a verdict or a confidence.
    """
    q = [c.confidence if c.verdict else 1 - c.confidence for c in judgement.criteria
         if c.verdict is not None and c.confidence is not None]
    return float(np.prod(q)) if len(q) == len(judgement.criteria) else float("nan")


def _kappa_parsed(label: np.ndarray, verdict: np.ndarray) -> float:
    keep = np.array([v is not None for v in verdict])
    return cohen_kappa(list(label[keep]), list(verdict[keep])) if keep.sum() >= 2 else float("nan")


def summarize_judges(table: pd.DataFrame, *, n_resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per judge: n, accuracy, Cohen's kappa, tokens and seconds per item (each with a 95 % bootstrap CI), parse rate.

    Accuracy counts an unparsed verdict as wrong; kappa uses the items with a parsed verdict.
    """
    out = []
    for judge, g in table.groupby("judge", sort=False):
        label, verdict = g["label"].to_numpy(dtype=object), g["verdict"].to_numpy(dtype=object)
        acc = bootstrap_ci([label, verdict], accuracy, n_resamples=n_resamples, seed=seed)
        kap = bootstrap_ci([label, verdict], _kappa_parsed, n_resamples=n_resamples, seed=seed)
        tok = bootstrap_ci([g["total_tokens"].to_numpy(float)], np.mean, n_resamples=n_resamples, seed=seed)
        sec = bootstrap_ci([g["seconds"].to_numpy(float)], np.mean, n_resamples=n_resamples, seed=seed)
        out.append({
            "judge": judge, "n": len(g), "accuracy": acc.estimate, "accuracy_low": acc.low, "accuracy_high": acc.high,
            "kappa": kap.estimate, "kappa_low": kap.low, "kappa_high": kap.high,
            "tokens_per_item": tok.estimate, "tokens_low": tok.low, "tokens_high": tok.high,
            "seconds_per_item": sec.estimate, "seconds_low": sec.low, "seconds_high": sec.high,
            "calls_per_item": g["calls"].mean(), "parsed_share": float(np.mean([v is not None for v in verdict])),
            "parse_failures": int(g["parse_failures"].sum()), "early_stop_share": float(g["stopped_early"].mean()),
        })
    return pd.DataFrame(out)


def token_saving(table: pd.DataFrame, judge: str, baseline: str, *, n_resamples: int = 2000,
                 seed: int = 0) -> ConfidenceInterval:
    """Relative token saving of `judge` over `baseline` on the same items, 1 - sum_i t_judge,i / sum_i t_base,i, with a
    paired bootstrap CI."""
    a = table[table["judge"] == judge].set_index("item_id")["total_tokens"]
    b = table[table["judge"] == baseline].set_index("item_id")["total_tokens"]
    common = a.index.intersection(b.index)
    if len(common) < 2:
        raise ValueError(f"{judge!r} and {baseline!r} share {len(common)} items: run both on the same items")
    return bootstrap_ci([a[common].to_numpy(float), b[common].to_numpy(float)], lambda x, y: 1 - x.sum() / y.sum(),
                        n_resamples=n_resamples, seed=seed)


def accuracy_difference(table: pd.DataFrame, judge: str, baseline: str, *, n_resamples: int = 2000,
                        seed: int = 0) -> ConfidenceInterval:
    """Accuracy of `judge` minus that of `baseline` on the same items, mean_i (c_judge,i - c_base,i), with a paired CI.

    c = 1 when the item's verdict equals the human label (an unread verdict counts as wrong).
    """
    a = table[table["judge"] == judge].set_index("item_id")["correct"]
    b = table[table["judge"] == baseline].set_index("item_id")["correct"]
    common = a.index.intersection(b.index)
    if len(common) < 2:
        raise ValueError(f"{judge!r} and {baseline!r} share {len(common)} items: run both on the same items")
    return bootstrap_ci([a[common].to_numpy(float) - b[common].to_numpy(float)], np.mean, n_resamples=n_resamples,
                        seed=seed)
