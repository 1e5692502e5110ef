"""Claim A4 of the LLM Review paper: interaction homogenizes stories; Debate and Discussion converge over rounds,
Review does not.

From a homogenization table (`homogenization.homogenization`: H per framework, prompt and round), the
convergence of framework f on prompt i under measure H (cosine or Self-BLEU) is

    Delta_f(i) = H_f(i, last round) - H_f(i, round 0),

positive when the writers' stories became more alike than their drafts. The claim holds when
(a) for Debate and for Discussion, the mean Delta over prompts is positive (bootstrap CI over prompts above 0),
and (b) Review converges less than each of them, paired by prompt: d(i) = Delta_f(i) - Delta_review(i) > 0
(`stats.paired.paired_comparisons` on -Delta, Holm across the comparisons). Prompts, not stories,
are resampled: the writers of one prompt are not independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ..claims.declarations import min_n, register
from ..claims.sizing import SIGN, Target
from ..claims.spec import PAPER_A, ClaimSpec
from ..claims.verdicts import Verdict, all_of_verdict, beats_every_baseline, not_testable, sign_verdict
from ..stats.bootstrap import bootstrap_ci
from ..stats.sample_size import n_for_mean
from .dataset import SCIFI100_PROMPTS
from .pilot_readers import read_a4

# Claim A4: declared beside the code that decides it (`claims.declarations`).
register(
    ClaimSpec("A4", PAPER_A, "Interaction homogenizes stories: Debate and Discussion converge over rounds, Review "
              "does not.", "Debate/Discussion converge, Review not",
              "interaction “can paradoxically hinder creativity by inducing content homogenization”; revising "
              "independently preserves “divergent creative trajectories” (abstract); “repeated exposure of agents to "
              "each other’s real-time revisions” ends in “content homogenization” (summary, qualitative)",
              None, "", 10, "prompts", "none", kind="project check",
              estimator="convergence Delta = homogenization (mean pairwise cosine, Self-BLEU of the writers' latest "
                        "stories) at the last round minus round 0, per prompt: Debate's and Discussion's mean Delta "
                        "above 0 (bootstrap CI over prompts) and Review's Delta paired below each (Holm); every part "
                        "must hold (`a4_verdict`)",
              text="Debate and Discussion stories converge from the drafts to the last round while Review's converge "
                   "less (homogenization by {measures}, paired by prompt). {Reason}.",
              untested_text="Debate and Discussion stories converge from the drafts to the last round while Review's "
                            "converge less (homogenization by {measures}, paired by prompt). Not testable here: "
                            "{reason}.",
              target=Target(
                     "per prompt: Debate's and Discussion's convergence Delta (cosine, Self-BLEU), and each one's "
                     "Delta minus Review's",
                     "each part: half-width <= |its pilot mean| (the paired parts: z Bonferroni over 4)",
                     "every part is a sign (Delta above 0; Review's Delta below each): " + SIGN, read_a4, (n_for_mean,),
                     SCIFI100_PROMPTS)),
    module=__name__,
)


INTERACTIVE: tuple[str, ...] = ("debate", "discussion")
"""The frameworks whose writers read each other's stories (or challenges of them), claimed to converge."""
HOMOGENIZATION_MEASURES: tuple[str, ...] = ("cosine", "self_bleu")
"""Both homogenization measures: shared meaning and shared wording."""


def convergence(homog: pd.DataFrame, measures: Sequence[str] = HOMOGENIZATION_MEASURES) -> pd.DataFrame:
    """Delta per (framework, prompt_id): the last round's H minus round 0's, one column per measure, and `rounds`
    (the last round). Runs without a revision round are left out; repeated rows of a round are averaged."""
    rows = []
    for (framework, prompt_id), g in homog.groupby(["framework", "prompt_id"], sort=True):
        g = g.groupby("round")[list(measures)].mean()  # one H per round (a table read twice counts once)
        last = int(g.index.max())
        if last < 1 or 0 not in g.index:
            continue
        rows.append({"framework": framework, "prompt_id": prompt_id, "rounds": last,
                     **{m: float(g.loc[last, m] - g.loc[0, m]) for m in measures}})
    return pd.DataFrame(rows, columns=["framework", "prompt_id", "rounds", *measures])


def _converges(delta: pd.Series, name: str, measure: str, *, min_pairs: int, seed: int) -> Verdict:
    d = delta.dropna().to_numpy(dtype=float)
    label = f"mean convergence Delta {measure} of {name} (last round - round 0)"
    if len(d) < max(min_pairs, 2):
        return Verdict("inconclusive", f"the sample is too small to decide: {len(d)} prompt(s) (at least "
                       f"{min_pairs} needed)", statistic=float(d.mean()) if len(d) else None, n=len(d), measure=label)
    ci = bootstrap_ci([d], np.mean, seed=seed)
    v = sign_verdict(ci.low, ci.high, +1, statistic=float(d.mean()), n=len(d), measure=label)
    return Verdict(v.label, f"{name} on {measure}: {v.reason}", v.statistic, v.ci_low, v.ci_high, v.n, v.measure)


def a4_verdict(homog: pd.DataFrame, *, measures: Sequence[str] = HOMOGENIZATION_MEASURES, seed: int = 0) -> Verdict:
    """The verdict on A4 from the homogenization table of both writing stages (see the module docstring), with the
    fact `measures` of its text; "inconclusive" below the claim's minimum number of prompts (`ClaimSpec.min_n`).

    Not testable when Review or an interactive framework has no revised run in the table. The statistic is
    the weakest paired comparison of part (b).
    """
    from ..stats.paired import paired_comparisons

    min_pairs = min_n("A4")
    facts = {"measures": " and ".join(measures)}
    delta = convergence(homog, measures)
    present = set(delta["framework"])
    missing = [f for f in ("review", *INTERACTIVE) if f not in present]
    if missing:
        return replace(not_testable(f"no revised runs of {', '.join(missing)} in the homogenization tables"),
                       facts=facts)
    contrast_n = delta[delta["framework"].isin(INTERACTIVE)].groupby("framework")["prompt_id"].nunique().min()
    if contrast_n < min_pairs:
        return Verdict("inconclusive", f"the sample is too small to decide: as few as {contrast_n} prompt(s) per "
                       f"framework (at least {min_pairs} needed)", n=int(contrast_n),
                       measure="convergence Delta (last round - round 0) per prompt", facts=facts)
    parts = {f"{f} {m}": _converges(delta.loc[delta["framework"] == f, m], f, m, min_pairs=min_pairs, seed=seed)
             for f in INTERACTIVE for m in measures}
    # -Delta: how much less the stories converged; review minus f = Delta_f - Delta_review per prompt.
    retained = pd.DataFrame({"system": delta["framework"], "prompt_id": delta["prompt_id"],
                             **{f"-Delta {m}": -delta[m] for m in measures}})
    contrast = paired_comparisons(retained, [f"-Delta {m}" for m in measures], "review", list(INTERACTIVE), seed=seed)
    parts["review converges less"] = beats_every_baseline(contrast, min_pairs=min_pairs)
    return replace(all_of_verdict(parts, primary="review converges less"), facts=facts)
