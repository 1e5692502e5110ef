"""The solution-validity job: is a MacGyver solution correct? Protocols compared on the development problems,
the chosen one confirmed on test problems it never saw.

Items: the 4,770 labelled solutions of MacGyver's benchmark (`data.macgyver.load_benchmark`), grouped by problem.
The benchmark problems among the first `RESERVED_SE_PROBLEMS` solvable problems in file order (the ones the
semantic-entropy stage draws, `entropy.domains.macgyver_problems`) are held out of both splits; a seeded
`TEST_SHARE` of the other problems forms the test split.

Protocols, each scored out of fold on development (5 folds by problem; a fitted head's regulariser chosen inside
its training folds, `heads.out_of_fold`):
- "source only" (the baseline): which model or person wrote the solution, as a linear head. It reads no text;
  a judge that reads the text must beat it;
- "length only": the solution's log length and step count;
- "embedding head (EMBEDDER)": a ridge head (`HEAD_KIND`) on `features.solution_features`;
- "panel": the mean of the standardised scores of the embedding heads.
The choice (`CHOICE_RULE`) is the protocol with the highest development AUC; its kappa threshold is the one with
the highest development kappa (`binary.best_threshold`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.macgyver import load_benchmark
from ..entropy.domains import macgyver_problems
from . import binary
from .heads import FittedHead, HeadKind, fit_head, out_of_fold
from .splits import Split, split_groups

JOB = "convergent"
"""The job's id: the `JudgeKind` of the claims it gates (B6, B11)."""
RESERVED_SE_PROBLEMS = 100
"""The first this many solvable MacGyver problems (file order) may be drawn by semantic entropy (the paper profile
draws 20; the claims' re-decision may draw more): their labelled solutions are in neither split."""
TEST_SHARE = 0.3
"""Share of the other problems in the test split (about 94 problems, over 1,300 solutions)."""
SPLIT_SEED = 20261203
"""The seed of the split, fixed before any judge was scored."""
FOLDS = 5
"""Group folds of the out-of-fold development comparison."""
HEAD_KIND: HeadKind = "ridge"
"""The heads' kind: a ridge linear-probability head (`heads`: its whole regularisation path costs one
eigendecomposition per fold)."""
BASELINE = "source only"
"""The protocol every fitted judge must beat on the test split (paired)."""
CHOICE_RULE = "the protocol other than the baselines with the highest out-of-fold AUC on the development problems"
"""How the judge is chosen, stated before the development comparison was run."""


@dataclass(frozen=True)
class Development:
    """The development comparison of the job's protocols."""

    table: pd.DataFrame
    """One row per protocol: protocol, items, problems, auc, auc_low, auc_high, kappa (at its best threshold),
    threshold."""
    scores: dict[str, np.ndarray]
    """Protocol -> its out-of-fold score of each development item."""


def solution_items(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The labelled solutions with a `group` column (the problem id as text) and `label` (1 valid, 0 not)."""
    items = load_benchmark() if table is None else table
    return items.assign(group=items["problem_id"].astype(str), label=items["valid"].astype(float))


def reserved_problems(limit: int = RESERVED_SE_PROBLEMS) -> list[str]:
    """The problem ids (as text) of the first `limit` solvable MacGyver problems, which semantic entropy draws."""
    return [p.id.removeprefix("macgyver-") for p in macgyver_problems(limit=limit)]


def solution_split(items: pd.DataFrame, *, seed: int = SPLIT_SEED, test_share: float = TEST_SHARE,
                   reserved: Sequence[str] | None = None) -> Split:
    """The job's split of `items`' problems (`reserved` default: `reserved_problems()`)."""
    held = reserved_problems() if reserved is None else reserved
    return split_groups(JOB, items["group"], test_share=test_share, seed=seed, reserved=held)


def panel(scores: Sequence[np.ndarray], reference: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """Mean of standardised scores: each member's (s - mean) / sd, the mean and sd of `reference`'s matching
    member (default: of `scores` itself)."""
    ref = scores if reference is None else reference
    out: np.ndarray = np.mean([(s - r.mean()) / (r.std() or 1.0) for s, r in zip(scores, ref, strict=True)], axis=0)
    return out


def develop(items: pd.DataFrame, split: Split, features: Mapping[str, tuple[np.ndarray, list[str]]], *,
            seed: int = 0, n_resamples: int = 2000) -> Development:
    """Each protocol's out-of-fold development scores and agreement (`features`: protocol -> (rows, names) over all
    of `items`; the embedding heads' protocols start with "embedding head"); "panel" is added when there are two or
    more embedding heads. The folds are dealt with `SPLIT_SEED`; `seed` seeds the bootstrap alone."""
    dev = split.mask(items["group"], "dev")
    y, groups = items["label"].to_numpy()[dev], items["group"].to_numpy()[dev]
    scores = {name: out_of_fold(HEAD_KIND, x[dev], y, groups, names, folds=FOLDS, split_sha256=split.sha256,
                                seed=SPLIT_SEED)
              for name, (x, names) in features.items()}
    heads = [n for n in scores if n.startswith("embedding head")]
    if len(heads) >= 2:
        scores["panel"] = panel([scores[n] for n in heads])
    rows = []
    for name, s in scores.items():
        ci = binary.auc_interval(y, s, groups, n_resamples=n_resamples, seed=seed)
        t = binary.best_threshold(y, s)
        rows.append({"protocol": name, "items": int(dev.sum()), "problems": len(set(groups)), "auc": ci.estimate,
                     "auc_low": ci.low, "auc_high": ci.high, "kappa": binary.kappa_at(y, s, t), "threshold": t})
    return Development(pd.DataFrame(rows), scores)


def choose(development: Development) -> str:
    """`CHOICE_RULE` applied to the development table: the chosen protocol's name."""
    table = development.table[~development.table["protocol"].isin([BASELINE, "length only"])]
    if table.empty:
        raise ValueError("no protocol besides the baselines was compared: give at least one embedding head")
    return str(table.sort_values("auc", ascending=False, kind="stable")["protocol"].iloc[0])


def fit_protocol(items: pd.DataFrame, split: Split, features: Mapping[str, tuple[np.ndarray, list[str]]],
                 protocol: str) -> dict[str, FittedHead]:
    """The heads a protocol scores with, fitted on every development item: member name -> head (a panel's members
    are the embedding heads; any other protocol is its own one member)."""
    dev = split.mask(items["group"], "dev")
    y, groups = items["label"].to_numpy()[dev], items["group"].to_numpy()[dev]
    members = [n for n in features if n.startswith("embedding head")] if protocol == "panel" else [protocol]
    return {m: fit_head(HEAD_KIND, features[m][0][dev], y, groups, features[m][1], split_sha256=split.sha256)
            for m in members}


def protocol_scores(heads: Mapping[str, FittedHead], features: Mapping[str, tuple[np.ndarray, list[str]]],
                    rows: np.ndarray, reference_rows: np.ndarray) -> np.ndarray:
    """The protocol's score of `rows` (a mask or index into the feature tables): one head's p(valid), or a panel's
    mean standardised score, standardised by the members' scores of `reference_rows` (the development items)."""
    members = [heads[m].score(features[m][0][rows]) for m in heads]
    if len(heads) == 1:
        return members[0]
    return panel(members, [heads[m].score(features[m][0][reference_rows]) for m in heads])
