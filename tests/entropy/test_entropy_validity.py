"""The entailment judge's agreement with the MuseScorer coders, for the claims ledger's judge gate."""

import pandas as pd
import pytest

from entropy_helpers import FirstWordJudge
from llmcreativity.entropy.validity import entailment_validity

IDEAS = pd.DataFrame({
    "id": range(12), "round_id": [1] * 12,
    "idea_content": ["doorstop a", "doorstop b", "doorstop c", "hat a", "hat b", "hat c",
                     "vase a", "vase b", "vase c", "bowl a", "bowl b", "bowl c"],
    "ali": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3], "krish": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3],
})


def test_a_judge_that_matches_the_coders_is_clearly_above_chance_and_one_that_lumps_everything_is_not():
    class Everything(FirstWordJudge):
        def entails(self, pairs, context=None):
            return [True] * len(pairs)

    table = entailment_validity(IDEAS, 1, 12, 1, {"first word": FirstWordJudge(), "all one": Everything()},
                                n_resamples=300).set_index("judge")
    assert table.loc["first word", "ari"] == pytest.approx(1.0) and table.loc["first word", "low"] > 0.5
    assert table.loc["all one", "ari"] == pytest.approx(0.0) and table.loc["all one", "high"] <= 1e-9
    assert set(table["n"]) == {12}


def test_repeats_pool_the_samples_and_zero_repeats_are_refused():
    table = entailment_validity(IDEAS, 1, 6, 2, {"first word": FirstWordJudge()}, n_resamples=50)
    assert table["n"].iloc[0] == 12
    with pytest.raises(ValueError, match="repeats=0"):
        entailment_validity(IDEAS, 1, 6, 0, {"first word": FirstWordJudge()})


def test_the_interval_keeps_each_drawn_idea_once_so_a_chance_judge_is_not_lifted_above_chance():
    import numpy as np

    from llmcreativity.entropy.validity import mean_ari
    from llmcreativity.stats import distinct_bootstrap_ci

    rng = np.random.default_rng(3)
    coders = [[str(v) for v in rng.integers(0, 3, 8)] for _ in range(2)]
    lows = []
    for s in range(20):
        judge = [str(v) for v in np.random.default_rng(100 + s).integers(0, 3, 8)]  # unrelated to the coders
        ci = distinct_bootstrap_ci([judge, *coders], mean_ari, n_resamples=300, seed=s)
        assert ci.low <= ci.estimate <= ci.high or not np.isfinite(ci.estimate)
        lows.append(ci.low)
    assert sum(low > 0 for low in lows) <= 2  # a chance judge is rarely called better than chance
