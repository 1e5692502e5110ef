"""The evaluation chapter's paired comparisons and its verdicts on claims A1-A3 and A5 of the LLM Review paper.

A1 and A3 rest on the rubric judge's sampled mean (the paper's estimator: `repeats` sampled scores per
story and dimension, averaged); the expected score is an alternative shown beside them
(`llmcreativity.evaluation.rubric_estimators`). Every comparison is paired by prompt and resamples prompts. Each
claim's minimum sample and the text it is recorded with are its declaration below, registered in `claims.declarations`;
the functions here return `Verdict`s with the facts that text names.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd

from ..claims.declarations import min_n, register
from ..claims.sizing import MEAN_PRECISION, RHO_PRECISION, SIGN, Target
from ..claims.spec import PAPER_A, ClaimSpec
from ..claims.verdicts import Verdict, beats_every_baseline, not_testable, sign_verdict
from ..data.hanna import N_STORIES, HannaHuman
from ..llm.registry import MODELS, local_model
from ..stats.agreement import spearman
from ..stats.bootstrap import bootstrap_ci
from ..stats.paired import paired_comparisons
from ..stats.sample_size import n_for_correlation, n_for_mean
from ..writing import BASELINES
from ..writing.dataset import SCIFI100_PROMPTS
from .pilot_readers import read_a1, read_a2, read_a3, read_a5
from .scoring_table import JUDGE_COLUMNS, KL_MODES, NOVELTY_COLUMNS, kl_column

# Claims A1-A3 and A5: declared beside the code that decides them (`claims.declarations`).
register(
    ClaimSpec("A1", PAPER_A, "LLM Review beats every baseline framework on the LLM judge's quality dimensions.",
              "Review > every baseline, judge's quality scores",
              "Review “significantly outperforms single-agent and other multi-agent frameworks” in the “quality "
              "dimensions (LLM-as-a-Judge scores)” (summary); “consistently outperforms multi-agent baselines” "
              "(abstract, qualitative)", None, "",
              5, "prompts", "rubric",
              estimator="per prompt and rubric dimension, Review's score minus each baseline's (the judge's sampled "
                        "mean of `repeats` scores); bootstrap 95 % CI over prompts, paired t-test Holm-adjusted over "
                        "every dimension x baseline; supported when all are significantly positive "
                        "(`beats_every_baseline`); statistic: the weakest comparison",
              text="Review beats every baseline on the five rubric dimensions (judge {judge}, {estimator}; writer "
                   "{writer_model}). {Reason}.",
              target=Target("per prompt: Review's judge score minus each baseline's, per dimension (5 x 4 comparisons)",
                     MEAN_PRECISION, "every comparison must be significantly positive after Holm: " + SIGN, read_a1,
                     (n_for_mean,), SCIFI100_PROMPTS)),
    ClaimSpec("A2", PAPER_A, "LLM Review beats every baseline framework on the four rule-based novelty metrics "
              "(surprisal, KL divergence, semantic novelty, volume gain).",
              "Review > every baseline, novelty metrics",
              "Review “significantly outperforms single-agent and other multi-agent frameworks” in the “novelty "
              "dimensions (rule-based indicators)” (summary, qualitative)", None, "", 14, "prompts", "none",
              estimator="per prompt and metric, Review's value minus each baseline's on surprisal, lexical KL (the "
                        "paper's whole-story KL in the paper profile, the windowed KL otherwise: the evaluation "
                        "chapter's `a2_kl`), semantic novelty and volume gain; bootstrap CI over prompts, paired "
                        "t-test Holm-adjusted over every metric x baseline (`beats_every_baseline`)",
              text="Review beats every baseline on surprisal, lexical KL ({kl}), semantic novelty and volume gain "
                   "(writer {writer_model}). {Reason}.",
              target=Target(
                     "per prompt: Review's novelty metric minus each baseline's (4 metrics x 4 baselines; whole-story "
                     "KL)", MEAN_PRECISION, "every comparison must be significantly positive after Holm: " + SIGN,
                     read_a2, (n_for_mean,), SCIFI100_PROMPTS)),
    ClaimSpec("A3", PAPER_A, "A small model writing with LLM Review beats a larger model writing as a single agent.",
              "small + Review > larger single agent",
              "smaller models with Review “can surpass larger single-agent models” (abstract); “small and "
              "medium-sized models (e.g., Llama-3.2-3B) can achieve creative writing capabilities exceeding those of "
              "larger single-agent models” (summary, qualitative)", None, "", 5,
              "prompts", "rubric",
              estimator="per prompt, Review's mean judge score (sampled mean, five dimensions) minus the larger "
                        "Single Agent's; bootstrap CI over prompts, paired t-test (`beats_every_baseline`); not "
                        "testable when the 'larger' model is not larger or the judge wrote a story",
              text="Review with {writer_model} beats a Single Agent with {large_model} on the judge's mean score "
                   "(judge {judge}, {estimator}). {Reason}.",
              target=Target("per prompt: Review's mean judge score minus the larger Single Agent's", MEAN_PRECISION,
                     SIGN, read_a3, (n_for_mean,), SCIFI100_PROMPTS)),
    ClaimSpec("A5", PAPER_A, "The rubric LLM judge agrees with human consensus scores.", "rubric judge ~ humans",
              "a human check, with no agreement figure given: “9 student annotators” scored Review + Llama-3.2-3B "
              "stories on “the same 5 dimensions and 0-5 scale as GPT-4o”, their mean “used to verify the "
              "consistency of LLM scores” (summary, qualitative)", None, "", 44, "stories", "rubric",
              gated=False, kind="project check",
              stand_in="HANNA's human ratings of its own stories (3 raters x 6 criteria), standing in for the paper's "
                       "human check, in which 9 annotators scored SciFi-100 stories on its 5 dimensions",
              estimator="Spearman rho(judge mean score, mean human rating over 3 raters x 6 criteria) on HANNA's "
                        "stories, bootstrap 95 % CI over stories; supported when the CI lies above 0 "
                        "(`sign_verdict`); the gate of the rubric judge for A1 and A3",
              text="The rubric judge {judge} ({estimator}) ranks HANNA's human stories like the human raters' "
                   "consensus. {Reason}.",
              target=Target("per HANNA story: (the judge's mean score, the human consensus)", RHO_PRECISION, SIGN,
                     read_a5, (n_for_correlation,), N_STORIES)),
    module=__name__,
)

# A6: a statement of the summary's the recorded runs could test but do not decide (`ClaimSpec.later`), shown apart.
register(
    ClaimSpec("A6", PAPER_A, "Interaction structure matters more than model scale: LLM Review's gain over a single "
              "agent of the same model exceeds the gain of a larger model as a single agent.",
              "Review's gain > a larger model's gain",
              "“Interaction Structure Is More Important Than Model Scale” (summary); the results suggest “interaction "
              "structure may substitute for model scale” (abstract, qualitative)", None, "", 5, "prompts", "rubric",
              estimator="per prompt, (Review minus the Single Agent, both with the small writer) minus (the larger "
                        "Single Agent minus the small one), on the judge's mean score; bootstrap CI over prompts; "
                        "supported when the CI lies above 0",
              later="the recorded runs hold the three systems it needs (Review and a Single Agent with the small "
                    "writer, a Single Agent with a larger one), but no registration sized this contrast before their "
                    "sittings: decided on their data now, it would be a test chosen after its data were seen"),
    module=__name__,
)


REFERENCE = "review"
"""The system every claim sets against the others."""
MIN_RANK_POINTS = 3
"""Fewest stories a Spearman correlation (and its bootstrap) is computed on."""


def claim_comparisons(table: pd.DataFrame, large_systems: list[str], *, seed: int = 0) -> dict[str, pd.DataFrame]:
    """`paired_comparisons` of Review per claim: A1 judge dimensions vs every baseline, A2 novelty metrics vs every
    baseline, A3 the judge's mean and the novelty metrics vs the bigger Single Agent(s) (`large_systems`)."""
    return {
        "A1": paired_comparisons(table, list(JUDGE_COLUMNS), REFERENCE, list(BASELINES), seed=seed),
        "A2": paired_comparisons(table, list(NOVELTY_COLUMNS), REFERENCE, list(BASELINES), seed=seed),
        "A3": paired_comparisons(table, ["judge_mean", *NOVELTY_COLUMNS], REFERENCE, list(large_systems), seed=seed),
    }


