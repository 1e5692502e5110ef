"""The store of analysis fragments one evaluation writes and retrieves: a protocol and an in-memory numpy index.

A real vector database can replace `NumpyVectorStore` by implementing `VectorStore`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Fragment:
    """One short piece of analysis written by an agent."""

    id: str
    """Unique within the store, e.g. "r1-Problem analyst-0"."""
    text: str
    """The fragment."""
    author: str
    """Agent that wrote it."""
    round: int
    """Round it was written in."""


@dataclass(frozen=True)
class Hit:
    """A fragment returned by a search."""

    fragment: Fragment
    """The stored fragment."""
    score: float
    """Cosine similarity to the query, in [-1, 1]."""
    rank: int
    """1 = most similar."""


@runtime_checkable
class VectorStore(Protocol):
    """Add embedded fragments; search the k most similar to a query vector."""

    def add(self, fragments: Sequence[Fragment], vectors: np.ndarray) -> None:
        """Store fragments with their embeddings (one row per fragment)."""
        ...

    def search(self, query: np.ndarray, k: int) -> list[Hit]:
        """The min(k, len) fragments of highest cosine similarity to `query`, best first."""
        ...

    def __len__(self) -> int:
        """Number of stored fragments."""
        ...


class NumpyVectorStore:
    """Exact cosine search over a numpy matrix; fine for the tens of fragments of one evaluation."""

    def __init__(self) -> None:
        self._fragments: list[Fragment] = []
        self._matrix: np.ndarray | None = None

    def add(self, fragments: Sequence[Fragment], vectors: np.ndarray) -> None:
        """Store fragments; rows are L2-normalized here so search is a dot product."""
        v = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if len(fragments) != v.shape[0]:
            raise ValueError(f"{len(fragments)} fragments but {v.shape[0]} vectors: "
                             "give one embedding row per fragment")
        if not fragments:
            return
        if self._matrix is not None and v.shape[1] != self._matrix.shape[1]:
            raise ValueError(f"vectors have dimension {v.shape[1]}, the store holds {self._matrix.shape[1]}: use one "
                             "embedder per store")
        ids = {f.id for f in self._fragments}
        dup = [f.id for f in fragments if f.id in ids]
        if dup or len({f.id for f in fragments}) != len(fragments):
            raise ValueError(f"fragment ids already stored or repeated: {dup or [f.id for f in fragments]}")
        self._fragments.extend(fragments)
        v = _normalize(v)
        self._matrix = v if self._matrix is None else np.vstack([self._matrix, v])

    def search(self, query: np.ndarray, k: int) -> list[Hit]:
        """Top-k by cosine(q, v) = q.v / (|q| |v|), ties broken by insertion order."""
        if k < 0:
            raise ValueError(f"k={k}: must be >= 0")
        if self._matrix is None or k == 0:
            return []
        q = _normalize(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
        if q.shape[0] != self._matrix.shape[1]:
            raise ValueError(f"query has dimension {q.shape[0]}, the store holds {self._matrix.shape[1]}")
        scores = self._matrix @ q
        order = np.argsort(-scores, kind="stable")[:k]
        return [Hit(self._fragments[i], float(scores[i]), rank) for rank, i in enumerate(order, start=1)]

    def __len__(self) -> int:
        return len(self._fragments)


def _normalize(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero)."""
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)
