"""How far an entailment judge's clusters agree with MuseScorer's human coders, with a bootstrap CI over ideas.

For the claims ledger's judge gate (`llmcreativity.claims.judge_validity`). The judge clusters the same
samples of ideas as `judge_agreement.repeated_agreement` (sample r drawn with seed + r, clustered per round
with the same context and batch size, so a cached judge makes no new calls); the statistic is the mean over
the two coders of the adjusted Rand index,

    ARI_bar = (ARI(judge, ali) + ARI(judge, krish)) / 2,

0 at chance. Its 95 % CI is a percentile bootstrap over ideas (the pooled samples, labels kept distinct per
sample) that keeps each drawn idea once (`stats.distinct_bootstrap_ci`): an idea drawn twice would form a pair
that every partition puts together, which pulls the plain bootstrap towards agreement (with a few ideas its
interval can lie wholly above the estimate). A resample then holds about 63 % of the ideas, so the interval
is wider than the estimate's own sampling spread: conservative, as a screen for "better than chance" should be.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.musescorer import CODERS, ROUND_OBJECTS
from ..stats.agreement import adjusted_rand
from ..stats.bootstrap import distinct_bootstrap_ci
from .clustering import cluster_by_bidirectional_entailment
from .entailment import EntailmentJudge
from .musescorer_validation import sample_round


def mean_ari(judge: np.ndarray, *coders: np.ndarray) -> float:
    """ARI_bar: the mean over `coders` of the adjusted Rand index between each coder's labels and `judge`'s."""
    return float(np.mean([adjusted_rand(c, judge) for c in coders]))


def entailment_validity(ideas: pd.DataFrame, round_id: int, size: int, repeats: int,
                        judges: dict[str, EntailmentJudge], *, seed: int = 0, batch_size: int = 4,
                        n_resamples: int = 1000) -> pd.DataFrame:
    """Per judge: n ideas, the mean ARI against the coders and its bootstrap 95 % CI (`low`, `high`)."""
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r}: draw at least one sample")
    context = f"Unusual uses of a {ROUND_OBJECTS.get(int(round_id), 'common object')}"
    labels: dict[str, list[str]] = {name: [] for name in [*judges, *CODERS]}
    for rep in range(repeats):
        sample = sample_round(ideas, round_id, size, seed=seed + rep)
        for coder in CODERS:
            labels[coder] += [f"{rep}-{v}" for v in sample[coder]]
        for name, judge in judges.items():
            c = cluster_by_bidirectional_entailment(sample["idea_content"].astype(str).tolist(), judge,
                                                    context=context, batch_size=batch_size)
            labels[name] += [f"{rep}-{i}" for i in c.ids]
    coders = [labels[c] for c in CODERS]
    rows = []
    for name in judges:
        ci = distinct_bootstrap_ci([labels[name], *coders], mean_ari, n_resamples=n_resamples, seed=seed)
        rows.append({"judge": name, "n": len(labels[name]), "ari": ci.estimate, "low": ci.low, "high": ci.high})
    return pd.DataFrame(rows)
