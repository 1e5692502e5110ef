"""Claims A1-A3 of the evaluation chapter: comparisons per claim and their verdicts with reasons."""

from __future__ import annotations

import numpy as np
import pandas as pd

from llmcreativity.evaluation import JUDGE_COLUMNS, NOVELTY_COLUMNS
from llmcreativity.evaluation.claims import claim_comparisons, review_verdicts
from llmcreativity.writing import BASELINES


def test_review_verdicts_are_inconclusive_on_two_prompts_and_say_why():
    rows = []
    for system in [*BASELINES, "review", "single (big)"]:
        for p in ("p1", "p2"):
            scores = {c: (4.0 if system == "review" else 2.0) + (p == "p2") for c in [*JUDGE_COLUMNS, *NOVELTY_COLUMNS]}
            rows.append({"system": system, "prompt_id": p, "story_id": f"{system}-{p}",
                         "judge_mean": scores[JUDGE_COLUMNS[0]], **scores})
    table = pd.DataFrame(rows)
    comps = claim_comparisons(table, ["single (big)"], seed=0)
    assert set(comps["A3"]["baseline"]) == {"single (big)"} and set(comps["A1"]["measure"]) == set(JUDGE_COLUMNS)
    verdicts = review_verdicts(comps, judge="J", writer_model="w", large_model="big", min_pairs=5)
    for claim_id, (text, v) in verdicts.items():
        assert v.label == "inconclusive", claim_id
        assert text.endswith("The sample is too small to decide: as few as 2 prompt(s) per comparison "
                             "(at least 5 needed).")
    assert verdicts["A3"][0].startswith("Review with w beats a Single Agent with big")
    assert np.isfinite(verdicts["A3"][1].statistic)
