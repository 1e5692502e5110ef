"""Development and test splits of labelled items by group, fixed in advance from a seed and stored.

A judge is fitted and chosen on the development split and scored once on the test split. Items of one group (a
MacGyver problem, a MuseScorer object, a HANNA story) share what makes them alike, so the split is by group: no
group has items on both sides, and a group the claims use (the MacGyver problems semantic entropy draws) is kept out
of both, so that no judge is fitted on an item a claim scores.

The split is a pure function of the sorted group names, the seed and the test share: the groups are shuffled by
`np.random.default_rng(seed)` and the first round(share x G) of them form the test split. Stored as JSON
(`save_split`), it carries the SHA-256 of its canonical form (`Split.sha256`), which every fitted judge and validity
record quotes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..dataclass_json import from_json, to_json

Groups = Sequence[object] | np.ndarray | pd.Series
"""One group label per item: a list, an array or a column."""


class SplitError(ValueError):
    """A split that would let a judge see its own test items (a group on two sides, an unknown group)."""


@dataclass(frozen=True)
class Split:
    """Which groups of a judging job's items are for development, which for test, and which are held out of both."""

    job: str
    """The judging job (`jobs.JOBS`)."""
    seed: int
    """The seed that shuffled the groups."""
    dev: tuple[str, ...]
    """Groups whose items fit and choose the judge, sorted."""
    test: tuple[str, ...]
    """Groups whose items confirm the chosen judge, once, sorted."""
    reserved: tuple[str, ...] = ()
    """Groups in neither split: items the claims use, which no judge may be fitted or chosen on, sorted."""

    def __post_init__(self) -> None:
        sides = {"dev": self.dev, "test": self.test, "reserved": self.reserved}
        seen: dict[str, str] = {}
        for side, groups in sides.items():
            for g in groups:
                if g in seen:
                    raise SplitError(f"split of job {self.job!r}: group {g!r} is in both {seen[g]} and {side}; a "
                                     "group's items must lie on one side only (make the split again with "
                                     "`split_groups`)")
                seen[g] = side
        if not self.dev or not self.test:
            raise SplitError(f"split of job {self.job!r} has {len(self.dev)} development and {len(self.test)} test "
                             "groups: each side needs at least one")

    def side_of(self, group: str) -> str:
        """"dev", "test" or "reserved"; a group the split does not know raises `SplitError`."""
        for side in ("dev", "test", "reserved"):
            if group in getattr(self, side):
                return side
        raise SplitError(f"group {group!r} is in no side of the {self.job!r} split (seed {self.seed}); the split was "
                         "made for other items: make it again from these items' groups")

    def mask(self, groups: Groups, side: str) -> np.ndarray:
        """Boolean mask of the items (given by their groups) on `side`; every group must be known to the split."""
        if side not in ("dev", "test", "reserved"):
            raise ValueError(f"side={side!r}: choose 'dev', 'test' or 'reserved'")
        return np.array([self.side_of(str(g)) == side for g in groups], dtype=bool)

    @property
    def sha256(self) -> str:
        """SHA-256 of the split's canonical JSON (its fields, sorted keys)."""
        blob = json.dumps(to_json(self), sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()


def split_groups(job: str, groups: Iterable[object], *, test_share: float, seed: int,
                 reserved: Iterable[object] = (), test_groups: Iterable[object] | None = None) -> Split:
    """The split of `groups` (duplicates ignored) for `job`: `reserved` groups held out of both sides, then either
    the named `test_groups` or a seeded share `test_share` of the rest for test (at least one group each side)."""
    names = sorted({str(g) for g in groups})
    held = sorted({str(g) for g in reserved} & set(names))
    free = [g for g in names if g not in held]
    if test_groups is not None:
        test = sorted({str(g) for g in test_groups})
        unknown = [g for g in test if g not in free]
        if unknown:
            raise SplitError(f"test_groups {unknown} are not among the job's free groups {free[:10]}...")
    else:
        if not 0 < test_share < 1:
            raise ValueError(f"test_share={test_share!r}: must lie in (0, 1), e.g. 0.4")
        order = np.random.default_rng(seed).permutation(len(free))
        k = min(max(1, round(test_share * len(free))), len(free) - 1)
        test = sorted(free[i] for i in order[:k])
    dev = tuple(g for g in free if g not in set(test))
    return Split(job, seed, dev, tuple(test), tuple(held))


def save_split(split: Split, path: str | Path) -> Path:
    """Write `split` as JSON (with its `sha256`) to `path`; return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({**to_json(split), "sha256": split.sha256}, indent=1) + "\n", encoding="utf-8")
    return p


def load_split(path: str | Path) -> Split:
    """The split stored at `path`; refused when its stored hash does not match its contents (edited by hand)."""
    p = Path(path)
    row = json.loads(p.read_text(encoding="utf-8"))
    stored = row.pop("sha256", None)
    split = from_json(Split, row)
    if stored != split.sha256:
        raise SplitError(f"{p}: the stored hash {stored} does not match the split's contents ({split.sha256}): the "
                         "file was edited; restore it from git")
    return split


def assert_unseen(split: Split, fitted_on: Groups, scored_on: Groups) -> None:
    """Raise `SplitError` unless every group a judge was fitted or chosen on (`fitted_on`) is a development group
    and every group it is scored on (`scored_on`) a test group: no test item was seen in fitting or choosing."""
    bad_fit = sorted({str(g) for g in fitted_on} - set(split.dev))
    bad_test = sorted({str(g) for g in scored_on} - set(split.test))
    if bad_fit or bad_test:
        raise SplitError(f"job {split.job!r}: fitted on non-development groups {bad_fit[:5]} or scored on non-test "
                         f"groups {bad_test[:5]}: a judge is scored only on items it was not fitted or chosen on")
