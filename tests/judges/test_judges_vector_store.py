import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.judges import Fragment, NumpyVectorStore


def frag(i: int) -> Fragment:
    return Fragment(f"f{i}", f"text {i}", "a", 1)


def test_a_store_filled_in_two_batches_counts_and_searches_them_as_one():
    s = NumpyVectorStore()
    assert len(s) == 0
    s.add([frag(0), frag(1)], np.array([[1.0, 0.0], [0.0, 1.0]]))
    s.add([frag(2)], np.array([[3.0, 0.0]]))  # f0's direction: a tie with f0, broken by insertion order
    assert len(s) == 3
    hits = s.search(np.array([1.0, 0.0]), k=3)
    assert [(h.fragment.id, h.rank) for h in hits] == [("f0", 1), ("f2", 2), ("f1", 3)]
    assert [h.score for h in hits] == pytest.approx([1.0, 1.0, 0.0])


def test_search_ranks_by_cosine_worked_by_hand():
    s = NumpyVectorStore()
    s.add([frag(0), frag(1), frag(2)], np.array([[1, 0], [1, 1], [0, 3]], dtype=float))
    hits = s.search(np.array([2.0, 0.0]), k=2)
    assert [h.fragment.id for h in hits] == ["f0", "f1"]
    assert hits[0].score == pytest.approx(1.0) and hits[1].score == pytest.approx(1 / np.sqrt(2))
    assert [h.rank for h in hits] == [1, 2]


def test_search_returns_at_most_the_stored_count():
    s = NumpyVectorStore()
    s.add([frag(0)], np.array([[1.0, 0.0]]))
    assert len(s.search(np.array([0.0, 1.0]), k=5)) == 1


def test_empty_store_returns_nothing():
    assert NumpyVectorStore().search(np.array([1.0]), k=3) == []


def test_add_rejects_mismatched_rows_and_dimensions():
    s = NumpyVectorStore()
    with pytest.raises(ValueError, match="one embedding row per fragment"):
        s.add([frag(0), frag(1)], np.array([[1.0, 0.0]]))
    s.add([frag(0)], np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError, match="dimension"):
        s.add([frag(1)], np.array([[1.0, 0.0, 0.0]]))


def test_add_rejects_duplicate_ids():
    s = NumpyVectorStore()
    s.add([frag(0)], np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError, match="f0"):
        s.add([frag(0)], np.array([[0.0, 1.0]]))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(0, 12), st.integers(0, 1000))
def test_search_scores_are_sorted_and_match_brute_force(n, k, seed):
    rng = np.random.default_rng(seed)
    v, q = rng.normal(size=(n, 5)), rng.normal(size=5)
    s = NumpyVectorStore()
    s.add([frag(i) for i in range(n)], v)
    hits = s.search(q, k)
    brute = sorted((float(x @ q / np.linalg.norm(x) / np.linalg.norm(q)) for x in v), reverse=True)[:k]
    assert [h.score for h in hits] == pytest.approx(brute, abs=1e-5)
