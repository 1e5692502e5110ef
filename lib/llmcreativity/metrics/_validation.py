"""Input checks shared by the metrics; each raises an error that names the input and the fix."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def check_texts(texts: Sequence[str], name: str, *, min_count: int = 1) -> list[str]:
    """Return `texts` as a list after checking it holds at least `min_count` non-empty strings."""
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a list of strings, not one string: wrap it as [{name}]")
    out = list(texts)
    if len(out) < min_count:
        raise ValueError(f"{name} has {len(out)} texts: this metric needs at least {min_count}")
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] is a {type(t).__name__}: every item must be a str")
        if not t.strip():
            raise ValueError(f"{name}[{i}] is empty: drop empty texts (e.g. failed generations) before scoring")
    return out


def check_text(text: str, name: str) -> str:
    """Return `text` after checking it is a non-empty string."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError(f"{name} is empty: pass the text to score (empty generations cannot be scored)")
    return text


def check_matrix(x: np.ndarray, name: str, *, min_rows: int = 1, width: int | None = None) -> np.ndarray:
    """Return `x` as a finite float64 2-D array with at least `min_rows` rows (and `width` columns if given)."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(f"{name} has shape {a.shape}: expected a 2-D array (rows x embedding dims)")
    if a.shape[0] < min_rows:
        raise ValueError(f"{name} has {a.shape[0]} rows: this metric needs at least {min_rows}")
    if width is not None and a.shape[1] != width:
        raise ValueError(
            f"{name} has width {a.shape[1]} but the reference has width {width}: "
            "embed both with the same embedder"
        )
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or inf: check the embedder's output")
    return a


def unit_rows(x: np.ndarray, name: str) -> np.ndarray:
    """Rows of `x` divided by their L2 norms; a zero row is an error (its direction is undefined)."""
    norms = np.linalg.norm(x, axis=1)
    if np.any(norms == 0):
        bad = int(np.flatnonzero(norms == 0)[0])
        raise ValueError(f"{name}[{bad}] is a zero vector: cosine similarity is undefined for it")
    unit: np.ndarray = x / norms[:, None]
    return unit
