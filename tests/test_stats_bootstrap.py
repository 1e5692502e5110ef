import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.stats import accuracy, bootstrap_ci, cohen_kappa


def test_bootstrap_of_constant_sample_is_a_point():
    ci = bootstrap_ci([[2.0] * 10], np.mean)
    assert (ci.estimate, ci.low, ci.high) == (2.0, 2.0, 2.0)


def test_bootstrap_ci_of_mean_is_close_to_normal_theory():
    x = np.random.default_rng(1).normal(size=400)
    ci = bootstrap_ci([x], np.mean, n_resamples=3000)
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    assert ci.low == pytest.approx(x.mean() - half, abs=0.02)
    assert ci.high == pytest.approx(x.mean() + half, abs=0.02)


def test_bootstrap_resamples_paired_samples_jointly():
    y = [True, False] * 10
    ci = bootstrap_ci([y, y], accuracy)
    assert (ci.low, ci.high) == (1.0, 1.0)


def test_bootstrap_counts_undefined_resamples():
    ci = bootstrap_ci([[True, True, True, False], [True, True, True, False]], cohen_kappa, n_resamples=200)
    assert ci.n_undefined > 0 and ci.low == pytest.approx(1.0)


def test_bootstrap_is_reproducible_with_a_seed():
    x = np.arange(20.0)
    assert bootstrap_ci([x], np.mean, seed=3) == bootstrap_ci([x], np.mean, seed=3)


def test_bootstrap_rejects_unequal_paired_samples():
    with pytest.raises(ValueError, match="equally long"):
        bootstrap_ci([[1, 2, 3], [1, 2]], accuracy)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=2, max_size=30))
def test_bootstrap_interval_brackets_resample_range(x):
    ci = bootstrap_ci([x], np.mean, n_resamples=200)
    assert min(x) - 1e-9 <= ci.low <= ci.high <= max(x) + 1e-9
