"""Small linear judges fitted on cached features: a regularised logistic head for yes/no labels, a ridge head for
scores, each stored as a small versioned JSON file with the hashes of what it was trained on.

A head standardises each feature with the development mean and standard deviation, then scores

    logistic:  p(yes | x) = 1 / (1 + exp(-(w . z + b))),   z = (x - mean) / sd,
    ridge:     score(x)   = w . z + b.

A ridge head also serves yes/no labels (0/1) as a linear probability score: the AUC and a threshold read only its
order, and its whole regularisation path costs one eigendecomposition per fold, where a logistic head on hundreds
of embedding features costs a solver run per value; the small pair classifier of the equivalence job is logistic.

The regulariser (logistic C, ridge alpha) is chosen by cross-validation inside the development items alone,
folds by group (`GroupKFold`: no group in a fold's training and validation part at once), from a fixed grid; the
head is then refitted on every development item at the chosen value. The stored file holds the weights, the
feature names, the chosen regulariser with its cross-validated score, and the SHA-256 of the training features and
labels (`data_sha256`) and of the split (`split_sha256`): a loaded head scores items exactly as the fitted one did.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from ..dataclass_json import from_json, to_json
from ..stats.agreement import roc_auc, spearman
from .splits import Groups

HeadKind = Literal["logistic", "ridge"]
"""A logistic head scores yes/no labels as a probability; a ridge head predicts a score."""

C_GRID: tuple[float, ...] = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
"""Inverse regularisation strengths tried for a logistic head (smaller is stronger)."""
ALPHA_GRID: tuple[float, ...] = (1.0, 10.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0, 100000.0)
"""Ridge penalties tried for a ridge head (larger is stronger)."""
CV_FOLDS = 5
"""Group folds of the cross-validation inside development that chooses the regulariser."""


@dataclass(frozen=True)
class FittedHead:
    """A linear head with everything it needs to score new items, and what it was fitted on."""

    kind: HeadKind
    """"logistic" or "ridge"."""
    features: tuple[str, ...]
    """Names of the feature columns, in order."""
    mean: tuple[float, ...]
    """Development mean of each feature."""
    scale: tuple[float, ...]
    """Development standard deviation of each feature (1 where it is constant)."""
    weights: tuple[float, ...]
    """One weight per standardised feature."""
    intercept: float
    """The bias b."""
    regulariser: float
    """The chosen C (logistic) or alpha (ridge)."""
    cv_score: float
    """The chosen value's mean score over the group folds inside development (AUC, or Spearman's rho)."""
    data_sha256: str
    """SHA-256 of the training features and labels."""
    split_sha256: str
    """SHA-256 of the split whose development items trained it (`splits.Split.sha256`)."""

    def score(self, x: np.ndarray) -> np.ndarray:
        """The head's score of each row of `x` (columns as `features`): p(yes) for a logistic head."""
        z = (np.asarray(x, dtype=float) - np.asarray(self.mean)) / np.asarray(self.scale)
        if z.ndim != 2 or z.shape[1] != len(self.features):
            raise ValueError(f"x has shape {np.shape(x)}: give one row per item and the {len(self.features)} "
                             f"feature columns {list(self.features)[:4]}...")
        linear = z @ np.asarray(self.weights) + self.intercept
        out: np.ndarray = 1.0 / (1.0 + np.exp(-linear)) if self.kind == "logistic" else linear
        return out


def data_hash(x: np.ndarray, y: np.ndarray) -> str:
    """SHA-256 of features and labels as float64 bytes, with their shapes."""
    h = hashlib.sha256()
    for a in (np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)):
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _model(kind: HeadKind, value: float) -> LogisticRegression:
    if kind != "logistic":
        raise ValueError(f"kind={kind!r}: only a logistic head is fitted by scikit-learn here")
    return LogisticRegression(C=value, max_iter=2000)


def _fold_score(kind: HeadKind, y: np.ndarray, s: np.ndarray) -> float:
    if kind == "logistic":
        return roc_auc(y, s)
    return spearman(y, s)[0]


