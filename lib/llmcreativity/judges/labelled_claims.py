"""The judge chapter's claims on the labelled items: B5 (tokens vs ChatEval), B9 (accuracy vs the baselines),
B10 (a weaker base model).

Each function returns the claim's `Verdict` with the facts its text names; the text and the minimum number of
items are the claim's declaration below (B5, B9, B10; B12, not testable here), registered in `claims.declarations`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from ..claims.declarations import min_n, register
from ..claims.sizing import SIGN, Target
from ..claims.spec import PAPER_B, ClaimSpec
from ..claims.verdicts import (
    Verdict,
    all_of_verdict,
    beats_every_baseline,
    efficiency_verdict,
    human_level_verdict,
    not_testable,
    sign_verdict,
)
from ..llm.registry import MODELS, local_model
from ..stats.bootstrap import bootstrap_ci
from ..stats.holm import holm_table
from ..stats.paired import cohen_dz
from ..stats.sample_size import n_for_paired_proportions, n_for_proportion, n_for_ratio
from .performance import accuracy_difference, token_saving
from .pilot_readers import read_b5, read_b9, read_b10

# Claims B5, B9 and B10, declared beside the code that decides them (`claims.declarations`), with B12, not testable
# here, beside B9: the same judge's accuracy on other data.
register(
    ClaimSpec("B5", PAPER_B, "The retrieval-based multi-agent judge matches or beats ChatEval's accuracy with far "
              "fewer tokens.", "retrieval judge: ~63 % fewer tokens",
              "token cost cut by about 63 % against ChatEval (the authors' README); over 60 % improved efficiency "
              "(abstract); token use about 63 % and overall compute 60 %+ below traditional multi-agent discussion, "
              "accuracy not dropping (summary)",
              0.63, "saving", 30, "items", "convergent",
              estimator="token saving 1 - sum t_retrieval / sum t_ChatEval and accuracy difference on the same items, "
                        "paired bootstrap over items; supported when the saving's CI lies above 50 % and the accuracy "
                        "difference's above -5 points (`efficiency_verdict`)",
              text="{judge} vs {baseline} on {n} labelled items, judge model {judge_model}, matched rounds and reply "
                   "length: token saving {saving:.0%} [{saving_low:.0%}, {saving_high:.0%}]{no_stop}, accuracy "
                   "difference {accuracy:+.2f} [{accuracy_low:+.2f}, {accuracy_high:+.2f}]; {reason}.",
              target=Target("per item: the retrieval judge's and ChatEval's tokens; whether each judged right",
                     "saving: half-width <= |pilot saving - 50 %|; accuracy difference: <= |pilot difference + 5 "
                     "points|",
                     "the saving's interval must clear 50 % and the accuracy difference's clear -5 points "
                     "(`efficiency_verdict`)", read_b5, (n_for_ratio, n_for_paired_proportions))),
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
                   "{human_high:.1%} (on the paper's items); {reason}.",
              target=Target("per item: whether the retrieval judge and each of ChatEval, one-shot and CoT judged right",
                     "each accuracy difference: half-width <= |pilot difference| (z Bonferroni over 3); "
                     "accuracy: <= |pilot accuracy - 80.0 %|",
                     "both parts must hold: each difference significant after Holm, and the Wilson interval clear of "
                     "the annotators' 80.0 %",
                     read_b9, (n_for_paired_proportions, n_for_proportion))),
    ClaimSpec("B10", PAPER_B, "The judge's accuracy collapses with a weaker base model.",
              "weaker base model: accuracy collapses",
              "55.3 % with GPT-4o-mini (vs 84.7 %); plotted: the difference, 0.294", 0.294, "accuracy difference",
              30, "items", "convergent", gated=False,
              estimator="paired accuracy difference, the same judge with the stronger minus the weaker base model, "
                        "bootstrap CI over items; supported when the CI lies above 0 (`sign_verdict`)",
              text="The retrieval judge on {n} labelled items with {strong_model} vs {weak_model}: accuracy difference "
                   "{accuracy:+.2f} [{accuracy_low:+.2f}, {accuracy_high:+.2f}]; {reason}.",
              untested_text="The retrieval judge with {judge_model} only.",
              target=Target(
                     "per item: whether the retrieval judge judged right with the stronger and with the weaker model",
                     "half-width <= |pilot accuracy difference|", SIGN, read_b10, (n_for_paired_proportions,))),
    ClaimSpec("B12", PAPER_B, "On BookMIA the retrieval-based judge is more accurate than ChatEval.",
              "BookMIA: retrieval > ChatEval", "83.0 % vs 73.3 % (ChatEval); people 74.7-87.0 %", 0.83, "accuracy",
              30, "items", "convergent", not_testable="no BookMIA data here"),
    module=__name__,
)


B5_MEASURE = "token saving 1 - t_retrieval / t_ChatEval"
"""What B5's statistic is."""
PAPER_HUMAN_ACCURACY = (0.800, 0.847)
"""The creativity-evaluation paper's human annotators' accuracies on its MacGyver items, lowest and highest (80.0 %
and 84.7 %): what B9's "human-level" is held against (its declaration quotes the same range)."""


