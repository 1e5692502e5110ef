"""The judge chapter's claim B5: the retrieval judge against ChatEval, tokens and accuracy."""

from __future__ import annotations

import pandas as pd

from ..verdicts import Verdict, efficiency_verdict
from .summary import accuracy_difference, token_saving

B5_MEASURE = "token saving 1 - t_retrieval / t_ChatEval"
"""What B5's statistic is."""


def efficiency_claim(per_item: pd.DataFrame, judge: str, baseline: str, *, judge_model: str, min_items: int = 30,
                     n_resamples: int = 1000, seed: int = 0) -> tuple[str, Verdict]:
    """Claim B5's text (saving and accuracy difference with CIs, and the reason) and its `efficiency_verdict`.

    `per_item` is `judgement_table` over both judges on the same items.
    """
    saving = token_saving(per_item, judge, baseline, n_resamples=n_resamples, seed=seed)
    acc = accuracy_difference(per_item, judge, baseline, n_resamples=n_resamples, seed=seed)
    n = int(per_item.loc[per_item["judge"] == judge, "item_id"].nunique())
    v = efficiency_verdict(saving, acc, n, min_items=min_items, measure=B5_MEASURE)
    text = (f"{judge} vs {baseline} on {n} labelled items, judge model {judge_model}: token saving "
            f"{saving.estimate:.0%} [{saving.low:.0%}, {saving.high:.0%}], accuracy difference {acc.estimate:+.2f} "
            f"[{acc.low:+.2f}, {acc.high:+.2f}]; {v.reason}.")
    return text, v


def savings_table(per_item: pd.DataFrame, judges: list[str], baseline: str, *, n_resamples: int = 1000,
                  seed: int = 0) -> pd.DataFrame:
    """Token saving and accuracy difference (with CIs) of each judge against `baseline`, beside B5's goal."""
    return pd.DataFrame([
        {"judge": name, "baseline": baseline,
         "saving": str(token_saving(per_item, name, baseline, n_resamples=n_resamples, seed=seed)),
         "accuracy difference": str(accuracy_difference(per_item, name, baseline, n_resamples=n_resamples, seed=seed)),
         "goal": "saving >= 0.70, accuracy difference >= 0"}
        for name in judges
    ])
