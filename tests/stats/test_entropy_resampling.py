"""The cluster bootstrap the semantic-entropy correlations use: whole problems are resampled, not rows."""

import numpy as np
import pytest

from llmcreativity.stats import bootstrap_ci, spearman
from llmcreativity.stats.bootstrap import cluster_bootstrap_ci, cluster_bootstrap_spearman_ci


def test_cluster_bootstrap_draws_whole_groups():
    # each group's rows are copies: resampling groups must equal resampling one row per group with the same draws
    values = np.array([1.0, 4.0, 2.0, 8.0, 5.0])
    rows = np.repeat(values, 3)
    groups = np.repeat(["g1", "g2", "g3", "g4", "g5"], 3)
    clustered = cluster_bootstrap_ci([rows], groups, np.mean, n_resamples=400, seed=3)
    per_group = bootstrap_ci([values], np.mean, n_resamples=400, seed=3)
    assert clustered.n == 5 and clustered.estimate == pytest.approx(values.mean())
    assert (clustered.low, clustered.high) == pytest.approx((per_group.low, per_group.high))
    by_row = bootstrap_ci([rows], np.mean, n_resamples=400, seed=3)
    assert by_row.high - by_row.low < clustered.high - clustered.low  # rows pretend 15 independent points


def test_cluster_bootstrap_keeps_a_groups_rows_together():
    # statistic = share of rows from group "a" whose partner row (same group) is present: always 1 if groups stay whole
    groups = np.repeat(["a", "b", "c"], 2)
    ids = np.arange(6, dtype=float)

    def whole(rows):
        present = set(rows.tolist())
        return float(all(((r // 2) * 2 in present) and ((r // 2) * 2 + 1 in present) for r in present))

    ci = cluster_bootstrap_ci([ids], groups, whole, n_resamples=200)
    assert (ci.low, ci.high) == (1.0, 1.0)


def test_cluster_bootstrap_rejects_bad_groups():
    with pytest.raises(ValueError, match="one group label per row"):
        cluster_bootstrap_ci([[1.0, 2.0, 3.0]], ["a", "b"], np.mean)
    with pytest.raises(ValueError, match="at least 2 groups"):
        cluster_bootstrap_ci([[1.0, 2.0]], ["a", "a"], np.mean)


@pytest.mark.parametrize("n_groups, seed", [(3, 0), (6, 1), (12, 2)])
def test_the_vectorized_spearman_bootstrap_gives_the_loop_interval(n_groups, seed):
    # ties within and across groups, uneven group sizes, a few constant resamples when groups are few
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5, size=n_groups)
    groups = np.repeat([f"p{g}" for g in range(n_groups)], sizes)
    x = rng.integers(0, 4, size=groups.size).astype(float)
    y = x + rng.integers(0, 3, size=groups.size)
    loop = cluster_bootstrap_ci([x, y], groups, lambda u, v: spearman(u, v)[0], n_resamples=300, seed=seed)
    fast = cluster_bootstrap_spearman_ci(x, y, groups, n_resamples=300, seed=seed)
    assert (fast.n, fast.n_resamples, fast.n_undefined) == (loop.n, loop.n_resamples, loop.n_undefined)
    assert fast.estimate == pytest.approx(loop.estimate)
    assert (fast.low, fast.high) == pytest.approx((loop.low, loop.high), abs=1e-9)


def test_the_vectorized_spearman_bootstrap_leaves_out_constant_resamples_like_the_loop():
    x, y = np.array([1.0, 1.0, 2.0, 3.0, 5.0]), np.array([2.0, 1.0, 2.0, 4.0, 4.0])
    groups = np.array(["a", "a", "b", "b", "c"])  # only "a" drawn: x constant; only "c": one row
    loop = cluster_bootstrap_ci([x, y], groups, lambda u, v: spearman(u, v)[0], n_resamples=500, seed=4)
    fast = cluster_bootstrap_spearman_ci(x, y, groups, n_resamples=500, seed=4)
    assert fast.n_undefined == loop.n_undefined > 0
    assert (fast.low, fast.high) == pytest.approx((loop.low, loop.high), abs=1e-9)
