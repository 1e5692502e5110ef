"""The semantic-entropy chapter's grid, tables, correlations, verdicts B1-B4 and figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from entropy_helpers import FirstWordJudge
from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings
from llmcreativity.entropy.analysis import spearman_with_ci
from llmcreativity.entropy.domains import Problem
from llmcreativity.entropy.entailment import EmbeddingSimilarityJudge, LLMEntailmentJudge
from llmcreativity.entropy.entropy_claims import (
    CHAIN_PAIRS,
    STEP_PAIRS,
    check_similarity_embedder,
    is_entailment,
    se_correlations,
    se_verdicts,
    verdict_table,
)
from llmcreativity.entropy.entropy_figures import plot_entropy_panels
from llmcreativity.entropy.entropy_tables import (
    chain_table,
    ending_table,
    model_step_table,
    solution_text,
    temperature_summary,
)
from llmcreativity.entropy.grid import run_grid
from llmcreativity.llm import CachedBackend, ScriptedBackend, ScriptedEmbedder
from llmcreativity.pipeline.claim_records import claim_text


def grid(tmp_path):
    def load(name):
        return CachedBackend(ScriptedBackend(lambda p, i: ["cut the rope", "tie a knot", "STOP"][i % 3]), cache=None)

    problems = {"macgyver": [Problem("m-1", "macgyver", "Escape."), Problem("m-2", "macgyver", "Climb.")],
                "scifi100": []}
    settings = [StepwiseSettings(STEP_SAMPLING.merge(n=3, temperature=t), step_cap=2) for t in (0.5, 1.0)]
    run = run_grid(["smollm2-135m"], FirstWordJudge(), problems, settings, tmp_path / "chains.jsonl", load=load)
    return run, problems


def test_run_grid_runs_every_problem_and_setting_and_names_the_model(tmp_path):
    run, _ = grid(tmp_path)
    assert len(run.chains) == 4 and set(run.names.values()) == {"smollm2-135m"}
    assert list(run.usage["model"].unique()) == ["smollm2-135m"]
    again, _ = grid(tmp_path)  # resumes from the file
    assert [c.id for c in again.chains] == [c.id for c in run.chains]


def test_run_grid_rejects_a_domain_without_a_prompt(tmp_path):
    with pytest.raises(ValueError, match="have no step prompt"):
        run_grid([], FirstWordJudge(), {"poetry": []}, [], tmp_path / "c.jsonl")


def test_chain_table_keeps_the_chosen_steps_as_a_list_and_averages_the_steps(tmp_path):
    run, problems = grid(tmp_path)
    steps = model_step_table(run.chains, ScriptedEmbedder(), run.names)
    assert set(steps["params_m"]) == {135}
    table = chain_table(steps, run.chains, {p.id: p.text for ps in problems.values() for p in ps})
    assert len(table) == 4 and table["problem"].iloc[0] in ("Escape.", "Climb.")
    first = run.chains[0]
    row = table.set_index("chain").loc[first.id]
    assert list(row["solution_steps"]) == list(first.solution)
    assert row["se_discrete"] == pytest.approx(np.mean([s.se_discrete for s in first.steps]))
    summary = temperature_summary(table)
    assert list(summary["chains"]) == [2, 2]


def test_ending_table_counts_finished_capped_and_empty_chains_per_model_and_temperature():
    chains = pd.DataFrame({"model_name": ["a"] * 4 + ["b"] * 2, "temperature": [0.3, 0.3, 0.3, 1.5, 0.3, 0.3],
                           "ended": ["stop", "cap", "stop", "empty", "cap", "cap"]})
    table = ending_table(chains)
    assert table.loc[("a", 0.3)].tolist() == pytest.approx([3, 2, 1, 0, 2 / 3])
    assert table.loc[("a", 1.5), ["finished", "empty"]].tolist() == [0, 1]
    assert table.loc[("b", 0.3), ["capped", "finished_share"]].tolist() == [2, 0.0]
    assert list(table.columns) == ["chains", "finished", "capped", "empty", "finished_share"]


def test_solution_text_numbers_the_steps():
    assert solution_text(["a", "b"]) == "Step 1: a\nStep 2: b" and solution_text([]) == ""


def _tables():
    """Chains and steps built to show B1, B3 and B4: 6 problems (5 chains and 5 steps each), 2 domains."""
    rng = np.random.default_rng(0)
    t = np.repeat([0.3, 0.6, 0.9, 1.2, 1.5], 6)
    problems = np.tile([f"p{k}" for k in range(6)], 5)
    domain = np.where(np.isin(problems, ["p0", "p1", "p2"]), "macgyver", "hypogen-astro")
    se = t + rng.normal(0, 0.05, t.size)
    chains = pd.DataFrame({"temperature": t, "problem_id": problems, "domain": domain, "se_probability": se,
                           "se_discrete": se, "se_length_normalized": se, "se_probability_distinct": se,
                           "params_m": np.tile([135, 270], 15), "model_name": np.tile(["a", "b"], 15),
                           "n_clusters": 1, "mean_cosine": 0.5})
    c = np.arange(30) % 5 + 1.0
    steps = pd.DataFrame({"n_clusters": c, "problem_id": problems, "domain": domain, "se_discrete": np.log(c),
                          "se_probability": np.log(c), "se_length_normalized": np.log(c),
                          "se_probability_distinct": np.log(c), "mean_cosine": 1 / c, "distinct_2": c,
                          "self_bleu": 1 / c, "model_name": "a"})
    return chains, steps


def test_se_verdicts_come_from_the_primary_se_over_problems_overall_and_per_domain():
    chains, steps = _tables()
    corr = se_correlations(chains, steps, n_resamples=200)
    assert len(corr) == 3 * (len(CHAIN_PAIRS) + len(STEP_PAIRS))  # all domains, then each of the two
    assert set(corr["domain"]) == {"all", "macgyver", "hypogen-astro"}
    assert (corr.loc[corr["domain"] == "all", "n_groups"] == 6).all()
    verdicts = se_verdicts(corr, "test data", entailment=True)
    assert {k: v.label for k, v in verdicts.items() if k != "B2"} == {
        "B1": "supported", "B3": "supported", "B4": "supported"}
    b1 = verdicts["B1"]
    assert claim_text("B1", b1) == "SE rises with sampling temperature (test data)." and b1.n == 6
    assert b1.statistic > 0.9
    assert "probability-weighted" in b1.measure and "over 6 problems" in b1.measure
    per_domain = verdict_table(corr, "test data", entailment=True)
    assert len(per_domain) == 12 and set(per_domain["domain"]) == {"all", "macgyver", "hypogen-astro"}
    fig = plot_entropy_panels(chains, steps)
    assert len(fig.axes) == 4


def test_the_size_panel_leaves_out_chains_of_an_endpoint_model_of_unknown_size():
    chains, steps = _tables()
    one_unknown = chains.assign(params_m=chains["params_m"].where(chains.index > 0))
    assert "(1 chains of unknown size left out)" in plot_entropy_panels(one_unknown, steps).axes[1].get_title()
    none_known = plot_entropy_panels(chains.assign(params_m=float("nan")), steps).axes[1]
    assert [t.get_text() for t in none_known.texts] == ["no model of known size"]


def test_embedding_approximation_clusters_never_decide_a_verdict():
    chains, steps = _tables()
    corr = se_correlations(chains, steps, n_resamples=100)
    verdicts = se_verdicts(corr, "test data", entailment=False)
    assert {v.label for v in verdicts.values()} == {"not testable here"}
    assert all("embedding-similarity approximation" in v.reason for v in verdicts.values())


def test_only_the_embedding_approximation_counts_as_not_entailment():
    emb = ScriptedEmbedder()
    assert is_entailment(FirstWordJudge()) and is_entailment(LLMEntailmentJudge(ScriptedBackend(lambda p, i: "")))
    assert not is_entailment(EmbeddingSimilarityJudge(emb))


def test_b4_refuses_the_clustering_embedder_as_the_similarity_embedder():
    with pytest.raises(ValueError, match="also clusters the candidates.*another similarity embedder"):
        check_similarity_embedder(EmbeddingSimilarityJudge(ScriptedEmbedder()), ScriptedEmbedder())
    other = ScriptedEmbedder(identity="other")
    check_similarity_embedder(EmbeddingSimilarityJudge(ScriptedEmbedder()), other)  # a different embedder is fine
    check_similarity_embedder(FirstWordJudge(), ScriptedEmbedder())  # entailment clusters: any embedder


def test_chain_level_intervals_resample_problems_not_chains():
    # 4 problems x 5 chains; the chains of a problem are copies, so only 4 independent points exist
    rng = np.random.default_rng(1)
    x0, y0 = rng.normal(size=4), rng.normal(size=4)
    x, y, g = np.repeat(x0, 5), np.repeat(y0, 5), np.repeat(["a", "b", "c", "d"], 5)
    by_problem = spearman_with_ci(x, y, groups=g, n_resamples=300)
    by_row = spearman_with_ci(x, y, n_resamples=300)
    assert by_problem["n"] == 20 and by_problem["n_groups"] == 4 and by_row["n_groups"] == 20
    assert by_problem["high"] - by_problem["low"] > by_row["high"] - by_row["low"]  # rows pretend 20 points


class TemperatureBackend:
    """Samples k = 1 + floor(3 T) different first words at temperature T (every reply 3 tokens of log p -1);
    the temperature-0 call answers "Greedy step"."""

    identity = "temperature-scripted"

    def __init__(self):
        self.inner = ScriptedBackend(lambda p, i: "")

    def generate(self, prompts, config):
        from llmcreativity.llm.types import Completion, Usage

        words = ["cut", "tie", "pull", "push", "fold", "wrap"]
        k = 1 + int(3 * config.temperature)
        texts = ["Greedy step now"] if config.temperature == 0 else [f"{words[i % k]} the rope" for i in
                                                                       range(config.n)]
        return [[Completion(t, t.split(), [-1.0] * 3, "stop", Usage(1, 3, 0.0)) for t in texts] for _ in prompts]

    def score(self, context, continuation):
        return self.inner.score(context, continuation)

    def answer_probs(self, prompt, answers):
        return self.inner.answer_probs(prompt, answers)

    def count_tokens(self, text):
        return len(text.split())


def test_b1_verdict_runs_from_entailment_clusters_through_problem_level_intervals(tmp_path):
    from llmcreativity.entropy.domains import hypogen_astro_problems, macgyver_problems

    problems = {"macgyver": macgyver_problems(limit=3), "hypogen-astro": hypogen_astro_problems(limit=3)}
    settings = [StepwiseSettings(STEP_SAMPLING.merge(n=6, temperature=t), step_cap=1) for t in (0.3, 0.9, 1.5)]
    for judge, decides in ((FirstWordJudge(), True), (EmbeddingSimilarityJudge(ScriptedEmbedder(), threshold=0.99),
                                                       False)):
        run = run_grid(["smollm2-135m"], judge, problems, settings, tmp_path / f"{decides}.jsonl",
                       load=lambda name: CachedBackend(TemperatureBackend(), cache=None))
        assert all(c.solution == ("Greedy step now",) for c in run.chains)
        steps = model_step_table(run.chains, ScriptedEmbedder(), run.names)
        table = chain_table(steps, run.chains, {p.id: p.text for ps in problems.values() for p in ps})
        corr = se_correlations(table, steps, n_resamples=200)
        b1 = se_verdicts(corr, "scripted", entailment=is_entailment(judge))["B1"]
        if decides:
            assert b1.label == "supported" and b1.statistic == pytest.approx(1.0) and b1.n == 6
            assert "over 6 problems" in b1.measure
        else:
            assert b1.label == "not testable here"


def test_the_bands_beside_the_verdicts_resample_problems_from_the_verdicts_seed():
    """A band is the cluster bootstrap over problems of the cell's mean, seeded like the verdicts: the same seed gives
    the same band, and it is exactly `cluster_bootstrap_ci` over the cell's problems."""
    from llmcreativity.entropy.entropy_figures import mean_bands
    from llmcreativity.stats.bootstrap import cluster_bootstrap_ci

    chains, steps = _tables()
    bands = mean_bands(chains, "temperature", "model_name", n_resamples=300, seed=7)
    assert bands.equals(mean_bands(chains, "temperature", "model_name", n_resamples=300, seed=7))
    first = bands.iloc[0]
    cell = chains[(chains["model_name"] == first["hue"]) & (chains["temperature"] == first["x"])]
    ci = cluster_bootstrap_ci([cell["se_probability"].to_numpy()], cell["problem_id"].to_numpy(), np.mean,
                              n_resamples=300, seed=7)
    assert (first["low"], first["high"], first["problems"]) == (ci.low, ci.high, cell["problem_id"].nunique())
    fig = plot_entropy_panels(chains, steps, n_resamples=100, seed=7)
    assert len(fig.axes[0].collections) == chains["model_name"].nunique()  # one band per model
