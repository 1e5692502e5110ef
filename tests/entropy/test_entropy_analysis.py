"""Per-step tables and Spearman correlations with bootstrap intervals."""

import numpy as np
import pandas as pd
import pytest

from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings, run_chain
from llmcreativity.entropy.analysis import correlation_table, spearman_with_ci, step_table
from llmcreativity.entropy.domains import MACGYVER_PROMPT, Problem
from llmcreativity.llm import CachedBackend, ScriptedBackend, ScriptedEmbedder


class FirstWordJudge:
    identity = "first-word"
    calls = 0

    def entails(self, pairs, context=None):
        return [a.split()[0] == b.split()[0] for a, b in pairs]


def test_step_table_has_one_row_per_step_with_diversity():
    lm = CachedBackend(ScriptedBackend(lambda p, i: ["cut the rope now", "tie a knot"][i % 2]), cache=None)
    chain = run_chain(lm, FirstWordJudge(), Problem("m-1", "macgyver", "Escape."), MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING.merge(n=4), step_cap=2))
    df = step_table([chain], ScriptedEmbedder())
    assert len(df) == 2
    row = df.iloc[0]
    assert row["n_clusters"] == 2 and row["se_discrete"] == pytest.approx(np.log(2))
    # words: cut the rope now tie a knot x2 -> 7 distinct of 14
    assert row["distinct_1"] == pytest.approx(0.5)
    assert 0 < row["mean_cosine"] <= 1 + 1e-9 and 0 <= row["self_bleu"] <= 1 + 1e-9


def test_the_distinct_rule_is_undefined_when_every_kept_candidate_has_no_token():
    # met in the default run: an empty step sampled first with zero tokens, then again with one whitespace token
    from types import SimpleNamespace

    from llmcreativity.entropy.analysis import _distinct_rule
    from llmcreativity.entropy.chains import Candidate
    from llmcreativity.entropy.se_estimators import probability_weighted_semantic_entropy as se_p

    empty, spaced, word = (Candidate("", (), False, "stop"), Candidate("", (-0.3,), False, "stop"),
                           Candidate("rope", (-1.0,), False, "stop"))
    undefined = SimpleNamespace(cluster_ids=(0, 0), candidates=(empty, spaced))
    assert np.isnan(_distinct_rule(undefined, se_p, [c.sum_logprob for c in undefined.candidates]))
    defined = SimpleNamespace(cluster_ids=(0, 0, 1), candidates=(empty, spaced, word))
    assert _distinct_rule(defined, se_p, [c.sum_logprob for c in defined.candidates]) == pytest.approx(0.0)


def test_spearman_of_a_monotone_relation_is_one():
    r = spearman_with_ci([1, 2, 3, 4, 5, 6], [1, 4, 9, 16, 25, 36], n_resamples=200)
    assert r["rho"] == pytest.approx(1.0) and r["n"] == 6
    assert r["low"] <= r["rho"] <= r["high"]


def test_spearman_drops_missing_pairs():
    r = spearman_with_ci([1, 2, np.nan, 4, 5], [5, 4, 3, np.nan, 1], n_resamples=100)
    assert r["n"] == 3 and r["rho"] == pytest.approx(-1.0)


def test_spearman_of_no_pair_is_undefined_not_an_error():
    # the sizes of endpoint models are unknown: every params_m is NaN
    r = spearman_with_ci([np.nan] * 4, [0.1, 0.2, 0.3, 0.4], groups=["a", "a", "b", "b"], n_resamples=50)
    assert (r["n"], r["n_groups"]) == (0, 0) and all(np.isnan(r[k]) for k in ("rho", "p", "low", "high"))


def test_correlation_table_names_missing_columns():
    with pytest.raises(KeyError, match="nope"):
        correlation_table(pd.DataFrame({"a": [1, 2, 3]}), [("a", "nope")])


def test_recluster_steps_compares_judges_on_stored_candidates():
    from llmcreativity.entropy.analysis import recluster_steps

    class AllSameJudge:
        identity = "all-same"
        calls = 0

        def entails(self, pairs, context=None):
            return [True] * len(pairs)

    lm = CachedBackend(ScriptedBackend(lambda p, i: ["cut the rope now", "tie a knot"][i % 2]), cache=None)
    chain = run_chain(lm, FirstWordJudge(), Problem("m-1", "macgyver", "Escape."), MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING.merge(n=4), step_cap=2))
    df = recluster_steps([chain], AllSameJudge(), max_steps=1)
    assert len(df) == 1
    row = df.iloc[0]
    assert row["clusters_stored"] == 2 and row["clusters_new"] == 1 and row["se_new"] == 0.0
    assert row["ari"] == pytest.approx(0.0) and row["judge_calls"] == 2
