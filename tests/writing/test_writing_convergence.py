"""Claim A4 (Debate and Discussion converge over rounds, Review does not) from homogenization tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from llmcreativity.claims.verdicts import Verdict, all_of_verdict
from llmcreativity.pipeline.claim_records import claim_text
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.writing.convergence import a4_verdict, convergence


def homog_table(deltas: dict[str, float], n_prompts: int = CLAIMS["A4"].min_n, rounds: dict[str, int] | None = None,
                seed: int = 0):
    """H at round 0 and at the last round per framework and prompt; the last round's H = round 0 + delta + noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for f, d in deltas.items():
        last = (rounds or {}).get(f, 1)
        for i in range(n_prompts):
            base = 0.4 + 0.05 * rng.standard_normal()
            for r in range(last + 1):
                h = base + (d + 0.01 * rng.standard_normal()) * (r / last)
                rows.append({"framework": f, "prompt_id": f"p{i}", "round": r, "n_stories": 3,
                             "cosine": h, "self_bleu": h / 2})
    return pd.DataFrame(rows)


def test_convergence_is_last_round_minus_round_zero_per_prompt():
    h = homog_table({"debate": 0.2, "single": 0.0}, n_prompts=2, rounds={"debate": 3})
    delta = convergence(h).set_index(["framework", "prompt_id"])
    g = h[(h.framework == "debate") & (h.prompt_id == "p0")].set_index("round")
    assert delta.loc[("debate", "p0"), "cosine"] == g.loc[3, "cosine"] - g.loc[0, "cosine"]
    assert delta.loc[("debate", "p0"), "rounds"] == 3
    assert "single" in set(delta.index.get_level_values(0))


def test_a4_supported_when_interaction_converges_and_review_does_not():
    v = a4_verdict(homog_table({"debate": 0.2, "discussion": 0.15, "review": 0.0}))
    assert v.label == "supported", v.reason
    assert v.n == CLAIMS["A4"].min_n and "-Delta" in v.measure
    assert claim_text("A4", v).startswith("Debate and Discussion stories converge")


def test_a4_not_supported_when_review_converges_as_much():
    v = a4_verdict(homog_table({"debate": 0.2, "discussion": 0.2, "review": 0.2}))
    assert v.label == "not supported"


def test_a4_not_supported_when_debate_diverges():
    v = a4_verdict(homog_table({"debate": -0.2, "discussion": 0.2, "review": -0.4}))
    assert v.label == "not supported" and "debate" in v.reason


def test_a4_is_inconclusive_on_few_prompts_and_not_testable_without_review():
    v = a4_verdict(homog_table({"debate": 0.2, "discussion": 0.15, "review": 0.0}, n_prompts=3))
    assert v.label == "inconclusive" and "too small" in v.reason
    v = a4_verdict(homog_table({"debate": 0.2, "discussion": 0.15}))
    assert v.label == "not testable here" and "review" in v.reason


def test_a4_resamples_prompts_not_writers():
    # Doubling every row (as if each prompt had twice the writers) must not narrow the interval.
    h = homog_table({"debate": 0.2, "discussion": 0.15, "review": 0.0})
    v1 = a4_verdict(h)
    v2 = a4_verdict(pd.concat([h, h]))
    assert (v1.ci_low, v1.ci_high, v1.n) == (v2.ci_low, v2.ci_high, v2.n)


def test_all_of_verdict_takes_the_primary_parts_statistic_unless_a_part_fails():
    yes, no, maybe = Verdict("supported", "a", 1.0), Verdict("not supported", "b"), Verdict("inconclusive", "c")
    assert all_of_verdict({"x": yes, "y": yes}, primary="x").label == "supported"
    assert all_of_verdict({"x": yes, "y": no, "z": maybe}, primary="x").label == "not supported"
    assert all_of_verdict({"x": yes, "z": maybe}, primary="x").statistic == 1.0
    assert all_of_verdict({"x": yes, "z": maybe}, primary="x").label == "inconclusive"
