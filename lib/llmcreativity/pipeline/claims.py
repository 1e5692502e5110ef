"""The papers' claims and the verdicts this run's data supports, for the book's claims page.

Each stage records one `Verdict` (from `llmcreativity.verdicts`) per claim it tests with
`record_claim` or `record_claims`; records go to `results_dir()/claims.jsonl`, one JSON object
per line, replaced (not duplicated) when the same claim id is recorded again. Every record carries
the run it came from (`provenance.current_run`: run id, profile, parameter hash, models), so the
page can tell a claim of the latest run of its stage from a stale one (`ledger.stale_reason`).
A verdict whose n is below the claim's minimum sample size (`claim_table.CLAIMS`) is recorded as
"inconclusive" with the reason "sample too small", the stage's statistic and CI kept. Under a
scratch profile (smoke) nothing is written: its numbers are no evidence. The claims page itself
is built by `ledger.claims_markdown`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from ..jsonl import read_records, record_number, rewrite_jsonl
from ..paths import current_profile, is_scratch, results_dir
from ..verdicts import LABELS, Label, Verdict
from .claim_table import CLAIMS
from .provenance import current_run

VERDICTS = LABELS
"""Allowed verdict labels (`llmcreativity.verdicts.LABELS`)."""

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
    if spec is None or verdict.label not in ("supported", "not supported") or verdict.n >= spec.min_n:
        return verdict
    return replace(verdict, label="inconclusive",
                   reason=f"{SAMPLE_TOO_SMALL}: n = {verdict.n} {spec.unit} < {spec.min_n} (the stage's rule said "
                          f"{verdict.label}: {verdict.reason})")


def claims_path() -> Path:
    """The claims file of the current results folder."""
    return results_dir() / "claims.jsonl"


def record_claim(stage: str, claim_id: str, text: str, verdict: Verdict, *, judge: str = "") -> Claim:
    """Record (or replace) `verdict` on `claim_id` in `results_dir()/claims.jsonl` and return the Claim.

    The statistic, its CI, n and measure come from the `Verdict`; NaN statistics are stored as null. A
    verdict with n below the claim's minimum becomes "inconclusive" (`min_sample_gate`). The record carries
    the run (`provenance.current_run`) and `judge`, the judge the claim rests on when the stage names it
    (the page then gates it on that judge's agreement with humans alone, see `judge_validity.judges_for`).
    The file is rewritten atomically, so a killed run leaves either the old or the new version, and
    recording a claim twice keeps one line. Under a scratch profile (`paths.is_scratch()`, e.g. smoke)
    the Claim is returned and nothing is written.
    """
    if not claim_id.strip() or not stage.strip() or not text.strip():
        raise ValueError("record_claim needs a non-empty stage, claim_id and text")
    if not isinstance(verdict, Verdict):
        raise TypeError(f"claim {claim_id}: verdict={verdict!r} is not a Verdict; build it with a rule of "
                        "llmcreativity.verdicts (sign_verdict, weak_verdict, ...)")
    stat, low, high = (record_number(v, f"claim {claim_id}: {k}") for v, k in ((verdict.statistic, "statistic"),
                                                              (verdict.ci_low, "ci_low"), (verdict.ci_high, "ci_high")))
    if low is not None and high is not None and low > high:
        raise ValueError(f"claim {claim_id}: ci_low={low} exceeds ci_high={high}; pass the interval in order")
    n = verdict.n
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"claim {claim_id}: n={n!r} must be a non-negative int (the sample size)")
    gated = min_sample_gate(claim_id, verdict)
    run = current_run()
    claim = Claim(claim_id, stage, text.strip(), gated.label, stat, low, high, n, verdict.measure,
                  current_profile(), time.strftime("%Y-%m-%d %H:%M:%S"), gated.reason, verdict.label, run.run_id,
                  run.params_sha256, run.models, judge.strip(), run.roles)
    if is_scratch():
        return claim
    kept = [c for c in read_claims() if c.claim_id != claim_id] + [claim]
    rewrite_jsonl(claims_path(), [asdict(c) for c in kept])
    return claim


def record_claims(stage: str, claims: dict[str, tuple[str, Verdict]], *, judge: str = "") -> pd.DataFrame:
    """`record_claim` for each claim id -> (text, verdict) of one stage; one row per claim for display.

    The table shows claim, verdict, statistic, low, high, n and reason (nothing is written under a scratch profile).
    """
    rows = []
    for claim_id, (text, verdict) in claims.items():
        c = record_claim(stage, claim_id, text, verdict, judge=judge)
        rows.append({"claim": claim_id, "verdict": c.verdict, "statistic": c.statistic, "low": c.ci_low,
                     "high": c.ci_high, "n": c.n, "reason": c.reason})
    return pd.DataFrame(rows)


def read_claims(path: Path | None = None) -> list[Claim]:
    """Recorded claims in recording order; a malformed line raises naming the file and line."""
    return read_records(claims_path() if path is None else path, Claim, "claim")


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.3g}"