def with_kl(table: pd.DataFrame, mode: str) -> pd.DataFrame:
    """`table` with its `lexical_kl` column (the one A2 is decided on) set to the lexical KL in `mode` ("windowed" or
    "whole", `scores.KL_MODES`), read from that mode's own column (`scores.kl_column`)."""
    column = kl_column(mode)
    if column not in table.columns:
        raise ValueError(f"the table has no {column!r}: score it with evaluation.novelty_table")
    return table.assign(lexical_kl=table[column])


def other_kl(mode: str) -> str:
    """The lexical KL that is not `mode`: the robustness column beside the one A2 is decided on."""
    kl_column(mode)
    return next(m for m in KL_MODES if m != mode)


def registry_name(identity: str) -> str | None:
    """The registry model behind a backend identity ("smollm2-135m", "transformers:smollm2-135m:float32:row-seeded",
    "llama.cpp:smollm2-135m:FILE.gguf:row-seeded") or a role spec ("llama.cpp:smollm2-135m"), or None (an endpoint,
    a folder)."""
    if (name := local_model(identity)) in MODELS:  # a registry name or a role spec llama.cpp:NAME
        return name
    m = re.fullmatch(r"[\w.-]+:(?P<name>[^:]+)(:[\w.-]+)+", identity)
    return m["name"] if m and m["name"] in MODELS else None


