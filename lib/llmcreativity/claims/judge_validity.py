"""How far each LLM judge agrees with human labels, recorded by the stages that measure it, and the gate it sets.

A claim that rests on an LLM judge (`claim_spec.ClaimSpec.judge`) is only as good as that judge. The
stages that compare a judge with people record its agreement here: Cohen's kappa against MacGyver's
labels for the convergent judges (judge_validation), Spearman's rho against HANNA's human ratings for
the rubric judge (evaluation), the adjusted Rand index against MuseScorer's coders for the entailment
judge (entailment_validation), each with its 95 % CI. The judge laboratory (`judgelab`, stage judge_lab) records
the judges it confirmed on a held-out split with more: the statistic's chance value (0.5 for an AUC), the human
ceiling on the same scale, the paired difference from the job's baseline, and the split and committed choice it
was scored from. A judge is *validated* when the lower end of its CI lies above chance and, where a baseline was
measured, the lower end of the paired difference from it lies above 0:

    validated  <=>  low > chance (and the interval is defined) and (no baseline or baseline_low > 0).

The statistics of the stages' own judges are 0 at chance, and their records store none of the laboratory's
fields, which are left out of a record's stored form at their defaults (so those records read and rebuild as
they always did).

Records go to `results_dir()/judge_validity.jsonl`, one per (kind, judge), replaced when recorded again
(`jsonl.upsert`); smoke writes nothing, as for claims (`paths.records_claims`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..context import INTERACTIVE_RUN, kernel_context
from ..jsonl import read_records, record_interval, upsert
from ..paths import records_claims, results_dir
from ..stats.bootstrap import ConfidenceInterval
from .spec import JudgeKind

KINDS: dict[str, str] = {"rubric": "Spearman rho vs HANNA human ratings",
                         "convergent": "Cohen's kappa vs MacGyver labels",
                         "entailment": "ARI vs MuseScorer coders"}
"""Judge kind -> the agreement statistic that validates it."""


@dataclass(frozen=True)
class JudgeValidity:
    """One judge's measured agreement with human labels."""

    kind: str
    """"rubric", "convergent" or "entailment"."""
    judge: str
    """The judge: its model identity or name (claims name it with `record_claims(..., judge=...)`)."""
    statistic: str
    """What was measured, e.g. "Cohen's kappa vs MacGyver labels"."""
    estimate: float | None
    """Point estimate; None when undefined."""
    low: float | None
    """Lower end of the 95 % CI; None when undefined."""
    high: float | None
    """Upper end of the 95 % CI; None when undefined."""
    n: int
    """Items (stories, solutions, ideas) the agreement was measured on."""
    stage: str
    """Stage that measured it."""
    run_id: str
    """Run that measured it."""
    chance: float = 0.0
    """The statistic's value at chance agreement (0.5 for an AUC, 0 for kappa, rho and ARI)."""
    ceiling: float | None = None
    """The human ceiling on the same scale and reference (None: not measured beside it)."""
    baseline: str = ""
    """The baseline the judge was compared with on the same items ("" for none)."""
    baseline_low: float | None = None
    """Lower end of the 95 % CI of the paired difference judge - baseline (None without a baseline)."""
    baseline_high: float | None = None
    """Upper end of that CI."""
    split: str = ""
    """The split it was scored on, e.g. "test: 94 problems, 1,312 solutions (split sha256 ...)" ("" for none)."""
    choice_commit: str = ""
    """The commit of the choice it was scored from ("" for a judge that was not chosen in the laboratory)."""
    choice_sha256: str = ""
    """SHA-256 of that choice file."""

    def to_dict(self) -> dict[str, object]:
        """The stored form: every field, less the laboratory's fields at their defaults."""
        row = {f.name: getattr(self, f.name) for f in fields(self)}
        for f in fields(self):
            if f.name in _LAB_FIELDS and row[f.name] == f.default:
                del row[f.name]
        return row

    @classmethod
    def from_dict(cls, row: dict[str, object]) -> JudgeValidity:
        """A record from its stored form (`to_dict`): unknown keys refused."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(row) - names)
        if unknown:
            raise ValueError(f"unknown judge-validity field(s) {unknown}; known: {sorted(names)}")
        return cls(**row)  # type: ignore[arg-type]

    @property
    def validated(self) -> bool:
        """True when the CI is defined and lies above chance, and the paired difference from the baseline (where
        one was measured) lies above 0."""
        above = self.low is not None and self.high is not None and self.low > self.chance
        return above and (not self.baseline or (self.baseline_low is not None and self.baseline_low > 0))

    def describe(self) -> str:
        """E.g. "Cohen's kappa vs MacGyver labels 0.12 [-0.05, 0.3], n = 30 (judge X)"."""
        if self.estimate is None:
            return f"{self.statistic} undefined, n = {self.n} ({self.judge})"
        ci = "" if self.low is None or self.high is None else f" [{self.low:.2g}, {self.high:.2g}]"
        return f"{self.statistic} {self.estimate:.2g}{ci}, n = {self.n} ({self.judge})"


_LAB_FIELDS = frozenset({"chance", "ceiling", "baseline", "baseline_low", "baseline_high", "split", "choice_commit",
                         "choice_sha256"})
"""The fields only the judge laboratory's records set."""


