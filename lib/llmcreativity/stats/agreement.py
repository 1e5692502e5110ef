"""Agreement between two labelings or ratings: accuracy, Cohen's kappa, Spearman's rho, ICC, the ROC AUC of a score
against yes/no labels and the adjusted Rand index of two partitions.

Written for any labels (judge vs human, rater vs rater); the evaluation stages reuse them. `roc_auc` and
`adjusted_rand` give scikit-learn's `roc_auc_score` and `adjusted_rand_score` bit for bit (a test holds them to it)
without its per-call input checks, which cost about a millisecond a call: the judge laboratory's cluster bootstraps
call them hundreds of thousands of times.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, get_args

import numpy as np
import pandas as pd
import pingouin
from scipy import stats
from scipy.integrate import trapezoid
from statsmodels.stats.inter_rater import cohens_kappa as _sm_cohens_kappa

IccKind = Literal["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]
"""An ICC variant pingouin computes."""

ICC_KINDS: tuple[IccKind, ...] = get_args(IccKind)
"""ICC variants in McGraw & Wong notation (A = absolute agreement, C = consistency; 1 = single rater, k = mean of k)."""


Values: TypeAlias = Sequence[float] | np.ndarray | pd.Series
"""One sample of numbers, paired by position with another: a list, a 1-D array or a Series."""


def _paired(a: Sequence[object] | np.ndarray | pd.Series, b: Sequence[object] | np.ndarray | pd.Series,
            names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if x.ndim != 1 or y.ndim != 1 or len(x) != len(y):
        raise ValueError(f"{names[0]} and {names[1]} must be 1-D and equally long, got shapes {x.shape} and {y.shape}")
    if len(x) == 0:
        raise ValueError(f"{names[0]} and {names[1]} are empty: agreement needs at least one pair")
    return x, y


def accuracy(y_true: Sequence[Hashable], y_pred: Sequence[Hashable | None]) -> float:
    """Share of exact matches, (1/n) sum_i [y_pred_i == y_true_i]; a missing prediction (None) counts as wrong."""
    t, p = _paired(y_true, y_pred, ("y_true", "y_pred"))
    return float(np.mean([pi is not None and pi == ti for ti, pi in zip(t, p, strict=True)]))


def confusion_table(y_true: Sequence[Hashable], y_pred: Sequence[Hashable | None],
                    labels: Sequence[Hashable] | None = None) -> pd.DataFrame:
    """Counts C[t, p] of items with true label t (rows) and predicted label p (columns).

    `labels` fixes the order and includes labels that never occur; predictions outside it
    (e.g. None for an unparsed verdict) get their own column named "missing".
    """
    t, p = _paired(y_true, y_pred, ("y_true", "y_pred"))
    order = list(labels) if labels is not None else sorted({*t, *(v for v in p if v is not None)}, key=str)
    unknown = {v for v in t if v not in order}
    if unknown:
        raise ValueError(f"y_true holds labels {sorted(unknown, key=str)} missing from labels={order}: add them to "
                         "labels")
    predicted = ["missing" if v is None or v not in order else v for v in p]
    columns = order + (["missing"] if "missing" in predicted else [])
    table = pd.DataFrame(0, index=pd.Index(order, name="true"), columns=pd.Index(columns, name="predicted"))
    for ti, pi in zip(t, predicted, strict=True):
        table.loc[ti, pi] += 1
    return table


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa = (p_o - p_e) / (1 - p_e), computed by statsmodels from the a-by-b table.

    p_o is the observed agreement and p_e = sum_c p_a(c) p_b(c) the agreement expected by chance.
    NaN when p_e = 1 (both labelings constant and equal): kappa is undefined there.
    """
    x, y = _paired(a, b, ("a", "b"))
    if any(v is None for v in (*x, *y)):
        raise ValueError("a or b holds None: drop items without a label before computing kappa")
    labels = sorted({*x, *y}, key=str)
    if len(labels) < 2:
        return float("nan")
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    np.add.at(table, ([index[v] for v in x], [index[v] for v in y]), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(_sm_cohens_kappa(table).kappa)


def spearman(x: Values, y: Values) -> tuple[float, float]:
    """Spearman's rho (Pearson correlation of the ranks, ties averaged) and its two-sided p-value, via scipy.

    NaN when either side is constant.
    """
    a, b = _paired(x, y, ("x", "y"))
    a, b = a.astype(float), b.astype(float)
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan"), float("nan")
    res = stats.spearmanr(a, b)
    return float(res.statistic), float(res.pvalue)


@dataclass(frozen=True)
class IccResult:
    """One intraclass correlation with its 95 % interval (F-distribution based, from pingouin)."""

    kind: IccKind
    """Variant, one of ICC_KINDS."""
    icc: float
    """The coefficient: between-item variance over total variance under the variant's model."""
    low: float
    """Lower 95 % bound."""
    high: float
    """Upper 95 % bound."""
    n_items: int
    """Items rated by every rater."""
    n_raters: int
    """Raters (columns)."""


def icc(ratings: pd.DataFrame, kind: IccKind = "ICC(A,1)") -> IccResult:
    """Intraclass correlation of a wide table (rows = items, columns = raters), via pingouin.

    The default ICC(A,1) (Shrout & Fleiss ICC(2,1)) is absolute agreement of single raters:
    (MS_R - MS_E) / (MS_R + (k-1) MS_E + k (MS_C - MS_E) / n), with MS_R, MS_C, MS_E the
    two-way ANOVA mean squares of items, raters and error, n items and k raters.
    """
    if kind not in ICC_KINDS:
        raise ValueError(f"kind={kind!r}: choose one of {ICC_KINDS}")
    if not isinstance(ratings, pd.DataFrame) or ratings.shape[1] < 2:
        raise ValueError("ratings must be a DataFrame with one row per item and at least two rater columns")
    complete = ratings.dropna()
    if len(complete) < 3:
        raise ValueError(f"ratings have {len(complete)} complete rows: ICC needs at least 3 items rated by every rater")
    renamed = pd.DataFrame(complete.to_numpy(dtype=float), columns=[f"r{i}" for i in range(complete.shape[1])])
    long = renamed.rename_axis("item").reset_index().melt(id_vars="item", var_name="rater", value_name="score")
    with warnings.catch_warnings():
        # zero error variance (perfect agreement) makes the F-test CI undefined
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("ignore", module="pingouin")  # pingouin's own pandas deprecation notices
        table = pingouin.intraclass_corr(data=long, targets="item", raters="rater", ratings="score").set_index("Type")
    row = table.loc[kind]
    low, high = row["CI95"]
    return IccResult(kind, float(row["ICC"]), float(low), float(high), len(complete), complete.shape[1])


def rater_ceiling(ratings: pd.DataFrame) -> dict[str, float]:
    """How well human raters agree with each other on one criterion (rows = items, columns = raters).

    spearman_pairwise: mean Spearman rho over rater pairs; spearman_loo: mean over raters of rho(rater,
    mean of the other raters); icc_single = ICC(A,1); icc_mean = ICC(A,k) (reliability of the mean rating).
    """
    cols = list(ratings.columns)
    if len(cols) < 2:
        raise ValueError("ratings need at least two rater columns")
    pairs = [spearman(ratings[a], ratings[b])[0] for i, a in enumerate(cols) for b in cols[i + 1:]]
    loo = [spearman(ratings[c], ratings.drop(columns=c).mean(axis=1))[0] for c in cols]
    return {
        "spearman_pairwise": float(np.nanmean(pairs)), "spearman_loo": float(np.nanmean(loo)),
        "icc_single": icc(ratings, "ICC(A,1)").icc, "icc_mean": icc(ratings, "ICC(A,k)").icc,
        "n_items": float(len(ratings.dropna())), "n_raters": float(len(cols)),
    }


def agreement_with_raters(scores: pd.Series, ratings: pd.DataFrame) -> dict[str, float]:
    """Agreement of one automatic score per item with human raters (rows = items, columns = raters).

    spearman_mean: rho(score, mean rating); spearman_each: mean over raters of rho(score, rater);
    icc_mean: ICC(A,1) between the score and the mean rating (same scale assumed).
    """
    joined = ratings.join(scores.rename("__score"), how="inner").dropna()
    if len(joined) < 3:
        raise ValueError(f"scores and ratings share {len(joined)} items: agreement needs at least 3")
    human = joined.drop(columns="__score")
    each = [spearman(joined["__score"], human[c])[0] for c in human.columns]
    return {
        "spearman_mean": spearman(joined["__score"], human.mean(axis=1))[0], "spearman_each": float(np.nanmean(each)),
        "icc_mean": icc(pd.DataFrame({"score": joined["__score"], "human": human.mean(axis=1)}), "ICC(A,1)").icc,
        "n_items": float(len(joined)),
    }


def roc_auc(y: Values, s: Values) -> float:
    """Area under the ROC curve of scores `s` for yes/no labels `y` (1 yes, 0 no), as `sklearn.metrics.roc_auc_score`
    computes it: the curve's corners at each distinct score, collinear ones dropped, integrated by the trapezoid rule.
    NaN when `y` holds one class."""
    y, s = np.asarray(y, dtype=float), np.asarray(s)
    if y.shape != s.shape or y.ndim != 1:
        raise ValueError(f"roc_auc: labels {y.shape} and scores {s.shape} must be two 1-D arrays of one length")
    if not np.isfinite(s).all():
        raise ValueError("roc_auc: a score is NaN or infinite; score every item before computing the AUC")
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("roc_auc: the labels must be 0 or 1")
    if len(np.unique(y)) != 2:
        return float("nan")
    order = np.argsort(s, kind="stable")[::-1]
    ranked, yes = s[order], y[order]
    corners = np.append(np.flatnonzero(np.diff(ranked)), len(ranked) - 1)
    tps = np.cumsum(yes)[corners]
    fps = 1 + corners.astype(float) - tps
    if len(fps) > 2:
        kept = np.concatenate([[True], np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), [True]])
        fps, tps = fps[kept], tps[kept]
    fps, tps = np.concatenate([[0.0], fps]), np.concatenate([[0.0], tps])
    return float(trapezoid(tps / tps[-1], fps / fps[-1]))


def adjusted_rand(a: Sequence[Hashable] | np.ndarray, b: Sequence[Hashable] | np.ndarray) -> float:
    """Hubert and Arabie's adjusted Rand index of two partitions of the same items (labels by position), as
    `sklearn.metrics.adjusted_rand_score` computes it: from the ordered pairs of items that each partition puts
    together or apart, in exact integers, with one rounding at the end; 1.0 when they agree on every pair."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"adjusted_rand: partitions {a.shape} and {b.shape} must be two 1-D arrays of one length")
    _, ia = np.unique(a, return_inverse=True)
    nb, ib = np.unique(b, return_inverse=True)
    n = len(a)
    cells = np.bincount(ia * len(nb) + ib)
    same_both = int((cells.astype(np.int64) ** 2).sum())
    same_a = int((np.bincount(ia).astype(np.int64) ** 2).sum())
    same_b = int((np.bincount(ib).astype(np.int64) ** 2).sum())
    tp, fp, fn = same_both - n, same_b - same_both, same_a - same_both
    tn = n * n - fp - fn - same_both
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
