"""The semantic-entropy chapter's grid, tables, correlations, verdicts B1-B4 and figure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from entropy_helpers import FirstWordJudge
from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings
from llmcreativity.entropy.claims import CHAIN_PAIRS, STEP_PAIRS, se_correlations, se_verdicts
from llmcreativity.entropy.domains import Problem
from llmcreativity.entropy.figures import plot_entropy_panels
from llmcreativity.entropy.grid import run_grid
from llmcreativity.entropy.tables import chain_table, model_step_table, solution_text, temperature_summary
from llmcreativity.llm import CachedBackend, ScriptedBackend


class CountEmbedder:
    identity = "counts"

    def encode(self, texts):
        return np.array([[len(t), t.count(" ") + 1.0] for t in texts], dtype=np.float32)


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
    steps = model_step_table(run.chains, CountEmbedder(), run.names)
    assert set(steps["params_m"]) == {135}
    table = chain_table(steps, run.chains, {p.id: p.text for ps in problems.values() for p in ps})
    assert len(table) == 4 and table["problem"].iloc[0] in ("Escape.", "Climb.")
    first = run.chains[0]
    row = table.set_index("chain").loc[first.id]
    assert list(row["solution_steps"]) == list(first.solution)
    assert row["se_discrete"] == pytest.approx(np.mean([s.se_discrete for s in first.steps]))
    summary = temperature_summary(table)
    assert list(summary["chains"]) == [2, 2]


def test_solution_text_numbers_the_steps():
    assert solution_text(["a", "b"]) == "Step 1: a\nStep 2: b" and solution_text([]) == ""


def _tables():
    rng = np.random.default_rng(0)
    t = np.repeat([0.3, 0.9, 1.5], 10)
    chains = pd.DataFrame({"temperature": t, "se_discrete": t + rng.normal(0, 0.05, t.size),
                           "se_probability": t, "se_length_normalized": t, "params_m": np.tile([135, 270], 15),
                           "model_name": np.tile(["a", "b"], 15), "n_clusters": 1, "mean_cosine": 0.5})
    c = np.arange(30) % 5 + 1.0
    steps = pd.DataFrame({"n_clusters": c, "se_discrete": np.log(c), "se_probability": np.log(c),
                          "mean_cosine": 1 / c, "distinct_2": c, "self_bleu": 1 / c, "model_name": "a"})
    return chains, steps


def test_se_verdicts_support_b1_b3_b4_on_data_built_to_show_them():
    chains, steps = _tables()
    corr = se_correlations(chains, steps, n_resamples=200)
    assert len(corr) == len(CHAIN_PAIRS) + len(STEP_PAIRS)
    verdicts = se_verdicts(corr, "test data")
    assert {k: v.label for k, (_, v) in verdicts.items() if k != "B2"} == {
        "B1": "supported", "B3": "supported", "B4": "supported"}
    text, b1 = verdicts["B1"]
    assert text == "SE rises with sampling temperature (test data)." and b1.n == 30 and b1.statistic > 0.9
    fig = plot_entropy_panels(chains, steps)
    assert len(fig.axes) == 4
