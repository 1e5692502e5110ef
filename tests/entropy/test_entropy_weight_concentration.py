"""The weight diagnostic of the probability-weighted SEs: effective number of samples and top share, per step."""

import math

import numpy as np
import pandas as pd
import pytest

from llmcreativity.entropy.chains import Candidate, Chain, StepResult, StepwiseSettings
from llmcreativity.entropy.se_estimators import probability_weighted_semantic_entropy
from llmcreativity.entropy.weight_concentration import (
    WEIGHTINGS,
    step_log_weights,
    weight_concentration,
    weight_summary,
    weight_table,
)
from llmcreativity.entropy.weight_figure import panel_table, plot_weight_concentration, weight_words, weighted_steps
from llmcreativity.llm.generate_config import GenerateConfig


def test_equal_weights_give_every_sample_and_one_dominant_weight_gives_one():
    assert weight_concentration([-5.0] * 10) == pytest.approx((10.0, 0.1))
    n, top = weight_concentration([-3.0, -40.0, -55.0, -70.0])
    assert n == pytest.approx(1.0, abs=1e-9) and top == pytest.approx(1.0, abs=1e-9)


def test_it_matches_the_direct_formula_and_survives_weights_below_the_smallest_float():
    lw = np.array([-1.0, -2.0, -2.5, -4.0])
    w = np.exp(lw)
    direct = (w.sum() ** 2 / (w ** 2).sum(), w.max() / w.sum())
    assert weight_concentration(lw) == pytest.approx(direct)
    assert weight_concentration(lw - 2000.0) == pytest.approx(direct)  # exp(-2000) underflows to 0 in floats


def test_no_finite_weight_is_nan_and_nan_input_is_refused():
    assert all(math.isnan(v) for v in weight_concentration([-math.inf, -math.inf]))
    with pytest.raises(ValueError, match="NaN"):
        weight_concentration([0.0, float("nan")])


def _candidate(text: str, logprobs: tuple[float, ...]) -> Candidate:
    return Candidate(text, logprobs, False, "stop")


def _step(index: int, texts: list[str], logprobs: list[tuple[float, ...]], ids: list[int]) -> StepResult:
    cands = tuple(_candidate(t, lp) for t, lp in zip(texts, logprobs, strict=True))
    return StepResult(index, cands, tuple(ids), len(set(ids)), 0.0,
                      probability_weighted_semantic_entropy(ids, [c.sum_logprob for c in cands], texts), 0.0, 0, 0,
                      None, 0.0, 0.0)


def _chain(cid: str, temperature: float, steps: list[StepResult], model: str = "m1") -> Chain:
    settings = StepwiseSettings(GenerateConfig(n=10, temperature=temperature, max_tokens=48))
    return Chain(cid, f"p-{cid}", "macgyver", model, "judge", settings, tuple(steps), "cap")


def test_the_distinct_rule_keeps_one_sample_per_cluster_and_text_and_a_tokenless_sample_weighs_nothing():
    s = _step(1, ["cut", "cut", "tie", ""], [(-1.0,), (-1.0,), (-2.0, -2.0), ()], [0, 0, 1, 2])
    assert step_log_weights(s) == [-1.0, -1.0, -4.0, -math.inf]
    assert step_log_weights(s, "sequence", "distinct") == [-1.0, -4.0, -math.inf]
    assert step_log_weights(s, "mean_token", "every") == [-1.0, -1.0, -2.0, -math.inf]
    with pytest.raises(ValueError, match="score"):
        step_log_weights(s, "sum")


def test_a_step_of_ten_clusters_whose_weight_sits_on_one_sample_has_near_zero_se_p_and_n_eff_one():
    # the recorded run's pattern at T = 1.5: ten clusters, sequence log-probabilities spread over tens of nats
    rng = np.random.default_rng(0)
    lps = [tuple(rng.uniform(-6, -0.5, size=int(rng.integers(8, 48)))) for _ in range(10)]
    lps[3] = (-0.2,) * 4  # one short, likely sample
    hot = _step(1, [f"idea {i}" for i in range(10)], lps, list(range(10)))
    cold = _step(1, ["same"] * 10, [(-0.1, -0.1)] * 10, [0] * 10)
    table = weight_table([_chain("a", 1.5, [hot]), _chain("b", 0.3, [cold])], {"m1": "model one"})
    assert list(table["model_name"]) == ["model one", "model one"]
    hot_row, cold_row = table.iloc[0], table.iloc[1]
    assert hot.se_probability < 0.01 and hot_row["n_clusters"] == 10
    assert hot_row["n_eff_probability"] == pytest.approx(1.0, abs=1e-3)
    assert hot_row["top_share_probability"] > 0.99
    assert hot_row["n_eff_length_normalized"] > 2  # mean token scores spread the weight
    assert cold_row["n_eff_probability"] == pytest.approx(10.0)
    assert cold_row["n_eff_probability_distinct"] == pytest.approx(1.0)  # one distinct text
    assert {f"n_eff_{s}" for s in WEIGHTINGS} <= set(table.columns)


def _weighted_steps() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    chains = []
    for t, spread in ((0.3, 0.2), (1.5, 8.0)):
        for k in range(3):
            steps = []
            for i in range(1, 3):
                lps = [tuple(-np.abs(rng.normal(0.3, spread / 4, size=10))) for _ in range(10)]
                ids = [0] * 10 if t == 0.3 else list(range(10))
                steps.append(_step(i, [f"{t}-{k}-{i}-{j}" for j in range(10)], lps, ids))
            chains.append(_chain(f"c{t}{k}", t, steps))
    weights = weight_table(chains, {"m1": "model one"})
    steps_table = weights[["chain", "step", "model_name", "temperature", "n_clusters"]].assign(
        se_discrete=lambda d: np.log(d["n_clusters"]), se_length_normalized=0.5, se_probability=0.1,
        se_probability_distinct=0.2, n=10)
    return weighted_steps(steps_table, weights)


def test_the_summary_and_the_figures_table_pool_steps_by_model_and_temperature():
    table = _weighted_steps()
    summary = weight_summary(table)
    assert list(summary["temperature"]) == [0.3, 1.5] and list(summary["steps"]) == [6, 6]
    assert summary["median_n_eff_probability"].iloc[0] > summary["median_n_eff_probability"].iloc[1]
    drawn = panel_table(table)
    assert drawn.loc[drawn["temperature"] == 1.5, "n_clusters"].item() == 10


def test_the_figure_is_readable_at_column_width_and_its_words_follow_the_numbers():
    import matplotlib

    matplotlib.use("Agg")
    table = _weighted_steps()
    fig = plot_weight_concentration(table)
    assert fig.get_size_inches()[0] <= 7.01 and len(fig.axes) == 9
    assert all(ax.title.get_fontsize() >= 9 for ax in fig.axes)
    words = weight_words(table)
    assert "number of clusters per step rises from 1.0-1.0 at T = 0.3 to 10.0-10.0 at T = 1.5" in words
    # with the weight spread at T = 1.5 the words say the verdicts do not rest on one sample; concentrated, they do
    flat = table.assign(n_eff_probability=5.0, top_share_probability=0.2)
    assert "do not rest on one sample's weight" in weight_words(flat)
    heavy = table.assign(n_eff_probability=1.01, top_share_probability=0.99)
    assert "one sample holds SE_P's weight" in weight_words(heavy) and "100% of the steps" in weight_words(heavy)
