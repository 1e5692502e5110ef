"""The semantic-equivalence job: do two ideas say the same thing? Judges that cluster MuseScorer's alternate-uses
ideas, compared on three objects and confirmed on the two others.

Items: the 5,703 ideas of MuseScorer (`data.musescorer.load_musescorer`), grouped by object (the round). The
split holds out `TEST_OBJECTS` objects, drawn with `SPLIT_SEED`; a judge is fitted and tuned on the others.

A judge here is a similarity of every pair of ideas of one object and a rule that turns it into a partition:
- "cosine greedy (E)", the baseline: the project's embedding judge as the semantic-entropy stage runs it
  (`entropy.EmbeddingSimilarityJudge`, clustered against representatives by
  `entropy.clustering.cluster_by_bidirectional_entailment`; computed here from the cosine matrix by
  `greedy_partition`), at the cosine threshold tuned on development;
- "cosine average (E)": average-linkage agglomerative clustering of 1 - cosine, cut at 1 - threshold;
- "pair classifier (average)" and "pair classifier (components)": a logistic head (`heads`) on the pair features
  (`ObjectPairs.pair_rows`: the cosine under each embedder and the content-word overlap) trained on the
  development objects' pairs, labelled "same idea" by either coder's buckets (one row per coder and pair, so both
  partitions train it), then average-linkage clustering of 1 - p(same), or the connected components of
  p(same) >= threshold.
Every threshold is chosen on development by the mean ARI against the two coders. The development comparison leaves
one development object out at a time (fit and tune on the other development objects, score the one left out); the
choice is the protocol with the highest such mean ARI (`CHOICE_RULE`).

Agreement on the test objects: the ARI of the judge's partition with each coder's, per object, and their mean (the
gating statistic, 0 at chance), with a 95 % interval from resampling ideas within each object (each drawn idea kept
once: `stats.distinct_bootstrap_ci`'s rule) and the baseline's on the same resamples (paired); the pairwise
precision and recall of "same idea" against each coder; the coders' ARI with each other is the ceiling.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import squareform

from ..data.musescorer import CODERS, ROUND_OBJECTS
from ..llm.backend import TextEmbedder
from ..stats.agreement import adjusted_rand
from ..stats.bootstrap import ConfidenceInterval
from .features import content_words
from .heads import FittedHead, fit_head
from .splits import Split, split_groups

JOB = "entailment"
"""The job's id: the `JudgeKind` of the claims it gates (B1-B4, B7, B8)."""
TEST_OBJECTS = 2
"""Objects in the test split (of five)."""
SPLIT_SEED = 20261203
"""The seed that draws the test objects, fixed before any judge was scored."""
THRESHOLDS: tuple[float, ...] = tuple(round(t, 2) for t in np.arange(0.30, 0.96, 0.05))
"""Cosine or p(same) thresholds tried on development."""
NEGATIVES_PER_OBJECT = 60_000
"""Pairs of different ideas (by both coders) drawn per development object to train the pair classifier, beside
every pair that either coder put together; a seeded draw."""
BASELINE = "cosine greedy"
"""The prefix of the baseline protocol's name."""
CHOICE_RULE = ("the protocol other than the baseline with the highest mean ARI against the two coders, each "
               "development object scored by a judge fitted and tuned on the other development objects")
"""How the judge is chosen, stated before the development comparison was run."""


@dataclass(frozen=True)
class ObjectPairs:
    """Everything a judge needs about one object's ideas."""

    object: str
    """The object, e.g. "shoe"."""
    ideas: tuple[str, ...]
    """Its ideas' texts."""
    coders: dict[str, np.ndarray]
    """Coder -> bucket of each idea."""
    cosines: dict[str, np.ndarray]
    """Embedder -> n x n cosine matrix."""
    jaccard: np.ndarray
    """n x n content-word overlap."""

    def pair_rows(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The pair features of pairs (i[k], j[k]): each embedder's cosine (sorted by name), then the overlap."""
        return np.column_stack([*(self.cosines[e][i, j] for e in sorted(self.cosines)), self.jaccard[i, j]])

    def feature_names(self) -> list[str]:
        """Names of `pair_rows`' columns."""
        return [f"cos:{e}" for e in sorted(self.cosines)] + ["jaccard"]


def idea_items(ideas: pd.DataFrame) -> pd.DataFrame:
    """MuseScorer ideas with a `group` column: the object of the round."""
    return ideas.assign(group=ideas["round_id"].map(ROUND_OBJECTS))


def equivalence_split(items: pd.DataFrame, *, seed: int = SPLIT_SEED, test_objects: int = TEST_OBJECTS) -> Split:
    """The job's split of the objects: `test_objects` of them drawn with `seed`."""
    objects = sorted(set(items["group"]))
    return split_groups(JOB, objects, test_share=test_objects / len(objects), seed=seed)


def jaccard_matrix(texts: Sequence[str]) -> np.ndarray:
    """n x n content-word overlap |A & B| / |A | B| (`features.content_words`; 0 where both have none, 1 on the
    diagonal), from one sparse product."""
    words = [content_words(t) for t in texts]
    vocab = {w: k for k, w in enumerate(sorted(set().union(*words)))}
    rows = [r for r, ws in enumerate(words) for _ in ws]
    cols = [vocab[w] for ws in words for w in ws]
    a = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), max(len(vocab), 1)))
    both: np.ndarray = np.asarray((a @ a.T).todense(), dtype=float)
    sizes = np.array([len(ws) for ws in words], dtype=float)
    union = sizes[:, None] + sizes[None, :] - both
    jac: np.ndarray = np.divide(both, union, out=np.zeros_like(both), where=union > 0)
    np.fill_diagonal(jac, 1.0)
    return jac


