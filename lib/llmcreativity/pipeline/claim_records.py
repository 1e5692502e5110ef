"""The papers' claims and the verdicts this run's data supports, for the book's claims page.

Each stage records the `Verdict` (from `llmcreativity.claims.verdicts`) of every claim it tests with
`record_claims`; records go to `results_dir()/claims.jsonl`, one JSON object per line, replaced (not
duplicated) when the same claim id is recorded again (`jsonl.upsert`). A claim's text comes from its row
of the claim table (`claim_table.CLAIMS`: `ClaimSpec.text`, filled with the verdict's facts: `claim_text`). Every
record carries the run it came from (`provenance.current_run`: run id, profile, parameter hash, models),
so the page can tell a claim of the latest run of its stage from a stale one (`ledger.stale_reason`). A
verdict whose n is below the claim's minimum sample size (`ClaimSpec.min_n`) is recorded as "inconclusive"
with the reason "sample too small", the stage's statistic and CI kept. Under smoke nothing is written: its
numbers are no evidence (the pilot records into its own folder, `results/pilot/`). The claims page itself is built
by `ledger.claims_markdown`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ..claims.declarations import min_n
from ..claims.verdicts import LABELS, Label, Verdict
from ..jsonl import read_records, record_interval, upsert
from ..paths import current_profile, records_claims, results_dir
from .claim_table import CLAIMS
from .provenance import current_run

VERDICTS = LABELS
"""Allowed verdict labels (`llmcreativity.claims.verdicts.LABELS`)."""

PAPER_CLAIMS: dict[str, tuple[str, str]] = {c.claim_id: (c.paper, c.claim) for c in CLAIMS.values()}
"""Claim id -> (paper, the claim in one sentence), from `claim_table.CLAIMS`. Stages record verdicts under these ids."""

SAMPLE_TOO_SMALL = "sample too small"
"""Start of the reason of a verdict made inconclusive by the minimum sample size."""


@dataclass(frozen=True)
class Claim:
    """One claim's verdict from this run."""

    claim_id: str
    """Id from `PAPER_CLAIMS`, or a new id for a claim the project adds."""
    stage: str
    """Stage (notebook) that tested it."""
    text: str
    """The claim, and what was measured, in one or two sentences."""
    verdict: Label
    """One of `VERDICTS`: the stage's label, "inconclusive" when n is below the claim's minimum."""
    statistic: float | None
    """The point estimate the verdict rests on (difference, correlation, ratio...); None if undefined."""
    ci_low: float | None
    """Lower end of its 95 % CI; None if undefined."""
    ci_high: float | None
    """Upper end of its 95 % CI; None if undefined."""
    n: int
    """Sample size the statistic was computed from."""
    measure: str
    """What the statistic is, e.g. "mean paired difference, judge score (1-5)"."""
    profile: str
    """Parameter profile of the run that recorded it."""
    recorded_at: str
    """Local time it was recorded."""
    reason: str = ""
    """Why the verdict is what it is (the `Verdict.reason`, or the minimum-sample reason)."""
    stage_verdict: str = ""
    """The label the stage's rule gave, before the minimum-sample gate."""
    run_id: str = ""
    """Id of the run that recorded it (`provenance.current_run`); empty in records older than run ids."""
    params_sha256: str = ""
    """Hash of the stage's parameter values in that run."""
    models: tuple[str, ...] = ()
    """Identities of the models loaded in the kernel when it was recorded."""
    judge: str = ""
    """The judge (model identity or name) the claim rests on, when the stage named it; see `judge_validity`."""
    roles: tuple[str, ...] = ()
    """`ROLE: IDENTITY` of each model role filled in the kernel (`provenance.RunIdentity.roles`); empty in older
    records."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "roles", tuple(self.roles))

    def _repr_markdown_(self) -> str:
        ci = f" [{_fmt(self.ci_low)}, {_fmt(self.ci_high)}]" if self.ci_low is not None else ""
        measure = f" ({self.measure})" if self.measure else ""
        why = f" ({self.reason})" if self.reason else ""
        return (f"**Claim {self.claim_id}**: {self.text} Verdict: **{self.verdict}**{why}; statistic{measure} "
                f"{_fmt(self.statistic)}{ci}, n = {self.n}.")


def min_sample_gate(claim_id: str, verdict: Verdict) -> Verdict:
    """`verdict`, made "inconclusive" (statistic, CI and n kept) when its n is below the claim's `min_n`.

    Only "supported" / "not supported" are changed; a claim the table does not list has no minimum.
    """
    spec = CLAIMS.get(claim_id)
    if spec is None or verdict.label not in ("supported", "not supported") or verdict.n >= min_n(claim_id):
        return verdict
    return replace(verdict, label="inconclusive",
                   reason=f"{SAMPLE_TOO_SMALL}: n = {verdict.n} {spec.unit} < {min_n(claim_id)} (the stage's rule said "
                          f"{verdict.label}: {verdict.reason})")


def claims_path() -> Path:
    """The claims file of the current results folder."""
    return results_dir() / "claims.jsonl"


def claim_text(claim_id: str, verdict: Verdict) -> str:
    """The text `claim_id` is recorded with: its `ClaimSpec.text` (`untested_text` for a verdict "not testable here"
    when the spec has one) with the slots filled from `verdict`: `reason`, `Reason` (the reason with a capital), `n`
    and its `facts`; the claim's own sentence (`ClaimSpec.claim`) when the verdict carries no facts.

    A claim the table does not list, or a slot the facts do not fill, raises ValueError naming it.
    """
    spec = CLAIMS.get(claim_id)
    if spec is None:
        raise ValueError(f"claim {claim_id!r} is not in the claim table; declare its ClaimSpec beside the code that "
                         "decides it (`claims.declarations.register`) in a module of `claim_table.DECLARING_MODULES`")
    template = spec.untested_text if verdict.label == "not testable here" and spec.untested_text else spec.text
    if not verdict.facts or not template:
        return spec.claim
    slots = {"reason": verdict.reason, "Reason": verdict.reason[:1].upper() + verdict.reason[1:], "n": verdict.n,
             **verdict.facts}
    try:
        return template.format_map(slots).strip()
    except KeyError as e:
        raise ValueError(f"claim {claim_id}'s text needs the fact {e.args[0]!r}; the verdict has "
                         f"{sorted(verdict.facts)}") from None


def _claim(stage: str, claim_id: str, verdict: Verdict, judge: str) -> Claim:
    """The Claim record of `verdict` on `claim_id`, checked, gated (`min_sample_gate`) and stamped with the run."""
    if not isinstance(verdict, Verdict):
        raise TypeError(f"claim {claim_id}: verdict={verdict!r} is not a Verdict; build it with a rule of "
                        "llmcreativity.claims.verdicts (sign_verdict, weak_verdict, ...)")
    text = claim_text(claim_id, verdict)
    stat, low, high, n = record_interval(f"claim {claim_id}", ("statistic", "ci_low", "ci_high"), verdict.statistic,
                                         verdict.ci_low, verdict.ci_high, verdict.n)
    gated = min_sample_gate(claim_id, verdict)
    run = current_run()
    return Claim(claim_id, stage, text, gated.label, stat, low, high, n, verdict.measure, current_profile(),
                 time.strftime("%Y-%m-%d %H:%M:%S"), gated.reason, verdict.label, run.run_id, run.params_sha256,
                 run.models, judge.strip(), run.roles)


def record_claims(stage: str, verdicts: Mapping[str, Verdict], *, judge: str = "") -> pd.DataFrame:
    """Record (or replace) each claim id -> `Verdict` of one stage in `results_dir()/claims.jsonl`; one row per claim
    for display (claim, verdict, statistic, low, high, n, reason).

    The text comes from the claim table (`claim_text`); the statistic, its CI, n and measure from the `Verdict`
    (NaN statistics are stored as null). A verdict with n below the claim's minimum becomes "inconclusive"
    (`min_sample_gate`). Each record carries the run (`provenance.current_run`) and `judge`, the judge the claims
    rest on when the stage names it (the page then gates them on that judge's agreement with humans alone, see
    `judge_validity.judges_for`). A claim is keyed by (claim id, judge): its verdict under a named judge (the judge
    laboratory's) stands beside the one under the stage's own judges (judge ""; every record made before judges were
    named reads so), and recording either again replaces only it. Every verdict is checked before anything is
    written; the file is rewritten atomically (`jsonl.upsert`), so a killed run leaves the old or the new version and
    recording a claim twice keeps one line. Under smoke (`paths.records_claims()` is False) nothing is written.
    """
    if not stage.strip() or not all(str(c).strip() for c in verdicts):
        raise ValueError("record_claims needs a non-empty stage and claim ids")
    claims = [_claim(stage, claim_id, verdict, judge) for claim_id, verdict in verdicts.items()]
    if records_claims():
        upsert(claims_path(), claims, key=lambda c: (c.claim_id, c.judge), what="claim")
    return pd.DataFrame([{"claim": c.claim_id, "verdict": c.verdict, "statistic": c.statistic, "low": c.ci_low,
                          "high": c.ci_high, "n": c.n, "reason": c.reason} for c in claims])


def read_claims(path: Path | None = None) -> list[Claim]:
    """Recorded claims in recording order; a malformed line raises naming the file and line."""
    return read_records(claims_path() if path is None else path, Claim, "claim")


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.3g}"
