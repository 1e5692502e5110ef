"""Every empirical claim of the two papers, in one table: the claim, the paper's own figure, the smallest
sample that can test it, the judge it rests on, and why it cannot be tested here when it cannot.

The claims page lists every row of `CLAIMS` whether or not a stage recorded it. The minimum sample size
`min_n` is in the claim's `unit` (the unit the stage's bootstrap resamples and its `Verdict.n` counts):
a verdict with n < min_n is "inconclusive: sample too small" (`claims.record_claim`). The papers'
figures are quoted as the papers report them; where a paper states the finding only in words, the
figure is that statement, marked "(qualitative)". No figure here is computed by this project.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

JudgeKind = Literal["rubric", "convergent", "entailment", "none"]
"""Which LLM judge a claim's statistic rests on: the rubric story judge (validated by Spearman rho against
HANNA's human ratings), the convergent MacGyver judges (Cohen's kappa against MacGyver's labels), the
entailment judge that clusters for semantic entropy (ARI against MuseScorer's coders), or none."""

PAPER_A = "LLM Review"
PAPER_B = "Automated creativity evaluation"


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
    """Why this project cannot test the claim at all (empty when it can)."""


CLAIMS: dict[str, ClaimSpec] = {c.claim_id: c for c in [
    ClaimSpec("A1", PAPER_A, "LLM Review beats every baseline framework on the LLM judge's creativity dimensions.",
              "Review > every baseline, judge scores",
              "Review consistently outperforms the multi-agent baselines (abstract, qualitative)", None, "",
              5, "prompts", "rubric"),
    ClaimSpec("A2", PAPER_A, "LLM Review beats every baseline framework on the four rule-based novelty metrics "
              "(surprisal, KL divergence, semantic novelty, volume gain).",
              "Review > every baseline, novelty metrics",
              "Review scores highest on the rule-based novelty metrics (qualitative)", None, "", 5, "prompts", "none"),
    ClaimSpec("A3", PAPER_A, "A small model writing with LLM Review beats a larger model writing as a single agent.",
              "small + Review > larger single agent",
              "smaller models with Review can surpass larger single agents (abstract, qualitative)", None, "",
              5, "prompts", "rubric"),
    ClaimSpec("A4", PAPER_A, "Interaction homogenizes stories: Debate and Discussion converge over rounds, Review "
              "does not.", "Debate/Discussion converge, Review not",
              "interaction induces homogenization; blind review keeps trajectories divergent (abstract, qualitative)",
              None, "", 5, "prompts", "none"),
    ClaimSpec("A5", PAPER_A, "The rubric LLM judge agrees with human consensus scores.", "rubric judge ~ humans",
              "the judge's scores agree with human consensus ratings (qualitative)", None, "", 30, "stories", "rubric",
              gated=False),
    ClaimSpec("B1", PAPER_B, "Semantic entropy rises with sampling temperature.", "SE rises with temperature",
              "SE increases with temperature (qualitative)", None, "", 5, "problems", "entailment"),
    ClaimSpec("B2", PAPER_B, "Semantic entropy does not grow with model scale.", "SE not monotone in scale",
              "SE is not monotone in model size (qualitative)", None, "", 5, "problems", "entailment"),
    ClaimSpec("B3", PAPER_B, "Semantic entropy correlates positively with the number of semantic clusters.",
              "SE ~ number of clusters (+)", "positive correlation (qualitative)", None, "", 5, "problems",
              "entailment"),
    ClaimSpec("B4", PAPER_B, "Semantic entropy correlates negatively with the similarity of the candidates.",
              "SE ~ candidate similarity (-)", "negative correlation (qualitative)", None, "", 5, "problems",
              "entailment"),
    ClaimSpec("B5", PAPER_B, "The retrieval-based multi-agent judge matches or beats ChatEval's accuracy with about "
              "63 % fewer tokens.", "retrieval judge: ~63 % fewer tokens",
              "about 63 % fewer tokens than ChatEval", 0.63, "saving", 30, "items", "convergent"),
    ClaimSpec("B6", PAPER_B, "Divergent (semantic entropy) and convergent (judge) scores correlate only weakly.",
              "divergent ~ convergent only weakly", "weak correlation (qualitative)", None, "", 5, "problems",
              "convergent"),
    ClaimSpec("B7", PAPER_B, "Semantic entropy agrees with human diversity judgements better than cosine "
              "similarity, Distinct-1/2 and Self-BLEU.", "SE ~ human diversity, beats baselines",
              "kappa 0.56 vs 0.49 (cosine), 0.37 / 0.34 (Distinct-1/2), 0.35 (Self-BLEU)", 0.56, "kappa", 30, "items",
              "entailment"),
    ClaimSpec("B8", PAPER_B, "Solution-level semantic entropy correlates with an LLM judgement of novelty.",
              "solution SE ~ LLM novelty", "positive correlation with the LLM novelty judgement (qualitative)",
              None, "", 5, "problems", "entailment"),
    ClaimSpec("B9", PAPER_B, "The retrieval-based judge reaches human-level accuracy and beats ChatEval, single-call "
              "and chain-of-thought judges.", "retrieval judge accuracy, beats others",
              "84.7 % vs 76.7 % (ChatEval), 67.3 % / 64.7 % (single-call / CoT); plotted: the smallest gap, "
              "+0.08 over ChatEval", 0.08, "paired difference", 30, "items",
              "convergent", gated=False),
    ClaimSpec("B10", PAPER_B, "The judge's accuracy collapses with a weaker base model.",
              "weaker base model: accuracy collapses",
              "55.3 % with GPT-4o-mini (vs 84.7 %); plotted: the difference, 0.294", 0.294, "accuracy difference",
              30, "items", "convergent", gated=False),
    ClaimSpec("B11", PAPER_B, "Convergent scores rise with model scale while divergent ones do not.",
              "convergent rises with scale, divergent not", "convergent scores rise with model size (qualitative)",
              None, "", 5, "problems", "convergent"),
]}
"""Claim id -> its spec, in page order."""


def spec(claim_id: str) -> ClaimSpec | None:
    """The spec of a paper claim, or None for a claim the project adds."""
    return CLAIMS.get(claim_id)