def object_pairs(items: pd.DataFrame, embedders: Mapping[str, TextEmbedder]) -> dict[str, ObjectPairs]:
    """Object -> its `ObjectPairs`, embedding each idea once per embedder."""
    out = {}
    for obj, g in items.groupby("group", sort=True):
        texts = g["idea_content"].astype(str).tolist()
        cos = {}
        for name, emb in embedders.items():
            v = np.asarray(emb.encode(texts), dtype=np.float64)
            cos[name] = np.clip(v @ v.T, -1.0, 1.0)
        out[str(obj)] = ObjectPairs(str(obj), tuple(texts), {c: g[c].to_numpy() for c in CODERS}, cos,
                                    jaccard_matrix(texts))
    return out


def training_pairs(objects: Sequence[ObjectPairs], *, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, labels, groups) for the pair classifier: per object and coder, every pair the coder put together
    (label 1) and the pairs of a seeded draw of `NEGATIVES_PER_OBJECT` pairs neither coder put together (label 0)."""
    rng = np.random.default_rng(seed)
    xs, ys, gs = [], [], []
    for o in objects:
        i, j = np.triu_indices(len(o.ideas), k=1)
        same = {c: o.coders[c][i] == o.coders[c][j] for c in CODERS}
        either = np.logical_or.reduce(list(same.values()))
        negatives = np.flatnonzero(~either)
        negatives = rng.choice(negatives, size=min(NEGATIVES_PER_OBJECT, negatives.size), replace=False)
        for c in CODERS:
            pick = np.concatenate([np.flatnonzero(same[c]), negatives])
            xs.append(o.pair_rows(i[pick], j[pick]))
            ys.append(same[c][pick].astype(float))
            gs.append(np.full(pick.size, o.object))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(gs)


def fit_pair_classifier(objects: Sequence[ObjectPairs], split_sha256: str, *, seed: int = 0) -> FittedHead:
    """The logistic pair head trained on `objects` (`training_pairs`); its C chosen by folds over the objects."""
    x, y, g = training_pairs(objects, seed=seed)
    return fit_head("logistic", x, y, list(g), objects[0].feature_names(), split_sha256=split_sha256)


def similarity(o: ObjectPairs, protocol: str, head: FittedHead | None) -> np.ndarray:
    """The n x n similarity a protocol clusters: a cosine, or the pair head's p(same)."""
    if protocol.startswith("pair classifier"):
        if head is None:
            raise ValueError(f"protocol {protocol!r} needs its fitted pair head")
        i, j = np.triu_indices(len(o.ideas), k=1)
        s = np.eye(len(o.ideas))
        s[i, j] = s[j, i] = head.score(o.pair_rows(i, j))
        return s
    embedder = protocol[protocol.index("(") + 1:protocol.rindex(")")]
    return o.cosines[embedder]


def greedy_partition(texts: Sequence[str], cosine: np.ndarray, threshold: float) -> np.ndarray:
    """The baseline's partition, computed from the cosine matrix:
    `entropy.clustering.cluster_by_bidirectional_entailment` with `entropy.EmbeddingSimilarityJudge` at
    `threshold` (an idea joins the first cluster, in order of creation, whose representative's cosine with it
    reaches the threshold; identical texts share a cluster), without asking the judge pair by pair.
    `tests/judgelab/test_judgelab.py` checks it against the project's judge."""
    ids = np.empty(len(texts), dtype=int)
    reps: list[int] = []
    by_text: dict[str, int] = {}
    for i, text in enumerate(texts):
        key = text.strip()
        if key in by_text:
            ids[i] = by_text[key]
            continue
        hit = np.flatnonzero(cosine[i, reps] >= threshold) if reps else np.array([], dtype=int)
        if hit.size:
            ids[i] = hit[0]
        else:
            ids[i] = len(reps)
            reps.append(i)
        by_text[key] = int(ids[i])
    return ids


