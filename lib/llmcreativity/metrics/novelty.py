"""Semantic novelty of a story against the reference corpus chunks: 1 - max_i cos(story, chunk_i)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llmcreativity.metrics._validation import check_matrix, unit_rows


@dataclass(frozen=True)
class Novelty:
    """Novelty of one story and the corpus chunk closest to it."""

    novelty: float
    """1 - max_i cos(story, chunk_i), in [0, 2]; 0 means a chunk points the same way as the story."""
    nearest: int
    """Row index of the most similar chunk (for inspection in the chunk table)."""
    similarity: float
    """cos(story, nearest chunk) = 1 - novelty."""


def semantic_novelty(story: np.ndarray, chunks: np.ndarray) -> Novelty:
    """N(s) = 1 - max_i cos(s, c_i) for one story embedding `s` against chunk embeddings `c_i` (rows).

    Computed directly: every chunk row is normalized and compared with the story.
    """
    c = check_matrix(chunks, "chunks")
    s = check_matrix(story, "story", width=c.shape[1])
    if s.shape[0] != 1:
        raise ValueError(f"story has {s.shape[0]} rows: pass one embedding, or use semantic_novelty_batch")
    sims = unit_rows(c, "chunks") @ unit_rows(s, "story")[0]
    i = int(np.argmax(sims))
    return Novelty(float(1.0 - sims[i]), i, float(sims[i]))


def semantic_novelty_batch(stories: np.ndarray, chunks: np.ndarray, block: int = 512) -> list[Novelty]:
    """N(s_k) = 1 - max_i cos(s_k, c_i) for every story row, normalizing the chunks once.

    Stories are compared in blocks of `block` rows with one matrix product per block, so memory
    stays at block x n_chunks.
    """
    c = unit_rows(check_matrix(chunks, "chunks"), "chunks")
    s = unit_rows(check_matrix(stories, "stories", width=c.shape[1]), "stories")
    out: list[Novelty] = []
    for b in range(0, s.shape[0], block):
        sims = s[b : b + block] @ c.T
        idx = sims.argmax(axis=1)
        best = sims[np.arange(len(idx)), idx]
        out.extend(Novelty(float(1.0 - v), int(i), float(v)) for i, v in zip(idx, best, strict=True))
    return out
