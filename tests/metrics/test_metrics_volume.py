import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.metrics import VolumeReference, logdet_cov, volume_gain_direct


def test_volume_gain_matches_hand_values_in_one_dimension():
    # R = {0, 2}: var = 2. Adding 1 gives {0,1,2}: var = 1; adding 4 gives {0,2,4}: var = 4 (ddof = 1).
    ref = np.array([[0.0], [2.0]])
    assert volume_gain_direct(ref, np.array([1.0]), eps=0.0) == pytest.approx(-math.log(2))
    assert volume_gain_direct(ref, np.array([4.0]), eps=0.0) == pytest.approx(math.log(2))
    assert VolumeReference.fit(ref, eps=0.0).gain(np.array([[1.0], [4.0]])) == pytest.approx(
        [-math.log(2), math.log(2)]
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 40), st.integers(1, 12), st.sampled_from([1e-6, 1e-3, 0.1]))
def test_fast_volume_gain_equals_direct(seed, n, d, eps):
    rng = np.random.default_rng(seed)
    ref = rng.normal(size=(n, d))
    if n <= d:
        eps = max(eps, 1e-3)  # Cov(ref) is singular: the ridge carries the determinant
    stories = rng.normal(size=(4, d)) * rng.uniform(0.1, 3)
    fast = VolumeReference.fit(ref, eps).gain(stories)
    direct = [volume_gain_direct(ref, y, eps) for y in stories]
    np.testing.assert_allclose(fast, direct, atol=1e-6, rtol=0)


@given(st.integers(0, 10_000))
def test_volume_gain_ignores_order_of_reference_rows(seed):
    rng = np.random.default_rng(seed)
    ref, stories = rng.normal(size=(20, 5)), rng.normal(size=(3, 5))
    shuffled = ref[rng.permutation(20)]
    np.testing.assert_allclose(
        VolumeReference.fit(shuffled).gain(stories), VolumeReference.fit(ref).gain(stories), atol=1e-9
    )


def test_story_far_from_the_reference_gains_more_volume():
    rng = np.random.default_rng(0)
    ref = rng.normal(size=(100, 3))
    near, far = ref.mean(axis=0), ref.mean(axis=0) + 10
    g = VolumeReference.fit(ref).gain(np.vstack([near, far]))
    assert g[0] < 0 < g[1]


def test_logdet_cov_matches_numpy_definition():
    x = np.array([[0.0, 1.0], [2.0, 0.0], [1.0, 3.0]])
    assert logdet_cov(x, eps=0.5) == pytest.approx(np.linalg.slogdet(np.cov(x.T) + 0.5 * np.eye(2))[1])


def test_volume_gain_errors_name_the_fix():
    with pytest.raises(ValueError, match="same embedder"):
        VolumeReference.fit(np.eye(3)).gain(np.ones((1, 2)))
    with pytest.raises(ValueError, match="raise eps"):
        VolumeReference.fit(np.ones((4, 2)), eps=0.0)
    with pytest.raises(ValueError, match="at least 2"):
        VolumeReference.fit(np.ones((1, 2)))
    with pytest.raises(ValueError, match="eps"):
        volume_gain_direct(np.eye(3), np.ones(3), eps=-1.0)
