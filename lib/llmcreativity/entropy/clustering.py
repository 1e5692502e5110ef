"""Bidirectional-entailment clustering against cluster representatives.

A sample joins the first cluster whose representative (its first member) it entails *and* is
entailed by; otherwise it founds a new cluster. Samples are compared with representatives only,
never with every earlier sample, so the judge sees at most 2 * N * K pairs for N samples and K
clusters instead of the N (N - 1) ordered pairs of all-pairs clustering. Identical texts
(after stripping whitespace) share a cluster without asking the judge.

A judge that partitions whole sets (it has a `partition(texts)` method, such as the judge laboratory's confirmed
equivalence judge, `judgelab.score.ConfirmedEquivalenceJudge`) is asked for the partition instead; each cluster's
representative is then its first member, and no pair is counted as asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .entailment import EmbeddingSimilarityJudge, EntailmentJudge


@dataclass(frozen=True)
class Clustering:
    """A partition of samples into meaning clusters."""

    ids: tuple[int, ...]
    """Cluster id of each sample, numbered 0, 1, ... in order of first appearance."""
    representatives: tuple[int, ...]
    """Index of each cluster's representative (its first member), by cluster id."""
    judge_calls: int
    """(premise, hypothesis) pairs the judge was asked about while building this partition."""

    @property
    def n_clusters(self) -> int:
        """Number of clusters K."""
        return len(self.representatives)


def cluster_by_bidirectional_entailment(
    texts: Sequence[str], judge: EntailmentJudge, *, context: str | None = None, batch_size: int = 4
) -> Clustering:
    """Partition `texts`: i joins cluster c iff judge says text_i => rep_c and rep_c => text_i.

    Representatives are tried in order of cluster creation, `batch_size` at a time (both
    directions of each in one judge call); the first representative that passes both directions
    wins. `batch_size=1` is the plain sequential algorithm; larger batches trade a few extra
    judged pairs for fewer, larger judge calls.
    """
    if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a sequence of strings (one per sample), not a single string")
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}: must be >= 1")
    partition = getattr(judge, "partition", None)
    if partition is not None:
        given = [int(i) for i in partition(list(texts))]
        firsts: dict[int, int] = {}
        for i, c in enumerate(given):
            firsts.setdefault(c, i)
        if len(given) != len(texts) or list(firsts) != list(range(len(firsts))):
            raise ValueError(f"{judge.identity}: give one cluster id per text, numbered 0, 1, ... in order of first "
                             "appearance")
        return Clustering(tuple(given), tuple(firsts.values()), 0)
    if isinstance(judge, EmbeddingSimilarityJudge):
        judge.embed(list(texts))  # one encoder batch for all texts instead of one per new text
    return representative_clustering(texts, judge, context, batch_size)


def representative_clustering(texts: Sequence[str], judge: EntailmentJudge, context: str | None,
                              batch_size: int) -> Clustering:
    """The loop of `cluster_by_bidirectional_entailment`: each text joins the first cluster, in order of creation,
    whose representative it entails and that entails it; else it founds a new cluster. Identical texts (after
    stripping) share a cluster without a judge call."""
    ids: list[int] = []
    reps: list[int] = []
    by_text: dict[str, int] = {}
    calls = 0
    for i, text in enumerate(texts):
        key = text.strip()
        if key in by_text:
            ids.append(by_text[key])
            continue
        found = None
        for start in range(0, len(reps), batch_size):
            chunk = reps[start : start + batch_size]
            pairs = [p for r in chunk for p in ((text, texts[r]), (texts[r], text))]
            verdicts = judge.entails(pairs, context)
            calls += len(pairs)
            match = [c for k, c in enumerate(range(start, start + len(chunk)))
                     if verdicts[2 * k] and verdicts[2 * k + 1]]
            if match:
                found = match[0]
                break
        if found is None:
            found = len(reps)
            reps.append(i)
        by_text[key] = found
        ids.append(found)
    return Clustering(tuple(ids), tuple(reps), calls)
