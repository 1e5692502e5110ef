"""Embedding volume gain: how much a story enlarges the volume spanned by the reference embeddings.

    G(y) = logdet(Cov(R + y) + eps I) - logdet(Cov(R) + eps I)

where R is the N x d reference matrix, R + y is R with the story's row y appended, Cov is the
sample covariance with ddof = 1 (divisor N - 1 for R, N for R + y), and eps I keeps the
determinants finite when N <= d. G can be negative: a story near the reference mean shrinks
the spread.

Fast path (`VolumeReference`). With mean m and scatter S = (R - m)^T (R - m), appending y
moves the mean to m + (y - m)/(N + 1) and the scatter to S + (N/(N + 1)) d d^T with d = y - m.
Hence

    Cov(R + y) + eps I = B + d d^T / (N + 1),   B = S / N + eps I,

and by the matrix determinant lemma

    G(y) = logdet(B) - logdet(Cov(R) + eps I) + log(1 + d^T B^{-1} d / (N + 1)).

B and Cov(R) + eps I depend on the reference only: they are factored once by Cholesky, and each
story costs one triangular solve, O(d^2), instead of a new covariance and determinant, O(N d^2 + d^3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from llmcreativity.metrics._validation import check_matrix


def _check_eps(eps: float) -> float:
    if not eps >= 0:
        raise ValueError(f"eps={eps!r}: the ridge must be >= 0")
    return float(eps)


def _chol_logdet(matrix: np.ndarray, what: str) -> tuple[np.ndarray, float]:
    try:
        low = linalg.cholesky(matrix, lower=True)
    except linalg.LinAlgError as exc:
        raise ValueError(f"{what} is not positive definite: raise eps or use more reference rows") from exc
    return low, float(2.0 * np.log(np.diag(low)).sum())


def logdet_cov(x: np.ndarray, eps: float = 1e-6) -> float:
    """logdet(Cov(x) + eps I) with ddof = 1, computed directly (numpy covariance + slogdet)."""
    a = check_matrix(x, "x", min_rows=2)
    cov = np.atleast_2d(np.cov(a, rowvar=False)) + _check_eps(eps) * np.eye(a.shape[1])
    sign, value = np.linalg.slogdet(cov)
    if sign <= 0:
        raise ValueError("Cov(x) + eps I is not positive definite: raise eps or use more rows")
    return float(value)


def volume_gain_direct(reference: np.ndarray, story: np.ndarray, eps: float = 1e-6) -> float:
    """G(y) from the definition: logdet(Cov(R + y) + eps I) - logdet(Cov(R) + eps I), two full determinants."""
    r = check_matrix(reference, "reference", min_rows=2)
    y = check_matrix(story, "story", width=r.shape[1])
    if y.shape[0] != 1:
        raise ValueError(f"story has {y.shape[0]} rows: pass one embedding, or use VolumeReference.gain")
    return logdet_cov(np.vstack([r, y]), eps) - logdet_cov(r, eps)


@dataclass(frozen=True)
class VolumeReference:
    """The reference set factored once, for the fast volume gain of many stories."""

    mean: np.ndarray
    """Mean m of the reference rows (length d)."""
    chol_b: np.ndarray
    """Lower Cholesky factor L of B = S / N + eps I, so d^T B^{-1} d = |L^{-1} d|^2."""
    base: float
    """logdet(B) - logdet(Cov(R) + eps I), the story-independent part of G."""
    n: int
    """Number of reference rows N."""
    eps: float
    """The ridge eps."""

    @classmethod
    def fit(cls, reference: np.ndarray, eps: float = 1e-6) -> VolumeReference:
        """Factor the reference: mean, scatter S, and Cholesky factors of B and Cov(R) + eps I."""
        r = check_matrix(reference, "reference", min_rows=2)
        eps = _check_eps(eps)
        n, d = r.shape
        mean = r.mean(axis=0)
        centered = r - mean
        scatter = centered.T @ centered
        ridge = eps * np.eye(d)
        chol_b, logdet_b = _chol_logdet(scatter / n + ridge, "S/N + eps I")
        _, logdet_a = _chol_logdet(scatter / (n - 1) + ridge, "Cov(reference) + eps I")
        return cls(mean, chol_b, logdet_b - logdet_a, n, eps)

    def gain(self, stories: np.ndarray) -> np.ndarray:
        """G(y_k) for every story row y_k: base + log(1 + |L^{-1}(y_k - m)|^2 / (N + 1))."""
        y = check_matrix(stories, "stories", width=self.mean.shape[0])
        z = linalg.solve_triangular(self.chol_b, (y - self.mean).T, lower=True, check_finite=False)
        gains: np.ndarray = self.base + np.log1p((z * z).sum(axis=0) / (self.n + 1))
        return gains
