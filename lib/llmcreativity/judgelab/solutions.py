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
- "panel": the mean of the standardised scores of the embedding heads;
- with language models (`checklist`), on at most `LM_DEV_ITEMS` development solutions (`lm_rows`):
  "p(yes) (LM)", the direct question's answer unfitted; "checklist (LM)", a ridge head on the log-odds of the
  checklist's answers; "panel with checklists", the embedding heads' and the checklists' standardised mean.
Every protocol is compared on the same items: all development solutions, or the ones the language models read when
they run (`Development.rows`). The choice (`CHOICE_RULE`) is the protocol with the highest AUC there; its kappa
threshold is the one with the highest development kappa (`binary_agreement.best_threshold`). A protocol that reads a
language model is confirmed on at most `LM_TEST_PER_PROBLEM` solutions of every test problem (`lm_rows`), the
baseline on the same ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.macgyver import load_benchmark, solvable_problems
from . import binary_agreement
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
CHOICE_RULE = ("the protocol other than the baselines with the highest out-of-fold AUC on the development items "
               "every protocol scored (those the language models read, when they run)")
"""How the judge is chosen, stated before the development comparison was run (the language-model protocols were
added before the test split was scored: the items they read are the comparison's)."""
LM_DEV_ITEMS = 600
"""At most this many development solutions are read by the language-model protocols (the issue's cap)."""
LM_PER_PROBLEM = 3
"""At most this many solutions of each development problem among them (problems in seeded order)."""
LM_TEST_PER_PROBLEM = 5
"""At most this many solutions of every test problem are read when a language-model protocol is confirmed (about
94 problems: over 400 solutions from over 60 problems)."""
DIRECT_PREFIX = "p(yes)"
"""Protocols named so are unfitted: their score is their one feature (the direct question's log-odds)."""
CHECKLIST_PREFIX = "checklist"
"""Protocols named so are ridge heads on a language model's checklist answers."""
LM_PANEL = "panel with checklists"
"""The mean standardised score of the embedding heads and the checklists."""


@dataclass(frozen=True)
class Development:
    """The development comparison of the job's protocols."""

    table: pd.DataFrame
    """One row per protocol: protocol, items, problems, auc, auc_low, auc_high, kappa (at its best threshold),
    threshold, all on the compared items (`rows`)."""
    scores: dict[str, np.ndarray]
    """Protocol -> its out-of-fold score of each compared item."""
    rows: np.ndarray
    """Mask over the items: the development items every protocol scored, on which they are compared."""