def efficiency_claim(per_item: pd.DataFrame, judge: str, baseline: str, *, judge_model: str, no_stop: str = "",
                     n_resamples: int = 1000, seed: int = 0) -> Verdict:
    """Claim B5's `efficiency_verdict` ("inconclusive" below the claim's minimum number of items, `ClaimSpec.min_n`),
    with the facts of its text: the saving and the accuracy difference with their CIs, `judge`, `baseline`,
    `judge_model` and `no_stop`.

    `per_item` is `judgement_table` over both judges on the same items. With `no_stop` (the same
    retrieval judge with early stopping off), the text also gives that arm's saving: retrieval's own,
    apart from stopping early. The verdict rests on `judge`.
    """
    saving = token_saving(per_item, judge, baseline, n_resamples=n_resamples, seed=seed)
    acc = accuracy_difference(per_item, judge, baseline, n_resamples=n_resamples, seed=seed)
    n = int(per_item.loc[per_item["judge"] == judge, "item_id"].nunique())
    v = efficiency_verdict(saving, acc, n, min_items=min_n("B5"), measure=B5_MEASURE)
    own = ""
    if no_stop:
        off = token_saving(per_item, no_stop, baseline, n_resamples=n_resamples, seed=seed)
        own = f" (early stop off, {no_stop}: {off.estimate:.0%} [{off.low:.0%}, {off.high:.0%}])"
    return replace(v, facts={"judge": judge, "baseline": baseline, "judge_model": judge_model, "no_stop": own,
                             "saving": saving.estimate, "saving_low": saving.low, "saving_high": saving.high,
                             "accuracy": acc.estimate, "accuracy_low": acc.low, "accuracy_high": acc.high})


def savings_table(per_item: pd.DataFrame, judges: list[str], baseline: str, *, n_resamples: int = 1000,
                  seed: int = 0) -> pd.DataFrame:
    """Token saving and accuracy difference (with CIs, items resampled) of each judge against `baseline`."""
    return pd.DataFrame([
        {"judge": name, "baseline": baseline,
         "saving": str(token_saving(per_item, name, baseline, n_resamples=n_resamples, seed=seed)),
         "accuracy difference": str(accuracy_difference(per_item, name, baseline, n_resamples=n_resamples, seed=seed)),
         "paper": "token cost about 63 % below ChatEval's (the authors' README), over 60 % improved "
                  "efficiency (abstract), accuracy matching the human annotators'"}
        for name in judges
    ])


