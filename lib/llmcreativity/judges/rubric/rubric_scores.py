"""The rubric judge's records and the formulas of its two estimators. A `RubricScore` is stored as its JSON form
(`dataclass_json.to_json`), one line of a scores file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

import numpy as np

from ...dataclass_json import from_json
from ...jsonl import read_jsonl

Mode = Literal["expected", "sampled"]
"""Estimator of a dimension's score: expected score from the digit distribution, or the mean of sampled scores."""

MODES: tuple[Mode, ...] = get_args(Mode)
"""Every `Mode`."""


@dataclass(frozen=True)
class RubricScore:
    """One dimension's score of one story under one estimator: one line of the scores JSONL."""

    story_id: str
    """Id of the graded story."""
    dimension: str
    """Dimension key (see `DIMENSIONS`)."""
    mode: Mode
    """The estimator that produced it."""
    judge: str
    """Backend identity of the judge model."""
    score: float | None
    """The estimate on 0-5; None when missing (sampled mode with no readable reply)."""
    samples: list[float | None] = field(default_factory=list)
    """Sampled mode: the score read from each repeat (None = missing after retries); [] in expected mode."""
    raw: list[str] = field(default_factory=list)
    """Sampled mode: the final reply of each repeat, kept verbatim; [] in expected mode."""
    retries: int = 0
    """Sampled mode: extra calls made because a reply had no readable score."""
    probs: dict[str, float] = field(default_factory=dict)
    """Expected mode: p(k) over "0".."5", renormalized; {} in sampled mode."""
    coverage: float | None = None
    """Expected mode: the unnormalized mass sum_k p(k | prompt) the judge put on a digit."""
    prompt_tokens: int = 0
    """Prompt tokens over every call for this score."""
    completion_tokens: int = 0
    """Completion tokens over every call for this score."""
    seconds: float = 0.0
    """Model time over every call for this score."""


def expected_score(probs: dict[str, float]) -> float:
    """E[s] = sum_k k p(k) / sum_k p(k) over the digit answers."""
    total = sum(probs.values())
    if total <= 0:
        raise ValueError(f"probs={probs} has no mass: cannot form an expected score")
    return float(sum(float(k) * p for k, p in probs.items()) / total)


def mean_of_samples(samples: Sequence[float | None]) -> float | None:
    """s = (1/R') sum of the R' readable repeats; None when no repeat was readable."""
    readable = [s for s in samples if s is not None]
    return float(np.mean(readable)) if readable else None


def read_scores(path: str | Path, *, judge: str | None = None, mode: Mode | None = None,
                story_ids: set[str] | None = None) -> list[RubricScore]:
    """Records of a scores file, filtered; a record written twice (resumed run) counts once, last copy wins."""
    latest: dict[tuple[str, str, str, str], RubricScore] = {}
    for row in read_jsonl(path):
        s = from_json(RubricScore, row)
        if (judge is None or s.judge == judge) and (mode is None or s.mode == mode) and \
                (story_ids is None or s.story_id in story_ids):
            latest[(s.story_id, s.dimension, s.mode, s.judge)] = s
    return list(latest.values())
