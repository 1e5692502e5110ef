"""Features the fitted judges read, computed from cached embeddings and the texts alone.

- A solution: its embedding e_s, the cosine e_p . e_s with its problem's embedding, and its length (log words,
  steps). (The elementwise product e_p * e_s, tried first on development, tripled the features and the head's
  fitting time for no gain in development AUC.)
- A pair of ideas: their cosine under each embedder and the Jaccard overlap of their content words
  (`equivalence.ObjectPairs.pair_rows`, from `equivalence.jaccard_matrix`).
- A story: the mean of its chunks' embeddings (chunks of `STORY_CHUNK_WORDS` words, so that every word is read by an
  embedder whose window is 256 or 384 word pieces; the mean renormalised to unit length), and its log length.

Every embedding comes from the project's embedder (`llm.local_models.get_embedder`), so it is cached per text and
recorded like any other call; a feature table is a pure function of the texts and the embeddings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from ..llm.backend import TextEmbedder

STORY_CHUNK_WORDS = 150
"""Words per chunk of a story: about 200 word pieces, inside all-MiniLM-L6-v2's 256 and all-mpnet-base-v2's 384."""

STOPWORDS = frozenset(
    "a an the of to in on for with by and or as at from into is are be it its this that use used using can "
    "could make making you your my one".split())
"""Words left out of the lexical overlap of two ideas: function words and the alternate-uses task's own verbs."""

_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Whitespace-separated words of `text`."""
    return text.split()


def content_words(text: str) -> set[str]:
    """Lower-cased alphanumeric words of `text` without `STOPWORDS`."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def jaccard(a: str, b: str) -> float:
    """|A & B| / |A | B| of the two texts' content words (0 when both have none)."""
    wa, wb = content_words(a), content_words(b)
    union = wa | wb
    return len(wa & wb) / len(union) if union else 0.0


def encode(embedder: TextEmbedder, texts: Sequence[str]) -> np.ndarray:
    """Unit-norm embeddings of `texts` (distinct texts encoded once), shape (len(texts), dim)."""
    distinct = sorted(set(texts))
    rows = embedder.encode(distinct) if distinct else np.zeros((0, embedder.dim), dtype=np.float32)
    index = {t: i for i, t in enumerate(distinct)}
    return np.asarray(rows, dtype=np.float64)[[index[t] for t in texts]]


def solution_features(embedder: TextEmbedder, problems: Sequence[str], solutions: Sequence[str],
                      prefix: str) -> tuple[np.ndarray, list[str]]:
    """(rows, names): [e_s, cos(e_p, e_s), log(1 + words), steps] per solution, names prefixed."""
    if len(problems) != len(solutions):
        raise ValueError(f"{len(problems)} problems and {len(solutions)} solutions: give one problem per solution")
    e_p, e_s = encode(embedder, problems), encode(embedder, solutions)
    cos = (e_p * e_s).sum(1, keepdims=True)
    length = np.array([[math.log1p(len(words(s))), float(len(re.findall(r"(?i)\bstep\s*\d", s)))]
                       for s in solutions])
    names = [f"{prefix}:s{i}" for i in range(e_s.shape[1])] + [f"{prefix}:cos", "log_words", "steps"]
    return np.hstack([e_s, cos, length]), names


def length_features(texts: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """(rows, names): log(1 + words) of each text: the length baseline."""
    return np.array([[math.log1p(len(words(t)))] for t in texts]), ["log_words"]


def one_hot(values: Sequence[str], levels: Sequence[str] | None = None) -> tuple[np.ndarray, list[str]]:
    """(rows, names): one column per level of `values` (default: the sorted distinct values); an unseen value is a
    row of zeros."""
    known = sorted(set(values)) if levels is None else list(levels)
    col = {v: i for i, v in enumerate(known)}
    x = np.zeros((len(values), len(known)))
    for r, v in enumerate(values):
        if v in col:
            x[r, col[v]] = 1.0
    return x, [f"source={v}" for v in known]


def chunks(text: str, size: int = STORY_CHUNK_WORDS) -> list[str]:
    """`text` cut into consecutive chunks of `size` words (the last may be shorter; an empty text gives [""])."""
    w = words(text)
    return [" ".join(w[i:i + size]) for i in range(0, len(w), size)] or [""]


def story_features(embedder: TextEmbedder, stories: Sequence[str], prefix: str) -> tuple[np.ndarray, list[str]]:
    """(rows, names): the unit-normed mean of each story's chunk embeddings, and its log length."""
    pieces = [chunks(s) for s in stories]
    flat = encode(embedder, [c for p in pieces for c in p])
    rows, at = [], 0
    for p in pieces:
        mean = flat[at:at + len(p)].mean(0)
        rows.append(mean / (np.linalg.norm(mean) or 1.0))
        at += len(p)
    x = np.hstack([np.array(rows), length_features(stories)[0]])
    return x, [f"{prefix}:m{i}" for i in range(flat.shape[1])] + ["log_words"]