def partitions(o: ObjectPairs, protocol: str, thresholds: Sequence[float], head: FittedHead | None
               ) -> dict[float, np.ndarray]:
    """Threshold -> cluster ids of `o`'s ideas under `protocol` (one linkage serves every threshold)."""
    s = similarity(o, protocol, head)
    if protocol.startswith(BASELINE):
        return {t: greedy_partition(o.ideas, s, t) for t in thresholds}
    if protocol.endswith("(components)"):
        return {t: connected_components(csr_matrix((s >= t).astype(np.int8)), directed=False)[1] for t in thresholds}
    tree = linkage(squareform(np.clip(1.0 - s, 0.0, 2.0), checks=False), method="average")
    return {t: fcluster(tree, t=1.0 - t, criterion="distance") for t in thresholds}


def partition(o: ObjectPairs, protocol: str, threshold: float, head: FittedHead | None) -> np.ndarray:
    """Cluster ids of `o`'s ideas under `protocol` at `threshold`."""
    return partitions(o, protocol, [threshold], head)[threshold]


def mean_ari(labels: np.ndarray, o: ObjectPairs, rows: np.ndarray | None = None) -> float:
    """Mean ARI of `labels` with the two coders' buckets (on `rows` only when given)."""
    r = slice(None) if rows is None else rows
    return float(np.mean([adjusted_rand(o.coders[c][r], labels[r]) for c in CODERS]))


def tune(objects: Sequence[ObjectPairs], protocol: str, head: FittedHead | None) -> tuple[float, float]:
    """(threshold, its mean ARI over `objects` and coders): the best of `THRESHOLDS`."""
    each = [partitions(o, protocol, THRESHOLDS, head) for o in objects]
    scores = [np.mean([mean_ari(parts[t], o) for parts, o in zip(each, objects, strict=True)]) for t in THRESHOLDS]
    best = int(np.argmax(scores))
    return THRESHOLDS[best], float(scores[best])


def protocols(embedders: Sequence[str]) -> list[str]:
    """Every protocol compared, the baseline first."""
    return ([f"{BASELINE} ({e})" for e in embedders] + [f"cosine average ({e})" for e in embedders]
            + ["pair classifier (average)", "pair classifier (components)"])


def develop(objects: Mapping[str, ObjectPairs], split: Split, embedders: Sequence[str], *,
            seed: int = 0) -> pd.DataFrame:
    """The leave-one-development-object-out comparison: one row per (protocol, object left out) with the threshold
    tuned on the other development objects and the ARI with each coder."""
    rows = []
    dev = [objects[g] for g in split.dev]
    for held in dev:
        rest = [o for o in dev if o.object != held.object]
        head = fit_pair_classifier(rest, split.sha256, seed=seed)
        for p in protocols(embedders):
            t, _ = tune(rest, p, head)
            labels = partition(held, p, t, head)
            rows.append({"protocol": p, "object": held.object, "ideas": len(held.ideas), "threshold": t,
                         "clusters": int(len(np.unique(labels))),
                         **{f"ari_{c}": adjusted_rand(held.coders[c], labels) for c in CODERS}})
    table = pd.DataFrame(rows)
    table["ari"] = table[[f"ari_{c}" for c in CODERS]].mean(axis=1)
    return table


def choose(development: pd.DataFrame) -> str:
    """`CHOICE_RULE` applied to the development table: the chosen protocol's name."""
    means = development[~development["protocol"].str.startswith(BASELINE)].groupby("protocol", sort=True)["ari"].mean()
    return str(means.sort_values(ascending=False, kind="stable").index[0])


def pair_precision_recall(labels: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """Of the pairs the judge puts together, the share the coder does (precision), and of the coder's, the share
    the judge does (recall)."""
    i, j = np.triu_indices(len(labels), k=1)
    judged, coded = labels[i] == labels[j], reference[i] == reference[j]
    both = float((judged & coded).sum())
    return both / max(float(judged.sum()), 1.0), both / max(float(coded.sum()), 1.0)


def resampled_agreement(partitions: Mapping[str, Mapping[str, np.ndarray]], objects: Sequence[ObjectPairs],
                        statistic: Callable[[str, ObjectPairs, np.ndarray], float], *, n_resamples: int = 1000,
                        seed: int = 0) -> dict[str, np.ndarray]:
    """Judge -> the B resampled values of the mean over `objects` of `statistic(judge, object, rows)`, where
    each resample draws every object's ideas with replacement and keeps each drawn idea once; one draw of rows per
    object and resample serves every judge (paired). `partitions` is judge -> object -> labels."""
    rng = np.random.default_rng(seed)
    draws = {judge: np.empty(n_resamples) for judge in partitions}
    for b in range(n_resamples):
        rows = {o.object: np.unique(rng.integers(0, len(o.ideas), len(o.ideas))) for o in objects}
        for judge in partitions:
            draws[judge][b] = np.mean([statistic(judge, o, rows[o.object]) for o in objects])
    return draws


def interval(estimate: float, draws: np.ndarray, n: int) -> ConfidenceInterval:
    """The 95 % percentile interval of `draws` around `estimate`, over `n` ideas."""
    low, high = np.percentile(draws, [2.5, 97.5])
    return ConfidenceInterval(float(estimate), float(low), float(high), 0.95, n, int(draws.size), 0)
