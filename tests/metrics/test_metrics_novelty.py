import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcreativity.metrics import semantic_novelty, semantic_novelty_batch


def test_novelty_matches_hand_value_and_names_nearest_chunk():
    chunks = np.array([[0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    n = semantic_novelty(np.array([1.0, 0.0]), chunks)
    assert n.nearest == 1
    assert n.novelty == pytest.approx(1 - 1 / math.sqrt(2))
    assert n.similarity == pytest.approx(1 / math.sqrt(2))


def test_novelty_is_two_for_a_story_opposite_to_every_chunk():
    assert semantic_novelty(np.array([1.0, 0.0]), np.array([[-1.0, 0.0]])).novelty == pytest.approx(2.0)


@given(st.integers(0, 10_000))
def test_novelty_lies_in_zero_two_and_batch_equals_single(seed):
    rng = np.random.default_rng(seed)
    chunks, stories = rng.normal(size=(30, 5)), rng.normal(size=(7, 5))
    batch = semantic_novelty_batch(stories, chunks, block=3)
    for s, b in zip(stories, batch, strict=True):
        single = semantic_novelty(s, chunks)
        assert 0 <= b.novelty <= 2
        assert b.nearest == single.nearest
        assert b.novelty == pytest.approx(single.novelty, abs=1e-12)


def test_novelty_rejects_mismatched_widths():
    with pytest.raises(ValueError, match="width 3 but the reference has width 2"):
        semantic_novelty(np.ones(3), np.ones((4, 2)))
    with pytest.raises(ValueError, match="same embedder"):
        semantic_novelty_batch(np.ones((2, 3)), np.ones((4, 2)))


def test_novelty_rejects_zero_story_vector():
    with pytest.raises(ValueError, match="zero vector"):
        semantic_novelty(np.zeros(2), np.ones((4, 2)))
