"""The semantic-entropy chapter's correlations and its verdicts on claims B1-B4 of the creativity-evaluation paper.

The primary statistic is the probability-weighted SE (the paper weights clusters by sequence
probability); the discrete and length-normalized SEs are robustness rows. Every interval comes from
a cluster bootstrap over problems (chains and steps of one problem are not independent). A verdict
is only decided on entailment clusters or the judge laboratory's confirmed equivalence judge (`judge="lab"`): when
the chains were clustered with the embedding-similarity approximation, B1-B4 are "not testable here".
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ..claims.declarations import register
from ..claims.sizing import PROBLEMS_WHOLE, RHO_PRECISION, SIGN, Target
from ..claims.spec import PAPER_B, ClaimSpec
from ..claims.verdicts import Verdict, not_testable, sign_verdict
from ..llm.backend import TextEmbedder
from ..stats.sample_size import design_effect, n_for_correlation
from .analysis import correlation_table
from .entailment import EmbeddingSimilarityJudge, EntailmentJudge
from .pilot_readers import read_b1, read_b2, read_b3, read_b4

# Claims B1-B4, declared beside the code that decides them (`claims.declarations`), with B14, not testable here, beside
# B2, which tests its weaker form.
register(
    ClaimSpec("B1", PAPER_B, "Semantic entropy rises with sampling temperature.", "SE rises with temperature",
              "SE rises with temperature: “随温度升高而增大” (summary, qualitative)", None, "", 5, "problems",
              "entailment",
              estimator="Spearman rho(temperature, per-chain probability-weighted SE), cluster-bootstrap 95 % CI over "
                        "problems; supported when the CI lies above 0 (`sign_verdict`)",
              text="SE rises with sampling temperature ({who}).",
              target=Target("per chain: (temperature, probability-weighted SE)", RHO_PRECISION + PROBLEMS_WHOLE, SIGN,
                     read_b1, (n_for_correlation, design_effect))),
    ClaimSpec("B2", PAPER_B, "Semantic entropy does not grow with model scale.", "SE not monotone in scale",
              "SE is “不单调” (not monotone) in model size; the README's Vicuna rows, 7B, 13B, 33B: 2.19, 1.96, 2.17 "
              "(qualitative)", None, "", 5, "problems", "entailment",
              estimator="Spearman rho(model parameters, per-chain probability-weighted SE), cluster-bootstrap CI over "
                        "problems; supported when the CI lies at or below 0 (`sign_verdict`, expected 0)",
              text="SE does not grow with model size ({who}; the models are not one family).",
              target=Target("per chain: (model parameters, probability-weighted SE)", RHO_PRECISION + PROBLEMS_WHOLE,
                     "'does not grow' is decided by the side of 0 the interval lies on: " + SIGN, read_b2,
                     (n_for_correlation, design_effect))),
    ClaimSpec("B3", PAPER_B, "Semantic entropy correlates strongly and positively with the number of semantic "
              "clusters.", "SE ~ number of clusters (strong +)",
              "strong positive correlation, “强正相关”, read as TTCT's “灵活性（flexibility）” (summary, qualitative)",
              None, "",
              5, "problems", "entailment",
              estimator="Spearman rho(number of clusters, per-step probability-weighted SE), cluster-bootstrap CI "
                        "over problems; supported when the CI lies above 0 (`sign_verdict`; the sign, not the "
                        "strength, is tested)",
              text="SE correlates positively with the number of clusters ({who}).",
              target=Target("per step: (number of clusters, probability-weighted SE)", RHO_PRECISION + PROBLEMS_WHOLE,
                     SIGN, read_b3, (n_for_correlation, design_effect))),
    ClaimSpec("B4", PAPER_B, "Semantic entropy correlates negatively with the similarity of the candidates.",
              "SE ~ candidate similarity (-)",
              "negative correlation, high-SE candidates being less similar: “负相关，高 SE 模型产出的候选确实更不相似” "
              "(summary, qualitative)", None, "", 5, "problems",
              "entailment",
              estimator="Spearman rho(mean pairwise cosine of the candidates, per-step probability-weighted SE), "
                        "cluster-bootstrap CI over problems; supported when the CI lies below 0 (`sign_verdict`)",
              text="SE correlates negatively with candidate similarity ({who}).",
              target=Target("per step: (mean pairwise cosine, probability-weighted SE)", RHO_PRECISION + PROBLEMS_WHOLE,
                     SIGN, read_b4, (n_for_correlation, design_effect))),
    ClaimSpec("B14", PAPER_B, "Semantic entropy falls slightly for larger or newer models.",
              "SE falls slightly for larger/newer models",
              "SE “反而略降” (falls slightly) for larger or newer models, the summary's examples LLaMA 3→3.3 and "
              "Vicuna 7B→33B; the README's rows: Llama 3 → 3.3 "
              "70B flat, 2.10 → 2.10; Llama 3.1 8B → 405B 2.13 → 2.08; Vicuna 7B → 33B 2.19 → 2.17 (qualitative)",
              None, "", 5, "problems", "entailment",
              not_testable="no newer release of a model of one size runs here; the larger-model half is only "
                           "tested in B2's weaker form (SE does not grow with scale)"),
    module=__name__,
)


PRIMARY = "se_probability"
"""The SE column the verdicts rest on: probability-weighted, every sample counted."""
ROBUSTNESS = ("se_discrete", "se_length_normalized", "se_probability_distinct")
"""SE columns shown beside the primary one, never deciding a verdict."""
CHAIN_PAIRS = [(x, y) for x in ("temperature", "params_m") for y in (PRIMARY, *ROBUSTNESS)]
"""(x, y) pairs correlated over chains (one point per chain: its mean SE)."""
STEP_PAIRS = [(x, y) for x in ("n_clusters", "mean_cosine") for y in (PRIMARY, *ROBUSTNESS)] + [
    ("distinct_2", PRIMARY), ("self_bleu", PRIMARY)]
"""(x, y) pairs correlated over steps; `mean_cosine` comes from an embedder other than the clustering one."""
SE_CLAIMS = [
    ("B1", ("temperature", PRIMARY), 1, "Spearman rho(temperature, per-chain probability-weighted SE)"),
    ("B2", ("params_m", PRIMARY), 0, "Spearman rho(parameters, per-chain probability-weighted SE)"),
    ("B3", ("n_clusters", PRIMARY), 1, "Spearman rho(clusters, per-step probability-weighted SE)"),
    ("B4", ("mean_cosine", PRIMARY), -1, "Spearman rho(mean pairwise cosine, per-step probability-weighted SE)"),
]
"""(claim id, (x, y) row of the correlation table, expected sign, measure); each claim's text is its
`ClaimSpec.text`."""
ALL_DOMAINS = "all"
"""The `domain` value of the rows over every domain together."""


def is_entailment(judge: EntailmentJudge) -> bool:
    """True unless `judge` is the embedding-similarity approximation (which may be shown, never decide a verdict)."""
    return not isinstance(judge, EmbeddingSimilarityJudge)


def check_similarity_embedder(judge: EntailmentJudge, embedder: TextEmbedder) -> None:
    """Refuse to measure candidate similarity (B4) with the embedder that also clusters the candidates.

    With the embedding approximation or the laboratory's confirmed equivalence judge, clusters are cut
    from that embedder's cosines, so B4 would compare the clusters with the numbers they were cut from and test
    nothing; any other embedder (or entailment clustering) is fine.
    """
    clusterer = getattr(judge, "embedder", None)
    if clusterer is not None and clusterer.identity == embedder.identity:
        raise ValueError(f"the similarity embedder {embedder.identity!r} also clusters the candidates "
                         f"({judge.identity}): B4 would compare the clusters with the cosines they were cut from; "
                         "choose another similarity embedder or cluster by entailment")


def claims_judge(judge: EntailmentJudge) -> str:
    """The judge the B1-B4 claims name for the claims page's gate: a confirmed laboratory judge's validity name
    (`judgelab.score.ConfirmedEquivalenceJudge`, gated on its own test-split record), else "" (the stage's own
    entailment judges, gated together by kind, as the published run was)."""
    from ..judgelab.score import ConfirmedEquivalenceJudge

    return judge.identity if isinstance(judge, ConfirmedEquivalenceJudge) else ""


def _one_domain(chains: pd.DataFrame, steps: pd.DataFrame, domain: str, n_resamples: int,
                seed: int) -> pd.DataFrame:
    chain_rows = correlation_table(chains, CHAIN_PAIRS, group="problem_id", n_resamples=n_resamples, seed=seed)
    step_rows = correlation_table(steps, STEP_PAIRS, group="problem_id", n_resamples=n_resamples, seed=seed)
    return pd.concat([chain_rows.assign(unit="chain"), step_rows.assign(unit="step")]).assign(domain=domain)


def se_correlations(chains: pd.DataFrame, steps: pd.DataFrame, *, n_resamples: int = 1000,
                    seed: int = 0) -> pd.DataFrame:
    """Spearman's rho with problem-level cluster-bootstrap 95 % CIs: `CHAIN_PAIRS` over chains (unit "chain"),
    `STEP_PAIRS` over steps (unit "step"), over all domains (domain `ALL_DOMAINS`) and, when there are several,
    within each domain. Columns x, y, rho, p, low, high, n (points), n_groups (problems), unit, domain."""
    parts = [_one_domain(chains, steps, ALL_DOMAINS, n_resamples, seed)]
    domains = sorted(chains["domain"].unique())
    if len(domains) > 1:
        parts += [_one_domain(chains[chains["domain"] == d], steps[steps["domain"] == d], d, n_resamples, seed)
                  for d in domains]
    return pd.concat(parts, ignore_index=True)


def se_verdicts(correlations: pd.DataFrame, who: str, *, entailment: bool,
                domain: str = ALL_DOMAINS) -> dict[str, Verdict]:
    """Claim id -> verdict for B1-B4 on `domain`'s rows, with the fact `who` (what was measured: models, judge,
    chains) of their texts.

    With `entailment` the verdict is `sign_verdict` of the primary SE's correlation (n = problems, the
    resampled unit; the measure names the points); without it (embedding-approximation clusters) it is `not_testable`.
    """
    rows = correlations[correlations["domain"] == domain]
    if rows.empty:
        raise ValueError(f"domain={domain!r} has no rows; the table has {sorted(correlations['domain'].unique())}")
    by_pair = {(r["x"], r["y"]): r for r in rows.to_dict("records")}
    out = {}
    for claim_id, pair, sign, measure in SE_CLAIMS:
        r = by_pair[pair]
        points = "chains" if pair[0] in ("temperature", "params_m") else "steps"
        where = f"{measure}, {int(r['n'])} {points}, CI over {int(r['n_groups'])} problems"
        if not entailment:
            verdict = not_testable("the candidates were clustered with the embedding-similarity approximation, "
                                   "which may be shown but never decides; cluster by entailment (an LLM or NLI judge)",
                                   n=int(r["n_groups"]), measure=where)
        else:
            verdict = sign_verdict(r["low"], r["high"], sign, statistic=r["rho"], n=int(r["n_groups"]),
                                   measure=where)
        out[claim_id] = replace(verdict, facts={"who": who})
    return out


def verdict_table(correlations: pd.DataFrame, who: str, *, entailment: bool) -> pd.DataFrame:
    """B1-B4 per domain (every value of the `domain` column): claim, domain, verdict, rho, low, high, n, reason."""
    rows = []
    for domain in correlations["domain"].unique():
        for claim_id, v in se_verdicts(correlations, who, entailment=entailment, domain=domain).items():
            rows.append({"claim": claim_id, "domain": domain, "verdict": v.label, "rho": v.statistic,
                         "low": v.ci_low, "high": v.ci_high, "n": v.n, "reason": v.reason})
    return pd.DataFrame(rows)
