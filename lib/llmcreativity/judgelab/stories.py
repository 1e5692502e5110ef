"""The story-quality job: how good is a story, by people's lights? Judges fitted on HANNA's 96 human-rated
stories, scored by nested cross-validation.

96 stories are too few to spare a test split, so the split is a nested cross-validation fixed by `SPLIT_SEED`:
`OUTER_FOLDS` outer folds of stories (the `splits.Split` of each fold: its stories are the test side, the rest
development), and inside each fold's development stories the committed choice rule picks a protocol and fits it;
the fold's test stories are then scored by that fit alone. Every story's score thus comes from a judge that never
saw it, and the agreement of these out-of-fold scores is the judge's validity.

The target is the consensus: each story's mean over the three raters and six criteria (`data.hanna`). Protocols:
- "length only" (the baseline): the story's log length in words, unfitted;
- "embedding head (E)": a ridge head (`heads`) on the story's mean chunk embedding (`features.story_features`:
  chunks of 150 words, so the embedder reads every word of stories whose median is about 480 words).
The choice rule (`CHOICE_RULE`) picks, inside each outer fold, the embedding head with the best inner
cross-validated Spearman's rho.

Agreement: Spearman's rho of the out-of-fold scores with the consensus and with each criterion's mean, and, on the
ceiling's own scale, with the mean of two raters, beside one rater against the mean of the other two (the ceiling),
each averaged over the three choices of the left-out rater. Intervals resample stories (`stats.bootstrap_ci`),
paired with the baseline.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..data.hanna import CRITERIA, RATERS, HannaHuman
from ..stats import spearman
from .heads import fit_head
from .splits import Split, split_groups

JOB = "rubric"
"""The job's id: the `JudgeKind` of the claims it gates (A1, A3)."""
OUTER_FOLDS = 8
"""Outer folds of the nested cross-validation (12 stories each)."""
SPLIT_SEED = 20261203
"""The seed that deals stories to outer folds, fixed before any judge was scored."""
BASELINE = "length only"
"""The protocol every fitted judge must beat (paired)."""
CHOICE_RULE = ("inside each outer fold, the embedding head with the highest inner cross-validated Spearman's rho "
               "on that fold's development stories")
"""How the judge is chosen, stated before any story was scored."""


def consensus(hanna: HannaHuman, raters: tuple[int, ...] = RATERS) -> pd.Series:
    """Each story's mean score over `raters` and the six criteria, by story_id."""
    r = hanna.ratings[hanna.ratings["rater"].isin(raters)]
    return r.groupby("story_id")["score"].mean()


def criterion_means(hanna: HannaHuman) -> pd.DataFrame:
    """Story x criterion: the three raters' mean."""
    return hanna.mean_scores()


def outer_splits(story_ids: list[int], *, folds: int = OUTER_FOLDS, seed: int = SPLIT_SEED) -> list[Split]:
    """The nested cross-validation's outer splits: the stories dealt round-robin to `folds` folds in a seeded
    order; split f holds fold f's stories as test and the others as development."""
    order = np.random.default_rng(seed).permutation(sorted(story_ids))
    fold_of = {int(s): i % folds for i, s in enumerate(order)}
    out = []
    for f in range(folds):
        test = [str(s) for s in story_ids if fold_of[s] == f]
        out.append(split_groups(f"{JOB} fold {f + 1} of {folds}", [str(s) for s in story_ids], test_share=0.5,
                                seed=seed, test_groups=test))
    return out


def out_of_fold_scores(features: Mapping[str, tuple[np.ndarray, list[str]]], target: np.ndarray,
                       story_ids: list[int], splits: list[Split]) -> tuple[np.ndarray, list[str]]:
    """(scores, chosen): each story's score from the protocol the choice rule picked on its fold's development
    stories and fitted there, and the protocol picked in each fold."""
    ids = np.array([str(s) for s in story_ids])
    scores, chosen = np.full(len(ids), np.nan), []
    for split in splits:
        dev, test = split.mask(list(ids), "dev"), split.mask(list(ids), "test")
        heads = {name: fit_head("ridge", x[dev], target[dev], ids[dev], names, split_sha256=split.sha256)
                 for name, (x, names) in features.items() if name.startswith("embedding head")}
        if not heads:
            raise ValueError("no embedding head among the protocols: give at least one")
        best = max(sorted(heads), key=lambda n: heads[n].cv_score)
        chosen.append(best)
        scores[test] = heads[best].score(features[best][0][test])
    return scores, chosen


def rater_ceiling(hanna: HannaHuman) -> pd.DataFrame:
    """Spearman's rho of each rater with the mean of the other two, per criterion and for the consensus."""
    rows = []
    for r in RATERS:
        others = tuple(o for o in RATERS if o != r)
        own = consensus(hanna, (r,))
        rest = consensus(hanna, others)
        rows.append({"rater": r, "criterion": "consensus", "rho": spearman(own, rest.loc[own.index])[0]})
        for name in CRITERIA.values():
            wide = hanna.wide(name)
            rows.append({"rater": r, "criterion": name,
                         "rho": spearman(wide[f"rater {r}"], wide[[f"rater {o}" for o in others]].mean(axis=1))[0]})
    return pd.DataFrame(rows)


def judge_vs_two(scores: pd.Series, hanna: HannaHuman) -> float:
    """Spearman's rho of a judge's scores with the mean of two raters' consensus, averaged over the three choices
    of the left-out rater: the judge on the ceiling's scale."""
    return float(np.mean([spearman(scores, consensus(hanna, tuple(o for o in RATERS if o != r)).loc[scores.index])[0]
                          for r in RATERS]))


CANDIDATE_EMBEDDERS: tuple[str, ...] = ("all-minilm-l6-v2", "all-mpnet-base-v2")
"""The embedders whose heads the choice rule picks among, fixed in the committed choice before any story was
scored."""


def splits_sha256(splits: list[Split]) -> str:
    """One SHA-256 of the outer splits, in order."""
    import hashlib

    return hashlib.sha256("".join(s.sha256 for s in splits).encode()).hexdigest()
