"""What a claim of either paper is: its spec (`ClaimSpec`: the claim, the paper's own figure, the smallest sample
that can test it, the judge it rests on, and why it cannot be tested here when it cannot), what kind of statement
it is (`ClaimKind`) and the judge it rests on (`JudgeKind`). The shared vocabulary of every domain that declares a
claim: each declares the claims it computes beside the code that computes them (`registry.register`), and the
pipeline reads them all, in page order (`pipeline.claim_table.CLAIMS`).

The claims page lists every declared claim whether or not a stage recorded it. The minimum sample size
`min_n` is in the claim's `unit` (the unit the stage's bootstrap resamples and its `Verdict.n` counts):
a verdict with n < min_n is "inconclusive: sample too small" (`claims.record_claims`). The papers'
figures are quoted as the papers report them; where a paper states the finding only in words, the
figure is that statement, marked "(qualitative)". No figure in a declaration is computed by this project.

Each declaration says what kind of statement it is (`ClaimKind`): a result the paper reports, or a check this
project adds (a paper's motivation or procedure, tested here because the claims rest on it), the estimator that
decides it in this project, and the text a run records it with (`ClaimSpec.text`: what the run measured, its
slots filled from the stage's `Verdict`, see `claims.claim_text`). The claim's words and its minimum sample live
in its declaration alone: the stages' claim functions return a `Verdict` with the run's facts, never a text or a
minimum, and read a minimum they decide on through `registry.min_n`. A claim the published run's pre-registration
(`published/preregistration`) sized carries the minimum it registered (`preregistration.deviations` lists any
difference on the claims page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .sizing import Target

JudgeKind = Literal["rubric", "convergent", "entailment", "none"]
"""Which LLM judge a claim's statistic rests on: the rubric story judge (validated by Spearman rho against
HANNA's human ratings), the convergent MacGyver judges (Cohen's kappa against MacGyver's labels), the
entailment judge that clusters for semantic entropy (ARI against MuseScorer's coders), or none."""

ClaimKind = Literal["paper claim", "project check"]
"""A "paper claim" is an empirical result a paper reports; a "project check" is a statement the paper makes as
motivation or procedure that this project tests because its claims rest on it (A4, A5)."""

PAPER_A = "LLM Review"
"""The paper of claims A1-A5 and A6, declared for a later registration (`ClaimSpec.paper`)."""
PAPER_B = "Automated creativity evaluation"
"""The paper of claims B1-B15 and B16, declared for a later registration (`ClaimSpec.paper`)."""


@dataclass(frozen=True)
class ClaimSpec:
    """One claim of one paper, as the ledger shows it."""

    claim_id: str
    """Short id (A1..., B1...); stages record verdicts under it."""
    paper: str
    """`PAPER_A` or `PAPER_B`."""
    claim: str
    """The claim in one sentence."""
    short: str
    """The claim in a few words, for the compact table."""
    paper_figure: str
    """The paper's own figure for it, as the paper reports it, or its qualitative statement."""
    paper_value: float | None
    """The paper's headline number, for the forest plot; None when the paper gives none."""
    paper_scale: str
    """A word that a recorded `measure` contains when its statistic is on the paper's scale ("saving",
    "accuracy", "kappa"); the plot marks `paper_value` only then. Empty when `paper_value` is None."""
    min_n: int
    """Smallest sample (in `unit`) below which a verdict is "inconclusive: sample too small"."""
    unit: str
    """What n counts: "prompts", "problems", "items", ..."""
    judge: JudgeKind
    """The LLM judge the statistic rests on."""
    gated: bool = True
    """False for a claim that *is* a measurement of its judge against humans: it carries the judge's agreement
    but is not replaced by "judge not validated" (its own verdict already says it)."""
    not_testable: str = ""
    """Why this project cannot test the claim at all (empty when it can); the page shows "not testable here" with
    it even when no stage records the claim."""
    kind: ClaimKind = "paper claim"
    """Whether the paper reports it as a result or the project checks it (`ClaimKind`)."""
    estimator: str = ""
    """The statistic and rule that decide the claim in this project, as its stage computes them (empty when it is
    not testable here)."""
    stand_in: str = ""
    """When the project measures something else than the paper did: what it measures instead, and why. The paper's
    figure is then never drawn beside the project's statistic (`ledger.paper_mark`)."""
    text: str = ""
    """The text a run records the claim with: what it measured and found, a `str.format` template whose slots are the
    verdict's `reason`, `Reason` (the reason with a capital), `n` and its `facts` (`claims.claim_text`). Empty for a
    claim not testable here, which no stage records."""
    untested_text: str = ""
    """The text of a verdict "not testable here" when it differs from `text` (same slots); empty: `text`."""
    target: Target | None = None
    """How the pre-registration sizes it from a pilot: its per-unit quantity, precision, reason, pilot reader and
    sample-size functions; None for a claim not testable here."""
    later: str = ""
    """Why the claim waits for a later registration; empty for a claim of the recorded runs. A statement of a paper
    this project could test but no stage of the recorded runs decides: no registration sized it before their
    sittings. `declarations.register` keeps it apart (`declarations.later`, `pipeline.claim_table.LATER`): the claims
    page shows it in its own group, out of every count and verdict table, and no registration's terms hold it."""
