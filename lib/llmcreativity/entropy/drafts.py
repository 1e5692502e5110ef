"""Semantic entropy across the writers of one framework run: first drafts versus final revisions.

For each (framework, prompt) transcript, the stories of all writers at round 0 (first drafts) and
at the last round (final versions) are clustered by bidirectional entailment; the discrete SE over
writers says how many different stories the group holds. A framework that keeps exploration wide
keeps SE high from drafts to revisions; one that homogenizes the writers lowers it.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..llm.backend import TextEmbedder
from ..metrics.diversity import mean_pairwise_cosine
from ..writing.transcript import STORY_KINDS, Transcript
from .clustering import cluster_by_bidirectional_entailment
from .entailment import EntailmentJudge
from .se_estimators import discrete_semantic_entropy


def draft_revision_entropy(transcripts: Iterable[Transcript], judge: EntailmentJudge,
                           embedder: TextEmbedder | None = None) -> pd.DataFrame:
    """One row per (framework, prompt, phase) with phase "first drafts" (round 0) or "final versions"
    (each writer's last story version), for transcripts with at least two writers.

    Columns: framework, prompt_id, phase, writers, clusters, se_discrete (nats), judge_calls and,
    with an embedder, mean_cosine (mean pairwise cosine of the stories).
    """
    rows = []
    for t in transcripts:
        stories = [(m.author, m.round, m.story) for m in t.messages if m.kind in STORY_KINDS and m.story]
        drafts = {author: story for author, rnd, story in stories if rnd == 0}
        final: dict[str, tuple[int, str]] = {}
        for author, rnd, story in stories:
            if author not in final or rnd >= final[author][0]:
                final[author] = (rnd, story)
        if len(drafts) < 2 or max(r for r, _ in final.values()) == 0:
            continue
        for phase, texts in (("first drafts", list(drafts.values())),
                             ("final versions", [s for _, s in final.values()])):
            c = cluster_by_bidirectional_entailment(texts, judge)
            row = {"framework": t.framework, "prompt_id": t.prompt_id, "phase": phase, "writers": len(texts),
                   "clusters": c.n_clusters, "se_discrete": discrete_semantic_entropy(c.ids),
                   "judge_calls": c.judge_calls}
            if embedder is not None:
                row["mean_cosine"] = mean_pairwise_cosine(embedder.encode(texts))
            rows.append(row)
    return pd.DataFrame(rows)
