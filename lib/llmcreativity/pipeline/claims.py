"""The papers' claims and the verdicts this run's data supports, for the book's claims page.

Each stage records one `Verdict` (from `llmcreativity.verdicts`) per claim it tests with
`record_claim` or `record_claims`; records go to `results_dir()/claims.jsonl`, one JSON object
per line, replaced (not duplicated) when the same
claim id is recorded again. The claims page lists every claim in `PAPER_CLAIMS` (marked "not
run" until a stage records it), then any other claim a stage recorded. Under a scratch profile
(smoke) nothing is written: its numbers are no evidence.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from ..paths import current_profile, is_scratch, results_dir
from ..verdicts import LABELS, Label, Verdict

VERDICTS = LABELS
"""Allowed verdict labels (`llmcreativity.verdicts.LABELS`)."""

PAPER_CLAIMS: dict[str, tuple[str, str]] = {
    "A1": ("LLM Review", "LLM Review beats every baseline framework on the LLM judge's creativity dimensions."),
    "A2": ("LLM Review", "LLM Review beats every baseline framework on the four rule-based novelty metrics "
                         "(surprisal, KL divergence, semantic novelty, volume gain)."),
    "A3": ("LLM Review", "A small model writing with LLM Review beats a larger model writing as a single agent."),
    "A4": ("LLM Review", "Interaction homogenizes stories: Debate and Discussion converge over "
                         "rounds, Review does not."),
    "A5": ("LLM Review", "The rubric LLM judge agrees with human consensus scores."),
    "B1": ("Automated creativity evaluation", "Semantic entropy rises with sampling temperature."),
    "B2": ("Automated creativity evaluation", "Semantic entropy does not grow with model scale."),
    "B3": ("Automated creativity evaluation", "Semantic entropy correlates positively with the number of "
                                              "semantic clusters."),
    "B4": ("Automated creativity evaluation", "Semantic entropy correlates negatively with the similarity "
                                              "of the candidates."),
    "B5": ("Automated creativity evaluation", "The retrieval-based multi-agent judge matches or beats ChatEval's "
                                              "accuracy with about 63 % fewer tokens."),
    "B6": ("Automated creativity evaluation", "Divergent (semantic entropy) and convergent (judge) scores "
                                              "correlate only weakly."),
    "B7": ("Automated creativity evaluation", "Semantic entropy agrees with human diversity judgements better than "
                                              "cosine similarity, Distinct-1/2 and Self-BLEU."),
    "B8": ("Automated creativity evaluation", "Solution-level semantic entropy correlates with an LLM judgement of "
                                              "novelty."),
    "B9": ("Automated creativity evaluation", "The retrieval-based judge reaches human-level accuracy and beats "
                                              "ChatEval, single-call and chain-of-thought judges."),
    "B10": ("Automated creativity evaluation", "The judge's accuracy collapses with a weaker base model."),
    "B11": ("Automated creativity evaluation", "Convergent scores rise with model scale while divergent ones do not."),
}
"""Claim id -> (paper, the claim in one sentence). Stages record verdicts under these ids."""


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
    """One of `VERDICTS`: the `Verdict.label` it was recorded from."""
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

    def _repr_markdown_(self) -> str:
        ci = f" [{_fmt(self.ci_low)}, {_fmt(self.ci_high)}]" if self.ci_low is not None else ""
        measure = f" ({self.measure})" if self.measure else ""
        return (f"**Claim {self.claim_id}**: {self.text} Verdict: **{self.verdict}**; statistic{measure} "
                f"{_fmt(self.statistic)}{ci}, n = {self.n}.")


def claims_path() -> Path:
    """The claims file of the current results folder."""
    return results_dir() / "claims.jsonl"


def _number(value: float | None, name: str, claim_id: str) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"claim {claim_id}: {name}={value!r} is not a number; pass a float or None") from None
    return None if math.isnan(value) else value


def record_claim(stage: str, claim_id: str, text: str, verdict: Verdict) -> Claim:
    """Record (or replace) `verdict` on `claim_id` in `results_dir()/claims.jsonl` and return the Claim.

    The statistic, its CI, n and measure come from the `Verdict`; NaN statistics are stored as null.
    The file is rewritten atomically, so a killed run leaves either the old or the new version, and
    recording a claim twice keeps one line. Under a scratch profile (`paths.is_scratch()`, e.g. smoke)
    the Claim is returned and nothing is written.
    """
    if not claim_id.strip() or not stage.strip() or not text.strip():
        raise ValueError("record_claim needs a non-empty stage, claim_id and text")
    if not isinstance(verdict, Verdict):
        raise TypeError(f"claim {claim_id}: verdict={verdict!r} is not a Verdict; build it with a rule of "
                        "llmcreativity.verdicts (sign_verdict, weak_verdict, ...)")
    stat, low, high = (_number(v, k, claim_id) for v, k in ((verdict.statistic, "statistic"),
                                                              (verdict.ci_low, "ci_low"), (verdict.ci_high, "ci_high")))
    if low is not None and high is not None and low > high:
        raise ValueError(f"claim {claim_id}: ci_low={low} exceeds ci_high={high}; pass the interval in order")
    n = verdict.n
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"claim {claim_id}: n={n!r} must be a non-negative int (the sample size)")
    claim = Claim(claim_id, stage, text.strip(), verdict.label, stat, low, high, n, verdict.measure,
                  current_profile(), time.strftime("%Y-%m-%d %H:%M:%S"))
    if is_scratch():
        return claim
    kept = [c for c in read_claims() if c.claim_id != claim_id] + [claim]
    path = claims_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(json.dumps(asdict(c), sort_keys=True) + "\n" for c in kept))
    os.replace(tmp, path)
    return claim


def record_claims(stage: str, claims: dict[str, tuple[str, Verdict]]) -> pd.DataFrame:
    """`record_claim` for each claim id -> (text, verdict) of one stage; one row per claim for display.

    The table shows claim, verdict, statistic, low, high, n and reason (nothing is written under a scratch profile).
    """
    rows = []
    for claim_id, (text, verdict) in claims.items():
        c = record_claim(stage, claim_id, text, verdict)
        rows.append({"claim": claim_id, "verdict": c.verdict, "statistic": c.statistic, "low": c.ci_low,
                     "high": c.ci_high, "n": c.n, "reason": verdict.reason})
    return pd.DataFrame(rows)


def read_claims(path: Path | None = None) -> list[Claim]:
    """Recorded claims in recording order; a malformed line raises naming the file and line."""
    path = claims_path() if path is None else path
    if not path.exists():
        return []
    claims = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            claims.append(Claim(**json.loads(line)))
        except (json.JSONDecodeError, TypeError) as e:
            raise ValueError(f"{path} line {i} is not a claim record ({e}); "
                             "delete the line and re-run its stage") from e
    return claims


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.3g}"


def claims_markdown(claims: list[Claim]) -> str:
    """A Markdown table: every paper claim (in `PAPER_CLAIMS` order) then any other recorded claim."""
    by_id = {c.claim_id: c for c in claims}
    rows = ["| id | paper | claim | verdict | statistic | 95 % CI | n | stage | profile |",
            "|---|---|---|---|---|---|---|---|---|"]
    extra = [c for c in claims if c.claim_id not in PAPER_CLAIMS]
    for claim_id in list(PAPER_CLAIMS) + [c.claim_id for c in extra]:
        paper, default_text = PAPER_CLAIMS.get(claim_id, ("this project", ""))
        c = by_id.get(claim_id)
        if c is None:
            rows.append(f"| {claim_id} | {paper} | {default_text} | not run | | | | | |")
            continue
        text = c.text + (f" *Statistic: {c.measure}.*" if c.measure else "")
        ci = f"[{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]" if c.ci_low is not None or c.ci_high is not None else ""
        rows.append(f"| {claim_id} | {paper} | {text.replace('|', '/')} | **{c.verdict}** | {_fmt(c.statistic)} "
                    f"| {ci} | {c.n} | {c.stage} | {c.profile} |")
    return "\n".join(rows)
