"""Every empirical claim of the two papers, in one table: the claim, the paper's own figure, the smallest
sample that can test it, the judge it rests on, and why it cannot be tested here when it cannot.

The claims page lists every row of `CLAIMS` whether or not a stage recorded it. The minimum sample size
`min_n` is in the claim's `unit` (the unit the stage's bootstrap resamples and its `Verdict.n` counts):
a verdict with n < min_n is "inconclusive: sample too small" (`claims.record_claims`). The papers'
figures are quoted as the papers report them; where a paper states the finding only in words, the
figure is that statement, marked "(qualitative)". No figure here is computed by this project.

Each row says what kind of statement it is (`ClaimKind`): a result the paper reports, or a check this project
adds (a paper's motivation or procedure, tested here because the claims rest on it), the estimator that
decides it in this project, and the text a run records it with (`ClaimSpec.text`: what the run measured, its
slots filled from the stage's `Verdict`, see `claims.claim_text`). The claim's words and its minimum sample live
here alone: the stages' claim functions return a `Verdict` with the run's facts, never a text or a minimum, and
read a minimum they decide on from here. A claim the published run's pre-registration (`published/preregistration`)
sized carries the minimum it registered (`preregistration.deviations` lists any difference on the claims page).
`REFERENCE_FIGURES` holds the paper's reference numbers that are not claims (the single agent's scores), which the
evaluation chapter sets beside this run's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from .. import paths
from .registration import REGISTRATION_JSON, registered_min_n

JudgeKind = Literal["rubric", "convergent", "entailment", "none"]
"""Which LLM judge a claim's statistic rests on: the rubric story judge (validated by Spearman rho against
HANNA's human ratings), the convergent MacGyver judges (Cohen's kappa against MacGyver's labels), the
entailment judge that clusters for semantic entropy (ARI against MuseScorer's coders), or none."""

ClaimKind = Literal["paper claim", "project check"]
"""A "paper claim" is an empirical result a paper reports; a "project check" is a statement the paper makes as
motivation or procedure that this project tests because its claims rest on it (A4, A5)."""

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


CLAIMS: dict[str, ClaimSpec] = {c.claim_id: c for c in [
    ClaimSpec("A1", PAPER_A, "LLM Review beats every baseline framework on the LLM judge's creativity dimensions.",
              "Review > every baseline, judge scores",
              "Review consistently outperforms the multi-agent baselines (abstract, qualitative)", None, "",
              5, "prompts", "rubric",
              estimator="per prompt and rubric dimension, Review's score minus each baseline's (the judge's sampled "
                        "mean of `repeats` scores); bootstrap 95 % CI over prompts, paired t-test Holm-adjusted over "
                        "every dimension x baseline; supported when all are significantly positive "
                        "(`beats_every_baseline`); statistic: the weakest comparison",
              text="Review beats every baseline on the five rubric dimensions (judge {judge}, {estimator}; writer "
                   "{writer_model}). {Reason}."),
    ClaimSpec("A2", PAPER_A, "LLM Review beats every baseline framework on the four rule-based novelty metrics "
              "(surprisal, KL divergence, semantic novelty, volume gain).",
              "Review > every baseline, novelty metrics",
              "Review scores highest on the rule-based novelty metrics (qualitative)", None, "", 14, "prompts", "none",
              estimator="per prompt and metric, Review's value minus each baseline's on surprisal, lexical KL (the "
                        "paper's whole-story KL in the paper profile, the windowed KL otherwise: the evaluation "
                        "chapter's `a2_kl`), semantic novelty and volume gain; bootstrap CI over prompts, paired "
                        "t-test Holm-adjusted over every metric x baseline (`beats_every_baseline`)",
              text="Review beats every baseline on surprisal, lexical KL ({kl}), semantic novelty and volume gain "
                   "(writer {writer_model}). {Reason}."),
    ClaimSpec("A3", PAPER_A, "A small model writing with LLM Review beats a larger model writing as a single agent.",
              "small + Review > larger single agent",
              "smaller models with Review can surpass larger single agents (abstract, qualitative)", None, "",
              5, "prompts", "rubric",
              estimator="per prompt, Review's mean judge score (sampled mean, five dimensions) minus the larger "
                        "Single Agent's; bootstrap CI over prompts, paired t-test (`beats_every_baseline`); not "
                        "testable when the 'larger' model is not larger or the judge wrote a story",
              text="Review with {writer_model} beats a Single Agent with {large_model} on the judge's mean score "
                   "(judge {judge}, {estimator}). {Reason}."),
    ClaimSpec("A4", PAPER_A, "Interaction homogenizes stories: Debate and Discussion converge over rounds, Review "
              "does not.", "Debate/Discussion converge, Review not",
              "interaction induces homogenization; blind review keeps trajectories divergent (abstract, qualitative)",
              None, "", 10, "prompts", "none", kind="project check",
              estimator="convergence Delta = homogenization (mean pairwise cosine, Self-BLEU of the writers' latest "
                        "stories) at the last round minus round 0, per prompt: Debate's and Discussion's mean Delta "
                        "above 0 (bootstrap CI over prompts) and Review's Delta paired below each (Holm); every part "
                        "must hold (`a4_verdict`)",
              text="Debate and Discussion stories converge from the drafts to the last round while Review's converge "
                   "less (homogenization by {measures}, paired by prompt). {Reason}.",
              untested_text="Debate and Discussion stories converge from the drafts to the last round while Review's "
                            "converge less (homogenization by {measures}, paired by prompt). Not testable here: "
                            "{reason}."),
    ClaimSpec("A5", PAPER_A, "The rubric LLM judge agrees with human consensus scores.", "rubric judge ~ humans",
              "the judge's scores agree with human consensus ratings (qualitative)", None, "", 44, "stories", "rubric",
              gated=False, kind="project check",
              stand_in="HANNA's human ratings of its own stories (3 raters x 6 criteria), standing in for the paper's "
                       "human check, in which 9 annotators scored SciFi-100 stories on its 5 dimensions",
              estimator="Spearman rho(judge mean score, mean human rating over 3 raters x 6 criteria) on HANNA's "
                        "stories, bootstrap 95 % CI over stories; supported when the CI lies above 0 "
                        "(`sign_verdict`); the gate of the rubric judge for A1 and A3",
              text="The rubric judge {judge} ({estimator}) ranks HANNA's human stories like the human raters' "
                   "consensus. {Reason}."),
    ClaimSpec("B1", PAPER_B, "Semantic entropy rises with sampling temperature.", "SE rises with temperature",
              "SE increases with temperature (qualitative)", None, "", 5, "problems", "entailment",
              estimator="Spearman rho(temperature, per-chain probability-weighted SE), cluster-bootstrap 95 % CI over "
                        "problems; supported when the CI lies above 0 (`sign_verdict`)",
              text="SE rises with sampling temperature ({who})."),
    ClaimSpec("B2", PAPER_B, "Semantic entropy does not grow with model scale.", "SE not monotone in scale",
              "SE is not monotone in model size (qualitative)", None, "", 5, "problems", "entailment",
              estimator="Spearman rho(model parameters, per-chain probability-weighted SE), cluster-bootstrap CI over "
                        "problems; supported when the CI lies at or below 0 (`sign_verdict`, expected 0)",
              text="SE does not grow with model size ({who}; the models are not one family)."),
    ClaimSpec("B3", PAPER_B, "Semantic entropy correlates strongly and positively with the number of semantic "
              "clusters.", "SE ~ number of clusters (strong +)", "strong positive correlation (qualitative)", None, "",
              5, "problems", "entailment",
              estimator="Spearman rho(number of clusters, per-step probability-weighted SE), cluster-bootstrap CI "
                        "over problems; supported when the CI lies above 0 (`sign_verdict`; the sign, not the "
                        "strength, is tested)",
              text="SE correlates positively with the number of clusters ({who})."),
    ClaimSpec("B4", PAPER_B, "Semantic entropy correlates negatively with the similarity of the candidates.",
              "SE ~ candidate similarity (-)", "negative correlation (qualitative)", None, "", 5, "problems",
              "entailment",
              estimator="Spearman rho(mean pairwise cosine of the candidates, per-step probability-weighted SE), "
                        "cluster-bootstrap CI over problems; supported when the CI lies below 0 (`sign_verdict`)",
              text="SE correlates negatively with candidate similarity ({who})."),
    ClaimSpec("B5", PAPER_B, "The retrieval-based multi-agent judge matches or beats ChatEval's accuracy with far "
              "fewer tokens.", "retrieval judge: ~63 % fewer tokens",
              "token cost cut by about 63 % against ChatEval (the authors' README); over 60 % improved efficiency "
              "(abstract)",
              0.63, "saving", 30, "items", "convergent",
              estimator="token saving 1 - sum t_retrieval / sum t_ChatEval and accuracy difference on the same items, "
                        "paired bootstrap over items; supported when the saving's CI lies above 50 % and the accuracy "
                        "difference's above -5 points (`efficiency_verdict`)",
              text="{judge} vs {baseline} on {n} labelled items, judge model {judge_model}, matched rounds and reply "
                   "length: token saving {saving:.0%} [{saving_low:.0%}, {saving_high:.0%}]{no_stop}, accuracy "
                   "difference {accuracy:+.2f} [{accuracy_low:+.2f}, {accuracy_high:+.2f}]; {reason}."),
    ClaimSpec("B6", PAPER_B, "Divergent (semantic entropy) and convergent (judge) scores correlate only weakly.",
              "divergent ~ convergent only weakly", "weak correlation (qualitative)", None, "", 5, "problems",
              "convergent",
              estimator="per domain, Spearman rho(chain SE, the judge's p_valid of the chain's own solution), "
                        "bootstrap CI over problems; weak when the CI lies inside (-0.3, 0.3) (`weak_verdict`); "
                        "every domain must hold",
              text="Per domain, each chain's {se_column} vs the {judge_name} judge's probability that the chain's own "
                   "solution is valid ({judge_model}; problems resampled): {per_domain}."),
    ClaimSpec("B7", PAPER_B, "Semantic entropy agrees with human diversity judgements better than cosine "
              "similarity, Distinct-1/2 and Self-BLEU.", "SE ~ human diversity, beats baselines",
              "Cohen's kappa with human labels (three annotators, 50 MacGyver problems): 0.56 vs 0.49 (cosine), "
              "0.37 / 0.34 (Distinct-1/2), 0.35 (Self-BLEU)", 0.56, "kappa", 30, "items",
              "entailment",
              estimator="Spearman rho of each measure with the coders' bucket entropy over disjoint sets of "
                        "MuseScorer ideas; SE's rho minus each baseline's, paired bootstrap over sets, Holm over the "
                        "four baselines (`beats_every_baseline`)",
              stand_in="a stand-in: Spearman rho against MuseScorer's two coders' 'same idea' groupings, not Cohen's "
                       "kappa against the paper's annotators, whose labels are not available and whose binarisation "
                       "the paper does not describe; the two statistics are not on one scale, so the paper's kappa "
                       "is not plotted",
              text="Over {sets} disjoint sets of {set_size} MuseScorer ideas (round {round}), Spearman rho with the "
                   "coders' bucket entropy: SE ({judge}) vs {embedder} cosine, Distinct-1/2, Self-BLEU (a stand-in "
                   "for the paper's Cohen's kappa against its annotators)."),
    ClaimSpec("B8", PAPER_B, "Solution-level semantic entropy correlates with an LLM judgement of novelty.",
              "solution SE ~ LLM novelty", "positive correlation with the LLM novelty judgement (qualitative)",
              None, "", 5, "problems", "entailment",
              estimator="Spearman rho(solution-level SE = the chain's mean step SE, the novelty judge's expected "
                        "1-5 rating), bootstrap CI over problems; supported when the CI lies above 0 "
                        "(`sign_verdict`)",
              text="Over {chains} chains ({domains}; {problems} problems), the chain's mean {se_column} vs "
                   "{judge_model}'s expected 1-5 novelty rating of the chain's own solution."),
    ClaimSpec("B9", PAPER_B, "The retrieval-based judge reaches human-level accuracy and beats ChatEval, single-call "
              "and chain-of-thought judges.", "retrieval judge accuracy, beats others",
              "84.7 % (retrieval) vs 76.7 % (ChatEval), 64.7 % (one-shot), 67.3 % (CoT); human annotators "
              "80.0-84.7 %; plotted: the smallest gap, +0.08 over ChatEval", 0.08, "paired difference", 30, "items",
              "convergent", gated=False,
              estimator="paired accuracy difference against ChatEval, one-shot and CoT on the same items (bootstrap "
                        "CI over items), exact McNemar test, Holm over the three; and the judge's accuracy (Wilson "
                        "95 % CI) at or above the annotators' 80.0 %; both must hold (`accuracy_claim`)",
              text="{reference} ({judge_model}) on {items} labelled items: accuracy {accuracy:.0%} vs {baselines}; "
                   "Cohen's kappa with the human labels {kappa:.2f}. Human-level: accuracy {level:.0%} "
                   "[{level_low:.0%}, {level_high:.0%}] against the paper's annotators' {human_low:.1%}-"
                   "{human_high:.1%} (on the paper's items); {reason}."),
    ClaimSpec("B10", PAPER_B, "The judge's accuracy collapses with a weaker base model.",
              "weaker base model: accuracy collapses",
              "55.3 % with GPT-4o-mini (vs 84.7 %); plotted: the difference, 0.294", 0.294, "accuracy difference",
              30, "items", "convergent", gated=False,
              estimator="paired accuracy difference, the same judge with the stronger minus the weaker base model, "
                        "bootstrap CI over items; supported when the CI lies above 0 (`sign_verdict`)",
              text="The retrieval judge on {n} labelled items with {strong_model} vs {weak_model}: accuracy difference "
                   "{accuracy:+.2f} [{accuracy_low:+.2f}, {accuracy_high:+.2f}]; {reason}.",
              untested_text="The retrieval judge with {judge_model} only."),
    ClaimSpec("B11", PAPER_B, "Convergent scores rise with model scale while divergent ones do not.",
              "convergent rises with scale, divergent not", "convergent scores rise with model size (qualitative)",
              None, "", 5, "problems", "convergent",
              estimator="per domain, Spearman rho(model parameters, p_valid) above 0 and rho(model parameters, SE) "
                        "at or below 0 (`sign_verdict`), bootstrap CI over problems; every part must hold",
              text="Spearman rho of model parameters with the {judge_name} judge's p_valid ({judge_model}) and with "
                   "SE, per domain ({model_sizes}; problems resampled)."),
    ClaimSpec("B12", PAPER_B, "On BookMIA the retrieval-based judge is more accurate than ChatEval.",
              "BookMIA: retrieval > ChatEval", "83.0 % vs 73.3 % (ChatEval); people 74.7-87.0 %", 0.83, "accuracy",
              30, "items", "convergent", not_testable="no BookMIA data here"),
    ClaimSpec("B13", PAPER_B, "The LLM novelty judge agrees with human novelty rankings.",
              "novelty judge ~ human rankings", "Spearman rho 0.80 on 30 problems", 0.80, "rho", 30, "problems",
              "none", not_testable="no human novelty rankings of solutions here"),
    ClaimSpec("B14", PAPER_B, "Semantic entropy falls slightly for larger or newer models.",
              "SE falls slightly for larger/newer models", "SE falls slightly for larger or newer models "
              "(qualitative)", None, "", 5, "problems", "entailment",
              not_testable="no newer release of a model of one size runs here; the larger-model half is only "
                           "tested in B2's weaker form (SE does not grow with scale)"),
    ClaimSpec("B15", PAPER_B, "Convergent scores rise for newer and reasoning models.",
              "convergent rises for newer/reasoning models", "convergent scores rise for newer and reasoning models "
              "(qualitative)", None, "", 5, "problems", "convergent",
              not_testable="no newer or reasoning models run here"),
]}
"""Claim id -> its spec, in page order."""


@dataclass(frozen=True)
class ReferenceFigure:
    """A reference number a paper reports that is no claim (e.g. its single agent's scores), to set beside this
    run's value of the same quantity as a calibration, never as a verdict."""

    paper: str
    """`PAPER_A` or `PAPER_B`."""
    quantity: str
    """What the number is, in the paper's words."""
    paper_figure: str
    """The paper's figure, as it reports it."""
    column: str
    """The column of this run's story table that measures the same quantity ("" when this run has none)."""
    system: str
    """The system (framework) of this run whose stories the column is averaged over."""


REFERENCE_FIGURES: tuple[ReferenceFigure, ...] = (
    ReferenceFigure(PAPER_A, "single agent: judge score, Integration of Scientific Concepts", "3.62 ± 1.14",
                    "integration", "single"),
    ReferenceFigure(PAPER_A, "single agent: judge scores of two other rubric dimensions (which two: the paper's "
                    "table, not checked here)", "3.62 ± 1.13; 3.41 ± 1.11", "", "single"),
    ReferenceFigure(PAPER_A, "single agent: surprisal", "0.476 ± 0.271", "surprisal", "single"),
    ReferenceFigure(PAPER_A, "single agent: KL divergence (whole story)", "2.233 ± 0.012", "lexical_kl_whole",
                    "single"),
    ReferenceFigure(PAPER_A, "single agent: semantic novelty (1 - cos)", "0.345 ± 0.002", "novelty", "single"),
    ReferenceFigure(PAPER_A, "single agent: volume gain", "0.0138 ± 0.0002", "volume_gain", "single"),
)
"""The papers' reference figures that are no claims: the LLM Review paper's single-agent scores."""


def spec(claim_id: str) -> ClaimSpec | None:
    """The spec of a paper claim, or None for a claim the project adds."""
    return CLAIMS.get(claim_id)


def min_n(claim_id: str, profile: str | None = None) -> int:
    """The minimum sample `claim_id` is decided at under `profile` (default: this process's, `paths.current_profile`):
    the registered minimum of the profile's own registration where it sized the claim (the claims' re-decision,
    profile `decisive`: `published/preregistration-2`), else the claim table's `ClaimSpec.min_n` (the first
    registration's, which the claim table carries). The published run's verdicts therefore replay unchanged."""
    profile = paths.current_profile() if profile is None else profile
    table = CLAIMS[claim_id].min_n
    if profile != "decisive":
        return table
    file = paths.REPO_ROOT / paths.RECORDS[profile][1] / REGISTRATION_JSON  # read at call time: tests move the root
    if not file.exists():
        return table
    return _registered_minimums(str(file), file.stat().st_mtime_ns).get(claim_id, table)


@lru_cache(maxsize=4)
def _registered_minimums(file: str, mtime_ns: int) -> dict[str, int]:
    """A registration's minimums, read once per version of its file (`mtime_ns` keys the cache): the ledger asks
    `min_n` several times a row."""
    return registered_min_n(Path(file))
