"""Sample sizes for a stated CI half-width: textbook values, simulations of what the formulas promise, and the
degenerate pilots that must come back as `NotReachable`, never inf or an exception."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llmcreativity.stats.sample_size import (
    MIN_N,
    NotReachable,
    correlation_half_width,
    design_effect,
    fisher_z,
    n_for_correlation,
    n_for_mean,
    n_for_paired_proportions,
    n_for_proportion,
    n_for_ratio,
    z_quantile,
)


def test_mean_matches_the_textbook_case():
    # sigma = 15 (an IQ scale), margin of error 5 at 95 %: n = (1.96 x 15 / 5)^2 = 34.6 -> 35
    assert n_for_mean(15.0, 5.0) == 35
    assert n_for_mean(15.0, 5.0, confidence=0.99) == math.ceil((2.5758 * 3) ** 2)


def test_proportion_matches_the_textbook_poll():
    assert n_for_proportion(0.5, 0.05) == 385
    assert n_for_proportion(0.5, 0.03) == 1068


def test_correlation_inverts_fishers_standard_error():
    # Pearson: SE(z) = 1 / sqrt(n - 3); at n = 103 the half-width is 1.96 x 0.1
    assert n_for_correlation(0.0, 0.196, spearman=False) == 103
    # Spearman's variance factor 1 + r^2 / 2 (Bonett & Wright) at r = 0.6: 1.18 x 100 + 3
    assert n_for_correlation(0.6, 0.196) == math.ceil(1.18 * (z_quantile() / 0.196) ** 2 + 3)


def test_a_family_of_tests_needs_more_units():
    assert z_quantile(tests=4) == pytest.approx(2.4977, abs=1e-4)
    assert n_for_mean(1.0, 0.5, tests=4) == math.ceil((2.4977 / 0.5) ** 2)
    assert n_for_mean(1.0, 0.5, tests=4) > n_for_mean(1.0, 0.5)


def test_clustered_units_scale_by_the_design_effect_and_the_points_per_unit():
    iid = n_for_correlation(0.3, 0.2, spearman=False)
    assert isinstance(iid, int)
    points = 3 * (z_quantile() / 0.2) ** 2 + 3
    assert n_for_correlation(0.3, 0.2, design_effect=3.0, points_per_unit=4.0, spearman=False) == math.ceil(points / 4)


def test_paired_proportions_use_the_variance_of_the_differences():
    first = np.array([1, 1, 1, 0, 1, 0, 1, 1, 0, 0])
    second = np.array([1, 0, 1, 0, 0, 1, 1, 1, 0, 0])
    d = first - second
    discordant, delta = float((d != 0).mean()), float(d.mean())
    assert n_for_paired_proportions(discordant, delta, 0.1) == n_for_mean(float(d.std(ddof=0)), 0.1)
    assert n_for_paired_proportions(0.3, 0.1, 0.1) == 112


def test_ratio_size_reaches_its_half_width_in_simulation():
    rng = np.random.default_rng(7)
    b = rng.gamma(4.0, 250.0, size=4000)              # a population of per-item baseline tokens
    a = 0.4 * b + rng.normal(0, 120.0, size=b.size)    # the judge's tokens: a saving near 60 %
    half_width = 0.03
    n = n_for_ratio(a, b, half_width)  # sized from the population's own spread
    assert isinstance(n, int) and n > MIN_N
    savings = []
    for _ in range(1000):
        idx = rng.choice(b.size, n, replace=True)
        savings.append(1 - a[idx].sum() / b[idx].sum())
    reached = z_quantile() * float(np.std(savings))
    assert reached == pytest.approx(half_width, rel=0.12)


def _clustered(icc: float, groups: int = 40, per_group: int = 5, seed: int = 0):
    """x and y, independent of each other, each with intraclass correlation `icc` within groups."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(groups), per_group)

    def draw():
        return math.sqrt(icc) * rng.standard_normal(groups)[g] + math.sqrt(1 - icc) * rng.standard_normal(g.size)
    return draw(), draw(), g


def test_design_effect_recovers_the_kish_factor_in_simulation():
    # for a correlation of two clustered variables D ~ 1 + (m - 1) icc_x icc_y = 1 + 4 x 0.64 = 3.56
    x, y, g = _clustered(0.8)
    assert 2.4 < design_effect(x, y, g, n_resamples=500, seed=1) < 5.0
    x, y, g = _clustered(0.0)
    assert 1.0 <= design_effect(x, y, g, n_resamples=500, seed=1) < 1.4


def test_sizes_never_fall_below_two():
    assert n_for_mean(0.1, 10.0) == MIN_N
    assert n_for_proportion(0.5, 0.9) == MIN_N


@pytest.mark.parametrize("size", [
    lambda: n_for_mean(0.0, 0.1),
    lambda: n_for_mean(1.0, 0.0),
    lambda: n_for_mean(float("nan"), 0.1),
    lambda: n_for_proportion(1.0, 0.1),
    lambda: n_for_paired_proportions(0.0, 0.0, 0.1),
    lambda: n_for_correlation(1.0, 0.2),
    lambda: n_for_correlation(float("nan"), 0.2),
    lambda: n_for_correlation(0.3, 0.0),
    lambda: n_for_ratio([2.0, 4.0], [1.0, 2.0], 0.1),  # a_i = 2 b_i exactly: no residual variance
    lambda: n_for_ratio([1.0], [2.0], 0.1),
    lambda: design_effect([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], ["a", "a", "a"]),
    lambda: design_effect([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], ["a", "a", "b", "b"]),
], ids=["sd 0", "h 0", "sd nan", "p 1", "no discordance", "perfect rho", "rho nan", "rho on the boundary",
        "exact ratio", "one unit", "one group", "constant side"])
def test_a_degenerate_pilot_is_not_reachable(size):
    result = size()
    assert isinstance(result, NotReachable) and result.reason


def test_invalid_inputs_raise_naming_the_value():
    with pytest.raises(ValueError, match="negative"):
        n_for_mean(-1.0, 0.1)
    with pytest.raises(ValueError, match="discordant"):
        n_for_paired_proportions(0.1, 0.3, 0.1)
    with pytest.raises(ValueError, match="confidence"):
        z_quantile(1.5)


def test_correlation_half_width_is_the_distance_to_the_nearer_boundary():
    assert correlation_half_width(0.1, [-0.3, 0.3]) == pytest.approx(fisher_z(0.3) - fisher_z(0.1))
    assert correlation_half_width(-0.5, [0.0]) == pytest.approx(abs(fisher_z(-0.5)))
    assert correlation_half_width(0.3, [-0.3, 0.3]) == 0.0
