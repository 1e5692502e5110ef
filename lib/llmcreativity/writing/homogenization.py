"""Homogenization: how alike the agents' stories become, round by round.

For one framework run on one prompt, with S_r the set of the agents' latest story versions
after round r (agents not revised in round r keep their previous version),

    H_cos(r)  = (2 / (K(K-1))) sum_{i<j} cos(e(s_i), e(s_j))      over s_i, s_j in S_r
    H_bleu(r) = Self-BLEU(S_r) = (1/K) sum_k BLEU(s_k ; S_r minus s_k)

Rising values over rounds mean the agents' stories converge. Empty stories are left out;
a set with fewer than two stories gives NaN.
"""

from __future__ import annotations

import math

import pandas as pd

from ..llm.backend import TextEmbedder
from ..metrics.diversity import mean_pairwise_cosine, self_bleu
from .transcript import STORY_KINDS, Transcript


def versions_by_round(transcripts: dict[tuple[str, str], Transcript]) -> pd.DataFrame:
    """Each writer's latest story at the end of every round: columns framework, prompt_id, round, agent, story."""
    rows = []
    for (framework, prompt_id), t in transcripts.items():
        versions = t.select(kind=STORY_KINDS)
        if not versions:
            continue
        for r in range(max(m.round for m in versions) + 1):
            for agent in t.writers():
                rows.append({"framework": framework, "prompt_id": prompt_id, "round": r, "agent": agent,
                             "story": t.latest_version(agent, up_to_round=r).content})
    return pd.DataFrame(rows, columns=["framework", "prompt_id", "round", "agent", "story"])


def homogenization(versions: pd.DataFrame, embedder: TextEmbedder) -> pd.DataFrame:
    """H_cos and H_bleu per (framework, prompt_id, round) from `versions_by_round` output.

    Columns: framework, prompt_id, round, n_stories (non-empty stories compared), cosine, self_bleu.
    """
    rows = []
    for (framework, prompt_id, r), group in versions.groupby(["framework", "prompt_id", "round"], sort=True):
        stories = [s for s in group["story"] if s.strip()]
        if len(stories) >= 2:
            cos, bleu = mean_pairwise_cosine(embedder.encode(stories)), self_bleu(stories)
        else:
            cos, bleu = math.nan, math.nan
        rows.append({"framework": framework, "prompt_id": prompt_id, "round": int(r), "n_stories": len(stories),
                     "cosine": cos, "self_bleu": bleu})
    return pd.DataFrame(rows, columns=["framework", "prompt_id", "round", "n_stories", "cosine", "self_bleu"])
