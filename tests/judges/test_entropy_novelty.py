"""Claim B8 (solution-level SE against an LLM novelty rating) and problem-level resampling of B6."""

import math

import numpy as np
import pandas as pd
import pytest

from llmcreativity.judges.divergent import novelty_claim, novelty_messages, novelty_scores, novelty_table
from llmcreativity.llm.types import AnswerDistribution, Usage
from llmcreativity.pipeline.claim_records import claim_text


class StepCountRater:
    """Rates a solution's novelty by its number of steps (1 step -> mostly "1", 3 steps -> mostly "3")."""

    identity = "step-count-rater"

    def __init__(self):
        self.prompts = []

    def answer_probs(self, prompt, answers):
        self.prompts.append(prompt)
        k = prompt[-1]["content"].count("Step ")
        lp = {a: (0.0 if int(a) == k else -3.0) for a in answers}
        z = sum(math.exp(v) for v in lp.values())
        return AnswerDistribution({a: math.exp(v) / z for a, v in lp.items()}, lp, Usage(1, 1))


def chain_rows(n_problems=6):
    rows = []
    for p in range(n_problems):
        for k in (1, 2, 3):
            rows.append({"chain": f"c{p}{k}", "problem_id": f"p{p}", "domain": "macgyver", "problem": f"Problem {p}",
                         "solution_steps": [f"do {j}" for j in range(k)], "se_probability": k + 0.01 * p})
    return pd.DataFrame(rows)


def test_novelty_scores_read_the_expected_rating_of_each_chains_own_solution():
    rater = StepCountRater()
    scored = novelty_scores(chain_rows(2), rater)
    assert len(rater.prompts) == 6 and "Problem 0" in rater.prompts[0][-1]["content"]
    assert "Step 1: do 0" in rater.prompts[0][-1]["content"]
    ordered = scored.sort_values("se_probability")["novelty"].to_numpy()
    assert np.all(np.diff(ordered[::2]) > 0) and 1 < scored["novelty"].min() < scored["novelty"].max() < 5
    assert "Answer with one digit" in novelty_messages("p", "s")[-1]["content"]


def test_novelty_claim_is_decided_only_on_entailment_clusters_with_problem_level_intervals():
    scored = novelty_scores(chain_rows(), StepCountRater())
    v = novelty_claim(scored, "se_probability", "rater", entailment=True, n_resamples=200)
    assert v.label == "supported" and v.statistic > 0.9 and v.n == 6  # problems, the resampled unit
    assert "over 6 problems" in v.measure and claim_text("B8", v).startswith("Over 18 chains (macgyver; 6 problems)")
    approx = novelty_claim(scored, "se_probability", "rater", entailment=False, n_resamples=50)
    assert approx.label == "not testable here" and "embedding-similarity approximation" in approx.reason


def test_the_kept_novelty_table_holds_each_chains_se_and_rating_and_decides_b8_alike():
    scored = novelty_scores(chain_rows(), StepCountRater())
    kept = novelty_table(scored)
    assert len(kept) == len(scored) and {"problem", "solution_steps"}.isdisjoint(kept.columns)
    assert {"chain", "problem_id", "domain", "se_probability", "novelty"} <= set(kept.columns)
    assert (novelty_claim(kept, "se_probability", "rater", entailment=True, n_resamples=200)
            == novelty_claim(scored, "se_probability", "rater", entailment=True, n_resamples=200))
    with pytest.raises(ValueError, match="novelty_scores first"):
        novelty_table(chain_rows())
