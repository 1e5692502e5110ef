"""The rubric judge's two estimators side by side: the paper's sampled mean and the expected score.

The paper's estimator (sampled mode) averages `repeats` sampled scores per story and dimension; the
expected score E[s] = sum_k k p(k) reads the judge's digit probabilities in one forward pass. The
verdicts rest on the sampled mean; the expected score is shown beside it, with how well the two agree
over the stories graded both ways:

    rho = Spearman(E[s]_i, sampled_i)  with a percentile-bootstrap CI over stories i;
    ICC(A,1) of the two columns (absolute agreement, F-distribution interval).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..judges.judgement import JudgeItem
from ..judges.rubric import RubricJudge, RubricScore, run_rubric
from ..llm.concurrency import item_workers
from ..stats.agreement import icc, spearman
from ..stats.bootstrap import bootstrap_ci
from .scoring_table import judge_table


def grade_both(judge: RubricJudge, items: Sequence[JudgeItem], path: str | Path, *,
               progress: bool = False) -> tuple[list[RubricScore], list[RubricScore]]:
    """(expected, sampled) scores of every item in both modes (usage tags "rubric-expected" and "rubric-sampled").

    With a local judge the stories are graded one by one in both modes, so that both modes read one story's
    prompts one after the other (a backend that reuses a prompt's prefix reads it once). With an endpoint
    judge every story of a mode is submitted at once, up to its `max_concurrency`. Resumable like `run_rubric`.
    """
    expected: list[RubricScore] = []
    sampled: list[RubricScore] = []
    for batch in [list(items)] if item_workers(judge.lm) > 1 else [[item] for item in items]:
        with judge.lm.tagged("rubric-expected"):
            expected += run_rubric(judge, batch, path, "expected", progress=progress)
        with judge.lm.tagged("rubric-sampled"):
            sampled += run_rubric(judge, batch, path, "sampled", progress=progress)
    return expected, sampled


def score_tables(table: pd.DataFrame, expected: Sequence[RubricScore],
                 sampled: Sequence[RubricScore]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(primary, alternative): `table` (one row per story, with story_id) with the judge columns of the sampled
    mean, the paper's estimator that the verdicts rest on, and the same table with the expected score instead.
    Stories without a score get NaN; scores of the wrong mode are an error."""
    for name, scores, mode in (("expected", expected, "expected"), ("sampled", sampled, "sampled")):
        wrong = {s.mode for s in scores} - {mode}
        if wrong:
            raise ValueError(f"{name} holds scores of mode {sorted(wrong)}: pass the {mode!r} scores of the judge")
    if not sampled:
        raise ValueError("sampled is empty: grade the stories in the sampled mode (the verdicts rest on it)")
    primary = table.merge(judge_table(list(sampled)), on="story_id", how="left")
    alternative = table.merge(judge_table(list(expected)), on="story_id", how="left") if expected else None
    return primary, alternative


def estimator_agreement(expected: Sequence[RubricScore], sampled: Sequence[RubricScore], measures: Sequence[str], *,
                        seed: int = 0, n_resamples: int = 2000) -> pd.DataFrame:
    """Per measure (a dimension or judge_mean), over the stories with both scores: n, the two means, Spearman rho
    with a bootstrap 95 % CI over stories, and ICC(A,1) with its 95 % interval (NaN below 3 stories)."""
    e, s = judge_table(list(expected)), judge_table(list(sampled))
    both = e.merge(s, on="story_id", suffixes=("_expected", "_sampled"))
    rows = []
    for m in measures:
        pair = both[[f"{m}_expected", f"{m}_sampled"]].dropna().to_numpy(dtype=float)
        row = {"measure": m, "n": len(pair), "expected": np.nan, "sampled": np.nan, "spearman": np.nan,
               "spearman_low": np.nan, "spearman_high": np.nan, "icc": np.nan, "icc_low": np.nan, "icc_high": np.nan}
        if len(pair):
            row["expected"], row["sampled"] = pair.mean(axis=0)
        if len(pair) >= 3:
            row["spearman"] = spearman(pair[:, 0], pair[:, 1])[0]
            ci = bootstrap_ci([pair[:, 0], pair[:, 1]], lambda a, b: spearman(a, b)[0], n_resamples=n_resamples,
                              seed=seed)
            row["spearman_low"], row["spearman_high"] = ci.low, ci.high
            if np.ptp(pair) > 0:
                r = icc(pd.DataFrame(pair, columns=["expected", "sampled"]))
                row["icc"], row["icc_low"], row["icc_high"] = r.icc, r.low, r.high
        rows.append(row)
    return pd.DataFrame(rows)