def ridge_path(z: np.ndarray, y: np.ndarray, alphas: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(weights, intercepts) of ridge regression of `y` on the centred columns `z` at every alpha, from one
    eigendecomposition of the smaller Gram matrix: with Z'Z = V diag(l) V', w_a = V diag(1 / (l + a)) V' Z' y_c; with
    ZZ' = U diag(l) U' (fewer rows than columns), w_a = Z' U diag(1 / (l + a)) U' y_c; y_c = y - mean y, b = mean y.
    `weights` has one column per alpha."""
    yc = y - y.mean()
    a = np.asarray(alphas, dtype=float)[None, :]
    if z.shape[1] <= z.shape[0]:
        lam, v = np.linalg.eigh(z.T @ z)
        weights = v @ ((v.T @ (z.T @ yc))[:, None] / (np.clip(lam, 0.0, None)[:, None] + a))
    else:
        lam, u = np.linalg.eigh(z @ z.T)
        weights = z.T @ (u @ ((u.T @ yc)[:, None] / (np.clip(lam, 0.0, None)[:, None] + a)))
    return weights, np.full(a.shape[1], y.mean())


def _folds(groups: Groups, folds: int) -> tuple[np.ndarray, int]:
    labels = np.asarray([str(g) for g in groups])
    k = min(folds, len(np.unique(labels)))
    if k < 2:
        raise ValueError(f"{len(np.unique(labels))} group(s): cross-validation by group needs at least 2")
    return labels, k


def cross_validated(kind: HeadKind, x: np.ndarray, y: np.ndarray, groups: Groups,
                    values: Sequence[float], folds: int = CV_FOLDS) -> list[float]:
    """Mean score (AUC for 0/1 labels, else Spearman's rho) over `folds` group folds of a head at each regulariser
    in `values` (a ridge head's whole path from one eigendecomposition per fold)."""
    labels, k = _folds(groups, folds)
    binary = set(np.unique(y)) <= {0.0, 1.0}
    per_fold = []
    for train, held in GroupKFold(n_splits=k).split(x, y, labels):
        z_mean, z_sd = x[train].mean(0), _sd(x[train])
        z, zh = (x[train] - z_mean) / z_sd, (x[held] - z_mean) / z_sd
        if kind == "ridge":
            w, b = ridge_path(z, y[train], values)
            preds = [zh @ w[:, a] + b[a] for a in range(len(values))]
        else:
            preds = [_model(kind, v).fit(z, y[train]).decision_function(zh) for v in values]
        per_fold.append([_fold_score("logistic" if binary else "ridge", y[held], p) for p in preds])
    return [float(v) for v in np.nanmean(np.array(per_fold), axis=0)]


def _sd(x: np.ndarray) -> np.ndarray:
    sd = x.std(0)
    return np.where(sd > 0, sd, 1.0)


def fit_head(kind: HeadKind, x: np.ndarray, y: np.ndarray, groups: Groups, features: Sequence[str], *,
             split_sha256: str, grid: Sequence[float] | None = None) -> FittedHead:
    """Fit a `kind` head on development rows `x` (labels `y`, one group per row), choosing its regulariser from
    `grid` (default `C_GRID` / `ALPHA_GRID`) by `cross_validated` inside these rows, then refitting on all of them."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 2 or x.shape[0] != len(y) or x.shape[1] != len(features):
        raise ValueError(f"x {x.shape}, y {y.shape}, {len(features)} feature names: give one row and label per item "
                         "and one name per column")
    if kind == "logistic" and set(np.unique(y)) != {0.0, 1.0}:  # a ridge head takes 0/1 labels or scores
        raise ValueError(f"a logistic head needs labels 0 and 1, got {sorted(np.unique(y))[:5]}")
    values = tuple(grid) if grid is not None else (C_GRID if kind == "logistic" else ALPHA_GRID)
    scores = cross_validated(kind, x, y, groups, values)
    if np.isnan(scores).all():
        raise ValueError(f"{len(y)} rows of {len(set(map(str, groups)))} groups: no inner fold held both labels, so "
                         "no regulariser can be chosen; give more labelled items (e.g. a larger lm_items)")
    best = int(np.nanargmax(scores))
    mean, sd = x.mean(0), _sd(x)
    if kind == "ridge":
        w, b = ridge_path((x - mean) / sd, y, [values[best]])
        weights, intercept = w[:, 0], float(b[0])
    else:
        model = _model(kind, values[best]).fit((x - mean) / sd, y)
        weights = np.ravel(model.coef_)
        intercept = float(np.ravel(np.atleast_1d(model.intercept_))[0])
    return FittedHead(kind, tuple(features), tuple(map(float, mean)), tuple(map(float, sd)),
                      tuple(map(float, weights)), intercept, float(values[best]), float(scores[best]),
                      data_hash(x, y), split_sha256)


def out_of_fold(kind: HeadKind, x: np.ndarray, y: np.ndarray, groups: Groups, features: Sequence[str], *,
                folds: int, split_sha256: str, seed: int = 0) -> np.ndarray:
    """Nested cross-validation: each row's score from a head fitted (regulariser chosen inside) on the other outer
    folds alone. Outer folds are by group, the groups shuffled with `seed`."""
    labels = np.asarray([str(g) for g in groups])
    uniq = np.random.default_rng(seed).permutation(np.unique(labels))
    fold_of = {g: i % folds for i, g in enumerate(uniq)}
    which = np.array([fold_of[g] for g in labels])
    out = np.full(len(y), np.nan)
    for f in range(folds):
        held = which == f
        head = fit_head(kind, x[~held], y[~held], labels[~held], features, split_sha256=split_sha256)
        out[held] = head.score(x[held])
    return out


def save_head(head: FittedHead, path: str | Path) -> Path:
    """Write `head` as JSON to `path` (parent folders made); return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(to_json(head), indent=1) + "\n", encoding="utf-8")
    return p


def load_head(path: str | Path) -> FittedHead:
    """The head stored at `path` by `save_head`."""
    p = Path(path)
    try:
        return from_json(FittedHead, json.loads(p.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as e:
        raise ValueError(f"{p} is not a fitted judge head ({e}); fit it again (`judgelab`)") from e
