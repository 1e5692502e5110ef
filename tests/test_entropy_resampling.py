"""The cluster bootstrap the semantic-entropy correlations use: whole problems are resampled, not rows."""

import numpy as np
import pytest

from llmcreativity.stats import bootstrap_ci
from llmcreativity.stats.bootstrap import cluster_bootstrap_ci


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
