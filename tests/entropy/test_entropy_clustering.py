"""Bidirectional-entailment clustering against cluster representatives."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.entropy.clustering import cluster_by_bidirectional_entailment


class RuleJudge:
    """Test double: A entails B when `rule(A, B)`; records every pair it was asked."""

    identity = "rule"

    def __init__(self, rule):
        self.rule = rule
        self.calls = 0
        self.asked = []
        self.batches = 0

    def entails(self, pairs, context=None):
        self.calls += len(pairs)
        self.batches += 1
        self.asked.extend(pairs)
        return [self.rule(a, b) for a, b in pairs]


def same_first_word(a, b):
    return a.split()[0] == b.split()[0]


def test_texts_with_the_same_meaning_share_a_cluster():
    c = cluster_by_bidirectional_entailment(["cut rope", "tie knot", "cut string", "tie bow"],
                                            RuleJudge(same_first_word))
    assert c.ids == (0, 1, 0, 1)
    assert c.representatives == (0, 1)
    assert c.n_clusters == 2


def test_one_way_entailment_starts_a_new_cluster():
    # "a b" entails "a" (it says more) but "a" does not entail "a b"
    judge = RuleJudge(lambda p, h: set(h.split()) <= set(p.split()))
    assert cluster_by_bidirectional_entailment(["a", "a b"], judge).ids == (0, 1)


def test_candidates_are_compared_with_representatives_only():
    judge = RuleJudge(same_first_word)
    texts = ["x 1", "x 2", "x 3", "y 1"]
    cluster_by_bidirectional_entailment(texts, judge, batch_size=1)
    reps = {"x 1", "y 1"}
    assert all(a in reps or b in reps for a, b in judge.asked)
    # x2 and x3 against x1 (2 pairs each), y1 against x1 (2 pairs)
    assert judge.calls == 6


def test_judge_calls_are_counted_in_the_result():
    judge = RuleJudge(lambda a, b: False)
    c = cluster_by_bidirectional_entailment(["a", "b", "c", "d"], judge, batch_size=1)
    # all distinct: 0 + 1 + 2 + 3 representatives, two directions each
    assert c.judge_calls == judge.calls == 12


def test_identical_texts_cost_no_judge_call():
    judge = RuleJudge(lambda a, b: False)
    c = cluster_by_bidirectional_entailment(["same", " same ", "same"], judge)
    assert c.ids == (0, 0, 0)
    assert judge.calls == 0


def test_batching_sends_several_representatives_in_one_call():
    judge = RuleJudge(lambda a, b: False)
    cluster_by_bidirectional_entailment(["a", "b", "c", "d", "e"], judge, batch_size=4)
    assert judge.batches == 4  # one call per new candidate: it sees all (<= 4) representatives at once


def test_context_reaches_the_judge():
    seen = []

    class ContextJudge(RuleJudge):
        def entails(self, pairs, context=None):
            seen.append(context)
            return super().entails(pairs, context)

    cluster_by_bidirectional_entailment(["a", "b"], ContextJudge(lambda a, b: True), context="the problem")
    assert seen == ["the problem"]


def test_single_string_is_rejected():
    with pytest.raises(ValueError, match="sequence of strings"):
        cluster_by_bidirectional_entailment("abc", RuleJudge(lambda a, b: True))


def test_batch_size_zero_is_rejected():
    with pytest.raises(ValueError, match="batch_size"):
        cluster_by_bidirectional_entailment(["a"], RuleJudge(lambda a, b: True), batch_size=0)


words = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=1, max_size=12)


@settings(max_examples=50, deadline=None)
@given(words, st.integers(1, 5))
def test_partition_does_not_depend_on_batch_size(first_words, batch):
    texts = [f"{w} {i}" for i, w in enumerate(first_words)]
    one = cluster_by_bidirectional_entailment(texts, RuleJudge(same_first_word), batch_size=1)
    many = cluster_by_bidirectional_entailment(texts, RuleJudge(same_first_word), batch_size=batch)
    assert one.ids == many.ids


@settings(max_examples=50, deadline=None)
@given(words)
def test_equivalence_judge_recovers_its_classes_within_the_pair_budget(first_words):
    texts = [f"{w} {i}" for i, w in enumerate(first_words)]
    c = cluster_by_bidirectional_entailment(texts, RuleJudge(same_first_word), batch_size=1)
    truth = {w: k for k, w in enumerate(dict.fromkeys(first_words))}
    assert c.ids == tuple(truth[w] for w in first_words)
    assert c.judge_calls <= 2 * len(texts) * c.n_clusters
    assert c.judge_calls <= len(texts) * (len(texts) - 1)


def test_embedding_judge_encodes_all_texts_in_one_batch():
    from llmcreativity.entropy.entailment import EmbeddingSimilarityJudge
    from llmcreativity.llm import ScriptedEmbedder

    emb = ScriptedEmbedder(lambda t: [t.count("a") + 1e-6, t.count("b") + 1e-6])
    c = cluster_by_bidirectional_entailment(["a", "aa", "b", "bb"], EmbeddingSimilarityJudge(emb, threshold=0.9))
    assert c.ids == (0, 0, 1, 1)
    assert emb.batches == [["a", "aa", "b", "bb"]]
