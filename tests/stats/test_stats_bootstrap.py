import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.stats import (
    ConfidenceInterval,
    accuracy,
    bootstrap_ci,
    bootstrap_difference,
    bootstrap_draws,
    cohen_kappa,
    holm_table,
)


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


def test_bootstrap_draws_are_the_resamples_bootstrap_ci_takes_its_quantiles_of():
    x = np.random.default_rng(2).normal(size=30)
    draws = bootstrap_draws([x], np.mean, n_resamples=500, seed=7)
    ci = bootstrap_ci([x], np.mean, n_resamples=500, seed=7)
    assert (ci.low, ci.high) == tuple(np.quantile(draws, [0.025, 0.975]))
    assert bootstrap_draws([x[:1]], np.mean).size == 0


def test_bootstrap_difference_of_a_statistic_with_itself_is_zero_and_of_a_clear_gap_is_significant():
    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    same = bootstrap_difference([x], [x], np.mean, n_resamples=300)
    assert (same.diff, same.low, same.high, same.p) == (0.0, 0.0, 0.0, 1.0) and np.isnan(same.dz)
    gap = bootstrap_difference([x, x + 2.0], [x, x], lambda a, b: float(np.mean(b - a)), n_resamples=300)
    assert gap.diff == pytest.approx(2.0) and gap.low > 1.0 and gap.p == 0.0
    assert np.isnan(bootstrap_difference([x[:1]], [x[:1]], np.mean).p)


def test_holm_adjusts_only_the_defined_p_values_as_one_family():
    table = pd.DataFrame({"p": [0.01, np.nan, 0.04, 0.03]})
    out = holm_table(table, alpha=0.05)
    assert out["p_holm"].tolist()[::2] == pytest.approx([0.03, 0.06]) and np.isnan(out["p_holm"].iloc[1])
    assert out["p_holm"].iloc[3] == pytest.approx(0.06)
    assert out["significant"].tolist() == [True, False, False, False]
    assert list(out.columns) == ["p", "p_holm", "significant"]


def test_an_interval_read_from_a_table_keeps_its_numbers_and_knows_no_resamples():
    ci = ConfidenceInterval.of(0.4, 0.1, 0.7, 12)
    assert (ci.estimate, ci.low, ci.high, ci.n, ci.confidence, ci.n_resamples) == (0.4, 0.1, 0.7, 12, 0.95, 0)