def solution_items(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The labelled solutions with a `group` column (the problem id as text) and `label` (1 valid, 0 not)."""
    items = load_benchmark() if table is None else table
    return items.assign(group=items["problem_id"].astype(str), label=items["valid"].astype(float))


def reserved_problems(limit: int = RESERVED_SE_PROBLEMS) -> list[str]:
    """The problem ids (as text) of the first `limit` solvable MacGyver problems, which semantic entropy draws."""
    return [str(pid) for pid in solvable_problems(limit=limit)["ID"].astype(int)]


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


def lm_rows(items: pd.DataFrame, split: Split, part: str, *, per_problem: int, cap: int = 0,
            seed: int = SPLIT_SEED) -> np.ndarray:
    """Mask of the solutions a language model reads in `part` ("dev" or "test"): the part's problems in a seeded
    order, at most `per_problem` solutions of each (seeded), until `cap` solutions (0: no cap)."""
    rng = np.random.default_rng(seed)
    groups = items["group"].to_numpy()
    in_part = split.mask(items["group"], part)
    rows_of: dict[str, list[int]] = {}
    for i in np.flatnonzero(in_part):
        rows_of.setdefault(str(groups[i]), []).append(int(i))
    mask = np.zeros(len(items), dtype=bool)
    for g in rng.permutation(sorted(rows_of)):
        take = rng.permutation(rows_of[str(g)])[:per_problem]
        if cap:
            take = take[:cap - int(mask.sum())]
        mask[take] = True
        if cap and mask.sum() >= cap:
            break
    return mask


def is_unfitted(protocol: str) -> bool:
    """True for a protocol scored by its one feature, with no head (`DIRECT_PREFIX`)."""
    return protocol.startswith(DIRECT_PREFIX)


def panel_members(protocol: str, names: Sequence[str]) -> list[str]:
    """The member protocols of `protocol` among `names`: a panel's heads, or the protocol itself."""
    heads = [n for n in names if n.startswith("embedding head")]
    if protocol == "panel":
        return heads
    if protocol == LM_PANEL:
        return heads + [n for n in names if n.startswith(CHECKLIST_PREFIX)]
    return [protocol]


def develop(items: pd.DataFrame, split: Split, features: Mapping[str, tuple[np.ndarray, list[str]]], *,
            seed: int = 0, n_resamples: int = 2000) -> Development:
    """Each protocol's out-of-fold development scores and agreement (`features`: protocol -> (rows, names) over all
    of `items`, NaN in the rows a protocol did not read; the embedding heads' protocols start with "embedding head").
    A protocol is fitted out of fold on every development row it read, and all are compared on the rows every one
    read. "panel" is added when there are two or more embedding heads, `LM_PANEL` when there are checklists too. The
    folds are dealt with `SPLIT_SEED`; `seed` seeds the bootstrap alone."""
    dev = split.mask(items["group"], "dev")
    y_all, g_all = items["label"].to_numpy(), items["group"].to_numpy()
    full = {}
    for name, (x, names) in features.items():
        read = dev & np.isfinite(x).all(axis=1)
        s = np.full(len(items), np.nan)
        s[read] = x[read, 0] if is_unfitted(name) else out_of_fold(
            HEAD_KIND, x[read], y_all[read], g_all[read], names, folds=FOLDS, split_sha256=split.sha256,
            seed=SPLIT_SEED)
        full[name] = s
    rows = dev & np.all([np.isfinite(s) for s in full.values()], axis=0)
    scores = {name: s[rows] for name, s in full.items()}
    n_heads = sum(n.startswith("embedding head") for n in features)
    n_lists = sum(n.startswith(CHECKLIST_PREFIX) for n in features)
    for name, wanted in (("panel", n_heads >= 2), (LM_PANEL, n_heads >= 1 and n_lists >= 1)):
        if wanted:
            scores[name] = panel([scores[m] for m in panel_members(name, list(features))])
    y, groups = y_all[rows], g_all[rows]
    table = []
    for name, s in scores.items():
        ci = binary_agreement.auc_interval(y, s, groups, n_resamples=n_resamples, seed=seed)
        t = binary_agreement.best_threshold(y, s)
        table.append({"protocol": name, "items": int(rows.sum()), "problems": len(set(groups)), "auc": ci.estimate,
                      "auc_low": ci.low, "auc_high": ci.high, "kappa": binary_agreement.kappa_at(y, s, t),
                      "threshold": t})
    return Development(pd.DataFrame(table), scores, rows)


def choose(development: Development) -> str:
    """`CHOICE_RULE` applied to the development table: the chosen protocol's name."""
    table = development.table[~development.table["protocol"].isin([BASELINE, "length only"])]
    if table.empty:
        raise ValueError("no protocol besides the baselines was compared: give at least one embedding head")
    return str(table.sort_values("auc", ascending=False, kind="stable")["protocol"].iloc[0])


def fit_protocol(items: pd.DataFrame, split: Split, features: Mapping[str, tuple[np.ndarray, list[str]]],
                 protocol: str) -> dict[str, FittedHead]:
    """The heads a protocol scores with, each fitted on every development item its features read: member name ->
    head (a panel's members, `panel_members`; an unfitted protocol has none)."""
    dev = split.mask(items["group"], "dev")
    y, groups = items["label"].to_numpy(), items["group"].to_numpy()
    heads = {}
    for m in panel_members(protocol, list(features)):
        if is_unfitted(m):
            continue
        x, names = features[m]
        read = dev & np.isfinite(x).all(axis=1)
        heads[m] = fit_head(HEAD_KIND, x[read], y[read], groups[read], names, split_sha256=split.sha256)
    return heads


def needs_lm(protocol: str, features: Mapping[str, tuple[np.ndarray, list[str]]]) -> bool:
    """True when `protocol` reads a language model's answers (an unfitted or checklist protocol, or a panel of
    checklists)."""
    return any(is_unfitted(m) or m.startswith(CHECKLIST_PREFIX) for m in panel_members(protocol, list(features)))


def protocol_scores(protocol: str, heads: Mapping[str, FittedHead],
                    features: Mapping[str, tuple[np.ndarray, list[str]]], rows: np.ndarray,
                    reference_rows: np.ndarray) -> np.ndarray:
    """The protocol's score of `rows` (a mask or index into the feature tables): an unfitted protocol's feature,
    one head's p(valid), or a panel's mean standardised score, standardised by the members' scores of
    `reference_rows` (the development items they read)."""
    if is_unfitted(protocol):
        out: np.ndarray = features[protocol][0][rows, 0]
        return out
    members = [heads[m].score(features[m][0][rows]) for m in heads]
    if len(heads) == 1:
        return members[0]
    return panel(members, [heads[m].score(features[m][0][reference_rows]) for m in heads])
