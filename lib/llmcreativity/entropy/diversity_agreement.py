"""Claim B7: does semantic entropy track human judgements of diversity better than surface measures?

Human diversity judgements stand in from MuseScorer: two coders put every idea into a bucket of
"the same idea", so a set of ideas has a human diversity, the entropy of its bucket labels
(H = -sum_b (n_b / K) ln(n_b / K) over the K ideas, averaged over the two coders). Each machine
measure is oriented so that larger means more diverse:

* SE: discrete semantic entropy of the set's entailment clusters;
* 1 - mean pairwise cosine of sentence embeddings;
* Distinct-1 and Distinct-2;
* 1 - Self-BLEU.

A measure's agreement with people is Spearman's rho with the human diversity over sets. The sets
are disjoint random draws from one round, so they are independent units; the bootstrap resamples sets,
with the same draws for every measure (paired), and tests SE's rho minus each baseline's rho.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ..claims.declarations import min_n, register
from ..claims.sizing import SIGN, Target
from ..claims.spec import PAPER_B, ClaimSpec
from ..claims.verdicts import Verdict, beats_every_baseline
from ..data.musescorer import CODERS, ROUND_OBJECTS
from ..llm.backend import TextEmbedder
from ..metrics.diversity import distinct_n, mean_pairwise_cosine, self_bleu
from ..stats import spearman
from ..stats.bootstrap import bootstrap_difference
from ..stats.holm import holm_table
from ..stats.sample_size import n_for_mean
from .clustering import cluster_by_bidirectional_entailment
from .entailment import EntailmentJudge
from .pilot_readers import read_b7
from .se_estimators import discrete_semantic_entropy

# Claim B7: declared beside the code that decides it (`claims.declarations`).
register(
    ClaimSpec("B7", PAPER_B, "Semantic entropy agrees with human diversity judgements better than cosine "
              "similarity, Distinct-1/2 and Self-BLEU.", "SE ~ human diversity, beats baselines",
              "Cohen's kappa with human labels (the majority vote of three annotators, 50 MacGyver problems): 0.56 "
              "vs 0.49 (cosine), "
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
                   "for the paper's Cohen's kappa against its annotators).",
              target=Target(
                     "per disjoint set of MuseScorer ideas: SE's and each baseline's measure against the coders' "
                     "bucket entropy", "half-width <= |pilot difference of the rhos| (z Bonferroni over 4)",
                     "every difference must be significantly positive after Holm: " + SIGN, read_b7, (n_for_mean,))),
    module=__name__,
)


REFERENCE = "SE"
"""The measure claim B7 is about."""
BASELINES = ("1 - mean cosine", "Distinct-1", "Distinct-2", "1 - Self-BLEU")
"""The surface measures SE is compared with."""


def disjoint_sets(ideas: pd.DataFrame, round_id: int, n_sets: int, set_size: int, *,
                  seed: int = 0) -> list[pd.DataFrame]:
    """`n_sets` disjoint random sets of `set_size` ideas of one round (no idea is in two sets)."""
    pool = ideas[ideas["round_id"] == round_id]
    if n_sets < 1 or set_size < 2:
        raise ValueError(f"n_sets={n_sets!r}, set_size={set_size!r}: give at least 1 set of at least 2 ideas")
    if n_sets * set_size > len(pool):
        raise ValueError(f"round {round_id} has {len(pool)} ideas; {n_sets} disjoint sets of {set_size} need "
                         f"{n_sets * set_size}: lower n_sets or set_size")
    drawn = pool.sample(n=n_sets * set_size, random_state=seed).reset_index(drop=True)
    return [drawn.iloc[k * set_size:(k + 1) * set_size].reset_index(drop=True) for k in range(n_sets)]


def human_diversity(ideas: pd.DataFrame) -> float:
    """Mean over the coders of the entropy (nats) of their bucket labels on these ideas."""
    return float(np.mean([discrete_semantic_entropy(ideas[c].astype(str).tolist()) for c in CODERS]))


def _or_nan(f: Callable[..., float], *args: object) -> float:
    try:
        return float(f(*args))
    except ValueError:
        return float("nan")


def set_diversity(sets: Sequence[pd.DataFrame], judge: EntailmentJudge, embedder: TextEmbedder, *,
                  batch_size: int = 4) -> pd.DataFrame:
    """One row per set: its MuseScorer `round`, `human` diversity, `REFERENCE` (SE of `judge`'s clusters, with the
    round's object as context), the `BASELINES`, the cluster count and the judge calls it took."""
    rows = []
    for k, s in enumerate(sets):
        texts = s["idea_content"].astype(str).tolist()
        round_id = int(s["round_id"].iloc[0])
        context = f"Unusual uses of a {ROUND_OBJECTS.get(round_id, 'common object')}"
        c = cluster_by_bidirectional_entailment(texts, judge, context=context, batch_size=batch_size)
        rows.append({"set": k, "round": round_id, "ideas": len(texts), "human": human_diversity(s),
                     REFERENCE: discrete_semantic_entropy(c.ids), "clusters": c.n_clusters,
                     "1 - mean cosine": 1 - mean_pairwise_cosine(np.asarray(embedder.encode(texts))),
                     "Distinct-1": _or_nan(distinct_n, texts, 1), "Distinct-2": _or_nan(distinct_n, texts, 2),
                     "1 - Self-BLEU": 1 - _or_nan(self_bleu, texts), "judge_calls": c.judge_calls})
    return pd.DataFrame(rows)


def rank_agreement(x: np.ndarray, y: np.ndarray) -> float:
    """A measure's agreement with people over sets (B7's statistic): Spearman's rho over the finite pairs (NaN below
    3); a constant measure orders no set above another: 0."""
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < 3:
        return float("nan")
    if np.ptp(x[keep]) == 0 or np.ptp(y[keep]) == 0:
        return 0.0
    return spearman(x[keep], y[keep])[0]


def agreement_comparisons(table: pd.DataFrame, *, alpha: float = 0.05, n_resamples: int = 2000,
                          seed: int = 0) -> pd.DataFrame:
    """SE's agreement with people against each baseline's, in the columns `verdicts.beats_every_baseline` reads.

    For baseline b: diff = rho(SE, human) - rho(b, human) over the sets (a constant measure has rho 0); a
    paired percentile bootstrap over sets (`stats.bootstrap_difference`, the same draws for every baseline) gives
    ci_low/ci_high, the two-sided p = 2 min(P*(d <= 0), P*(d >= 0)) and dz = diff / sd*(d);
    p_holm is Holm-adjusted over the baselines (`stats.holm_table`) and significant = p_holm < alpha.
    """
    missing = {"human", REFERENCE, *BASELINES} - set(table.columns)
    if missing:
        raise ValueError(f"the set table lacks columns {sorted(missing)}: build it with set_diversity")
    human = table["human"].to_numpy(float)
    reference = [table[REFERENCE].to_numpy(float), human]
    rows = []
    for b in BASELINES:
        other = [table[b].to_numpy(float), human]
        test = bootstrap_difference(reference, other, rank_agreement, n_resamples=n_resamples, seed=seed)
        rows.append({"measure": "Spearman rho with human set diversity", "baseline": b, "n_pairs": len(table),
                     "reference_rho": rank_agreement(*reference), "baseline_rho": rank_agreement(*other),
                     "diff": test.diff, "ci_low": test.low, "ci_high": test.high, "dz": test.dz, "p": test.p})
    return holm_table(pd.DataFrame(rows), "p", alpha=alpha)


def diversity_claim(comparisons: pd.DataFrame, *, sets: int, set_size: int, round_id: int | str, judge: str,
                    embedder: str) -> Verdict:
    """Claim B7's verdict: `beats_every_baseline` on `agreement_comparisons` ("inconclusive" below the claim's minimum
    number of sets, `ClaimSpec.min_n`), with the facts of its text: the `sets` of `set_size` ideas of round
    `round_id`, the entailment `judge` that clustered them and the `embedder` of the cosine baseline."""
    return replace(beats_every_baseline(comparisons, min_pairs=min_n("B7")),
                   facts={"sets": sets, "set_size": set_size, "round": round_id, "judge": judge, "embedder": embedder})


def unseen_rounds() -> list[int]:
    """The MuseScorer rounds of the objects the judge laboratory's committed equivalence choice held out for its test
    split (`published/judges/entailment.choice.json`): the only ideas its confirmed judge was neither fitted nor
    chosen on, where B7 under that judge is measured."""
    import json

    from ..judgelab.choice import choice_path

    path = choice_path("entailment")
    if not path.exists():
        raise FileNotFoundError(f"{path}: no committed equivalence choice; run the judge laboratory (stage judge_lab)")
    held_out = set(json.loads(path.read_text())["settings"]["test_objects"])
    rounds = sorted(r for r, o in ROUND_OBJECTS.items() if o in held_out)
    if len(rounds) != len(held_out):
        raise ValueError(f"{path}: test objects {sorted(held_out)} are not all MuseScorer round objects "
                         f"({ROUND_OBJECTS})")
    return rounds


def b7_sets_of(ideas: pd.DataFrame, rounds: Sequence[int], n_sets: int, set_size: int, *,
               seed: int = 0) -> list[pd.DataFrame]:
    """`n_sets` disjoint sets of `set_size` ideas from each of `rounds` (each set within one round, one object)."""
    return [s for r in rounds for s in disjoint_sets(ideas, r, n_sets, set_size, seed=seed)]