def accuracy_comparisons(per_item: pd.DataFrame, reference: str, baselines: list[str], *, alpha: float = 0.05,
                         n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paired accuracy of `reference` minus each baseline on their common items, in `beats_every_baseline`'s form.

    d_i = c_ref,i - c_base,i (c = 1 when the verdict equals the human label); diff = mean d with a
    bootstrap CI over items; p is the exact McNemar test (the discordant items' split against 1/2),
    Holm-adjusted over the baselines (`stats.holm_table`); significant = p_holm < alpha.
    """
    rows = []
    ref = per_item[per_item["judge"] == reference].set_index("item_id")["correct"].astype(float)
    for other in baselines:
        base = per_item[per_item["judge"] == other].set_index("item_id")["correct"].astype(float)
        common = ref.index.intersection(base.index)
        d = (ref[common] - base[common]).to_numpy(float)
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        ci = bootstrap_ci([d], np.mean, n_resamples=n_resamples, seed=seed) if len(d) >= 2 else None
        rows.append({"measure": "accuracy", "baseline": other, "n_pairs": len(d),
                     "reference_mean": float(ref[common].mean()), "baseline_mean": float(base[common].mean()),
                     "diff": float(d.mean()) if len(d) else np.nan, "ci_low": ci.low if ci else np.nan,
                     "ci_high": ci.high if ci else np.nan, "dz": cohen_dz(d), "wins": wins, "losses": losses,
                     "p": binomtest(wins, wins + losses).pvalue if wins + losses else 1.0})
    return holm_table(pd.DataFrame(rows), "p", alpha=alpha)


def accuracy_claim(comparisons: pd.DataFrame, reference: str, *, judge_model: str, kappa: float,
                   human: tuple[float, float] = PAPER_HUMAN_ACCURACY) -> Verdict:
    """Claim B9's verdict: `all_of_verdict` of "beats every baseline" (`beats_every_baseline`) and "human-level"
    (`human_level_verdict`: the reference's accuracy, Wilson 95 % CI, against `human`, the paper's annotators'
    range); "inconclusive" below the claim's minimum number of items (`ClaimSpec.min_n`). The statistic is the
    baselines part's. Facts of its text: the accuracies, `kappa`, the human-level CI and range, `reference` and
    `judge_model`.

    The human range is the paper's, measured on its own MacGyver items; MacGyver gives one label per solution here,
    so this run has no human-human agreement of its own to compare with.
    """
    min_items = min_n("B9")
    beats = beats_every_baseline(comparisons, min_pairs=min_items)
    n = int(comparisons["n_pairs"].min())
    widest = comparisons.loc[comparisons["n_pairs"].idxmax()]
    level = human_level_verdict(int(round(widest["reference_mean"] * widest["n_pairs"])), int(widest["n_pairs"]),
                                *human, measure=f"accuracy of {reference}, Wilson 95 % CI")
    v = all_of_verdict({"beats every baseline": beats, "human-level": level}, primary="beats every baseline")
    if n < min_items:
        v = Verdict("inconclusive", f"the sample is too small: {n} items (< {min_items})", v.statistic, v.ci_low,
                    v.ci_high, v.n, v.measure)
    parts = ", ".join(f"{r.baseline} {r.baseline_mean:.0%}" for r in comparisons.itertuples())
    return replace(v, facts={"reference": reference, "judge_model": judge_model, "items": n,
                             "accuracy": comparisons["reference_mean"].iloc[0], "baselines": parts, "kappa": kappa,
                             "level": level.statistic, "level_low": level.ci_low, "level_high": level.ci_high,
                             "human_low": human[0], "human_high": human[1]})


def weaker_model_claim(per_item: pd.DataFrame, strong: str, weak: str, *, strong_model: str, weak_model: str,
                       n_resamples: int = 1000, seed: int = 0) -> Verdict:
    """Claim B10 ("accuracy collapses with a weaker base model"): the same judge on the same items with two models.

    Statistic: accuracy(strong) - accuracy(weak), paired over items, with a bootstrap CI; `sign_verdict`
    (+1), "inconclusive" below the claim's minimum number of items (`ClaimSpec.min_n`). Facts of its text: the
    difference with its CI, `strong_model` and `weak_model`.
    """
    min_items = min_n("B10")
    acc = accuracy_difference(per_item, strong, weak, n_resamples=n_resamples, seed=seed)
    n = int(per_item.loc[per_item["judge"] == strong, "item_id"].nunique())
    measure = f"accuracy difference, {strong_model} - {weak_model} judge"
    if n < min_items:
        v = Verdict("inconclusive", f"the sample is too small: {n} items (< {min_items})", acc.estimate, acc.low,
                    acc.high, n, measure)
    else:
        v = sign_verdict(acc.low, acc.high, +1, statistic=acc.estimate, n=n, measure=measure)
    return replace(v, facts={"strong_model": strong_model, "weak_model": weak_model, "accuracy": acc.estimate,
                             "accuracy_low": acc.low, "accuracy_high": acc.high})


def not_weaker(strong_model: str, weak_model: str) -> str:
    """Why `weak_model` cannot stand for a weaker base model of `strong_model` ("" when it can, or when either is not
    a registry model, whose size is unknown here): it must have fewer parameters and differ."""
    if not weak_model:
        return ("this run has one judge model; set weak_convergent_judge to run the retrieval judge with a weaker one "
                "(the paper profile sets both)")
    if weak_model == strong_model:
        return f"weak_convergent_judge {weak_model} is the judge model itself"
    strong_name, weak_name = local_model(strong_model), local_model(weak_model)
    if strong_name in MODELS and weak_name in MODELS:
        strong, weak = MODELS[strong_name].parameters, MODELS[weak_name].parameters
        if weak >= strong:
            return (f"weak_convergent_judge {weak_model} ({weak:g}M parameters) is not smaller than convergent_judge "
                    f"{strong_model} ({strong:g}M)")
    return ""


def untested_weaker_claim(judge_model: str, reason: str) -> Verdict:
    """Claim B10 when this run cannot test it (`not_weaker`'s reason): "not testable here", with the fact
    `judge_model`."""
    return replace(not_testable(reason), facts={"judge_model": judge_model})
