"""The evaluation chapter's paired comparisons and its verdicts on claims A1-A3 of the LLM Review paper."""

from __future__ import annotations

import pandas as pd

from ..verdicts import Verdict, beats_every_baseline
from ..writing import BASELINES
from .comparison import paired_comparisons
from .scores import JUDGE_COLUMNS, NOVELTY_COLUMNS

REFERENCE = "review"
"""The system every claim sets against the others."""


def claim_comparisons(table: pd.DataFrame, large_systems: list[str], *, seed: int = 0) -> dict[str, pd.DataFrame]:
    """`paired_comparisons` of Review per claim: A1 judge dimensions vs every baseline, A2 novelty metrics vs every
    baseline, A3 the judge's mean and the novelty metrics vs the bigger Single Agent(s) (`large_systems`)."""
    return {
        "A1": paired_comparisons(table, list(JUDGE_COLUMNS), REFERENCE, list(BASELINES), seed=seed),
        "A2": paired_comparisons(table, list(NOVELTY_COLUMNS), REFERENCE, list(BASELINES), seed=seed),
        "A3": paired_comparisons(table, ["judge_mean", *NOVELTY_COLUMNS], REFERENCE, list(large_systems), seed=seed),
    }


def review_verdicts(comparisons: dict[str, pd.DataFrame], *, judge: str, writer_model: str, large_model: str,
                    min_pairs: int = 5) -> dict[str, tuple[str, Verdict]]:
    """Claim id -> (text with the verdict's reason, `beats_every_baseline` verdict) for A1-A3.

    A3 is decided on the judge's mean score alone; its novelty comparisons are shown, not judged."""
    a3 = comparisons["A3"]
    verdicts = {"A1": beats_every_baseline(comparisons["A1"], min_pairs=min_pairs),
                "A2": beats_every_baseline(comparisons["A2"], min_pairs=min_pairs),
                "A3": beats_every_baseline(a3[a3["measure"] == "judge_mean"], min_pairs=min_pairs)}
    texts = {
        "A1": f"Review beats every baseline on the five rubric dimensions (judge {judge}, writer {writer_model}).",
        "A2": f"Review beats every baseline on surprisal, lexical KL, semantic novelty and volume gain "
              f"(writer {writer_model}).",
        "A3": f"Review with {writer_model} beats a Single Agent with {large_model} on the judge's mean score "
              f"(judge {judge}).",
    }
    return {cid: (f"{texts[cid]} {v.reason[0].upper() + v.reason[1:]}.", v) for cid, v in verdicts.items()}
