"""The pilot's per-unit values of the LLM Review claims the evaluation decides (A1-A3, A5): what the pre-registration
sizes each claim from (`claims.sizing.Target.read`, declared with the claim in `evaluation.review_claims`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .. import output_files as out
from ..claims.sizing import CorrelationPart, MeanPart, NotEstimable, Part, PilotFolder


def _story_parts(pilot: PilotFolder, measures: Sequence[str], others: Sequence[str] | None = None, *,
                 kl: str | None = None) -> list[Part]:
    """Review minus each of `others` (None: the larger Single Agents) per prompt, one part per (measure, other); z
    Bonferroni over them all."""
    from ..stats.paired import prompt_means
    from ..writing import large_single_system
    from .review_claims import REFERENCE, with_kl

    table = pd.read_parquet(pilot.path(out.STORY_SCORES))
    if kl is not None:
        table = with_kl(table, kl)
    systems = set(table["system"])
    larger = large_single_system("").removesuffix(")")  # "single (" opens every larger Single Agent's name
    chosen = list(others) if others is not None else sorted(s for s in systems if s.startswith(larger))
    absent = [s for s in (REFERENCE, *chosen) if s not in systems]
    if absent or not chosen:
        raise NotEstimable(f"the story table has no stories of {', '.join(absent) or 'a larger Single Agent'}")
    means = prompt_means(table, measures)
    parts: list[Part] = []
    for m in measures:
        wide = means.pivot(index="prompt_id", columns="system", values=m)
        for other in chosen:
            pair = wide[[REFERENCE, other]].dropna()
            parts.append(MeanPart(f"{REFERENCE} - {other}, {m}", (pair[REFERENCE] - pair[other]).to_numpy(float),
                                  tests=len(measures) * len(chosen)))
    return parts

def read_a1(pilot: PilotFolder) -> list[Part]:
    """A1: per prompt, Review's judge score minus each baseline's, per dimension."""
    from ..writing import BASELINES
    from .scoring_table import JUDGE_COLUMNS

    return _story_parts(pilot, JUDGE_COLUMNS, BASELINES)

def read_a2(pilot: PilotFolder, kl: str = "whole") -> list[Part]:
    """A2: per prompt, Review's novelty metric minus each baseline's; the lexical KL in mode `kl` (the published
    run's `a2_kl`, the paper's whole-story KL)."""
    from ..writing import BASELINES
    from .scoring_table import NOVELTY_COLUMNS

    return _story_parts(pilot, NOVELTY_COLUMNS, BASELINES, kl=kl)

def read_a3(pilot: PilotFolder) -> list[Part]:
    """A3: per prompt, Review's mean judge score minus each larger Single Agent's."""
    return _story_parts(pilot, ["judge_mean"])

def read_a5(pilot: PilotFolder) -> list[Part]:
    """A5: per HANNA story, the rubric judge's mean score (sampled mean) and the human consensus."""
    from ..judges.rubric.rubric_scores import read_scores
    from .review_claims import human_consensus
    from .scoring_table import judge_table

    scores = read_scores(pilot.path(out.RUBRIC_HANNA), mode="sampled")
    if not scores:
        raise NotEstimable("no HANNA story was graded in sampled mode")
    judge = pd.Series([s.judge for s in scores]).value_counts().index[0]  # the judge that graded most
    table = judge_table([s for s in scores if s.judge == judge]).dropna(subset=["judge_mean"])
    ids = table["story_id"].astype(int)
    human = human_consensus(pilot.hanna_human()).reindex(ids)
    return [CorrelationPart("rho(judge mean score, human consensus)", table["judge_mean"].to_numpy(float),
                            human.to_numpy(float))]