def validity_path() -> Path:
    """The judge-validity file of the current results folder."""
    return results_dir() / "judge_validity.jsonl"


def record_judge_validity(kind: JudgeKind, judge: str, statistic: str, ci: ConfidenceInterval, *,
                          stage: str, **lab: Any) -> JudgeValidity:
    """Record (or replace) the agreement of `judge` (of `kind`) with human labels, measured by `stage`; return the
    record.

    `statistic` names what was measured; `ci` is its value with its 95 % CI (`estimate`, `low`, `high`; NaN is
    stored as undefined) over `ci.n` items. `lab` sets the judge laboratory's fields of `JudgeValidity` (chance,
    ceiling, baseline, baseline_low, baseline_high, split, choice_commit, choice_sha256). Nothing is written under
    smoke (`paths.records_claims`).
    """
    unknown = sorted(set(lab) - _LAB_FIELDS)
    if unknown:
        raise ValueError(f"record_judge_validity: unknown field(s) {unknown}; the laboratory's are "
                         f"{sorted(_LAB_FIELDS)}")
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} is not a judge kind; use one of {sorted(KINDS)}")
    if not judge.strip() or not statistic.strip() or not stage.strip():
        raise ValueError("record_judge_validity needs a non-empty judge, statistic and stage")
    if not isinstance(ci, ConfidenceInterval):
        raise TypeError(f"judge {judge!r}: ci={ci!r} is not a ConfidenceInterval; pass the estimate with its interval "
                        "(stats.ConfidenceInterval.of(estimate, low, high, n) for one read from a table)")
    est, lo, hi, n = record_interval(f"judge {judge!r}", ("estimate", "low", "high"), ci.estimate, ci.low, ci.high,
                                     ci.n)
    run_id = kernel_context().run_id or INTERACTIVE_RUN  # the run's id, as `pipeline.provenance.current_run` gives it
    record = JudgeValidity(kind, judge.strip(), statistic.strip(), est, lo, hi, n, stage.strip(), run_id, **lab)
    if records_claims():
        upsert(validity_path(), [record], key=lambda v: (v.kind, v.judge), what="judge-validity")
    return record


def read_judge_validity(path: Path | None = None) -> list[JudgeValidity]:
    """Recorded judge agreements; a malformed line raises naming the file and line."""
    return read_records(validity_path() if path is None else path, JudgeValidity, "judge-validity")


LAB_STAGE = "judge_lab"
"""The stage whose records are the laboratory's confirmed judges: each gates only the claims that name it."""


def judges_for(kind: str, judge: str, records: Iterable[JudgeValidity]) -> list[JudgeValidity]:
    """The records a claim resting on a `kind` judge is gated on. A claim that names its `judge` is gated on that
    judge's record alone, matched exactly (never as a substring: "p(yes) (M)" must not pass for "p(yes) (M) x2"); no
    record is then "no agreement recorded". A claim that names none was scored by its stage's own judges of the
    kind, and is gated on every one of them; a laboratory judge (`LAB_STAGE`) never scored it and is left out."""
    same = [v for v in records if v.kind == kind]
    if judge:
        return [v for v in same if v.judge == judge]
    return [v for v in same if v.stage != LAB_STAGE]