def a3_not_testable_reason(writer_model: str, large_models: list[str], judge: str) -> str | None:
    """Why A3 cannot be tested with these models, or None when it can.

    A3 compares a small writer with Review against a *larger* Single Agent, graded by a judge that wrote
    neither: it is not testable when a parameter count is unknown (not a registry model), when a
    "large" model has no more parameters than the writer, or when the judge is one of the writers
    (it would grade its own stories). Arguments are registry names or backend identities.
    """
    if not large_models:
        return "no bigger Single Agent was run (the baselines stage's large_writer)"
    if writer_model in large_models:
        return f"one model ({writer_model}) plays both the writer and the 'large' writer"
    names = {m: registry_name(m) for m in (writer_model, *large_models, judge)}
    unknown = [m for m in (writer_model, *large_models) if names[m] is None]
    if unknown:
        return f"the parameter count of {', '.join(unknown)} is unknown (not a registry model)"
    writer = MODELS[names[writer_model]]
    for large in large_models:
        spec = MODELS[names[large]]
        if spec.parameters <= writer.parameters:
            return (f"the 'large' model {spec.name} ({spec.parameters:g}M parameters) is not larger than the writer "
                    f"{writer.name} ({writer.parameters:g}M)")
    writers = {names[m] or m for m in (writer_model, *large_models)} | {writer_model, *large_models}
    if (names[judge] or judge) in writers or judge in writers:
        return f"the judge {names[judge] or judge} is one of the writers (it would grade its own stories)"
    return None


def review_verdicts(comparisons: dict[str, pd.DataFrame], *, judge: str, writer_model: str, large_model: str,
                    a3_not_testable: str | None = None, estimator: str = "sampled mean",
                    kl: str = "windowed") -> dict[str, Verdict]:
    """Claim id -> `beats_every_baseline` verdict for A1-A3, each "inconclusive" below its claim's minimum number of
    prompts (`ClaimSpec.min_n`), with the facts of its text: `judge`, `estimator` (the judge score the judge columns
    hold; the paper's: the sampled mean), `writer_model`, `large_model` and `kl` (the lexical KL the `lexical_kl`
    column holds; the paper's: "whole").

    A3 is decided on the judge's mean score alone; its novelty comparisons are shown, not judged. With
    `a3_not_testable` (a reason from `a3_not_testable_reason`) A3 is recorded as not testable here."""
    a3 = comparisons["A3"]
    verdicts = {"A1": beats_every_baseline(comparisons["A1"], min_pairs=min_n("A1")),
                "A2": beats_every_baseline(comparisons["A2"], min_pairs=min_n("A2")),
                "A3": (not_testable(a3_not_testable) if a3_not_testable
                       else beats_every_baseline(a3[a3["measure"] == "judge_mean"], min_pairs=min_n("A3")))}
    facts = {"judge": judge, "estimator": estimator, "writer_model": writer_model, "large_model": large_model,
             "kl": kl}
    return {cid: replace(v, facts=facts) for cid, v in verdicts.items()}


def human_consensus(hanna: HannaHuman) -> pd.Series:
    """Each HANNA story's human consensus score: the mean over its three raters and six criteria (1-5)."""
    return hanna.mean_scores().mean(axis=1)


def judge_human_verdict(judge: pd.DataFrame, hanna: HannaHuman, *, judge_name: str, estimator: str = "sampled mean",
                        seed: int = 0, n_resamples: int = 2000) -> Verdict:
    """Claim A5, the rubric judge agrees with human consensus: Spearman rho between the judge's mean score
    (`judge` has story_id and judge_mean) and `human_consensus`, with a percentile-bootstrap 95 % CI over
    stories; `sign_verdict` (+1) on that CI, "inconclusive" below the 3 stories a rank correlation needs. The
    claim's minimum sample (`ClaimSpec.min_n`) is applied where it is recorded (`claims.min_sample_gate`). Facts:
    `judge` (`judge_name`) and `estimator`."""
    scores = judge.assign(story_id=judge["story_id"].astype(int)).set_index("story_id")["judge_mean"].dropna()
    human = human_consensus(hanna).loc[scores.index]
    x, y = scores.to_numpy(dtype=float), human.to_numpy(dtype=float)
    measure = (f"Spearman rho(judge mean score, mean human rating over 3 raters x 6 criteria), HANNA stories, "
               f"judge {judge_name} ({estimator})")
    rho = spearman(x, y)[0] if len(x) >= MIN_RANK_POINTS else np.nan
    facts = {"judge": judge_name, "estimator": estimator}
    if len(x) < MIN_RANK_POINTS:
        return Verdict("inconclusive", f"the sample is too small to decide: {len(x)} stories (a rank correlation needs "
                       f"at least {MIN_RANK_POINTS})", n=len(x), measure=measure, facts=facts)
    ci = bootstrap_ci([x, y], lambda a, b: spearman(a, b)[0], n_resamples=n_resamples, seed=seed)
    return replace(sign_verdict(ci.low, ci.high, +1, statistic=rho, n=len(x), measure=measure), facts=facts)
