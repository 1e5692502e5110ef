"""The published profile against its committed pre-registration (`published/preregistration`): the claim table
carries every registered minimum, and the profile's sizes give every claim the registration sized at least that many
units, so that a run of the profile can reach every verdict it registered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llmcreativity.paths import PUBLISHED_REGISTRATION, REPO_ROOT
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.pipeline.planning import plan
from llmcreativity.pipeline.preregistration import registered_min_n
from llmcreativity.pipeline.record import resolved_parameters

REGISTRATION = REPO_ROOT / PUBLISHED_REGISTRATION


def _prompts(p: dict[str, dict[str, Any]]) -> int:
    review = p["review"]
    return (review["n_categories"] or 10) * (review["per_category"] or 10)


def _problems(p: dict[str, dict[str, Any]]) -> int:
    se = p["semantic_entropy"]
    return min(n for n in (se["n_problems"], se["n_hypogen"]) if n)  # a per-domain claim needs it in each domain


UNITS: dict[str, Callable[[dict[str, dict[str, Any]]], int]] = {
    "A1": _prompts, "A2": _prompts, "A3": lambda p: min(_prompts(p), p["baselines"]["large_prompts"] or 100),
    "A4": _prompts, "A5": lambda p: p["evaluation"]["hanna_n"],
    "B1": _problems, "B2": _problems, "B3": _problems, "B4": _problems, "B6": _problems, "B8": _problems,
    "B11": _problems,
    "B5": lambda p: p["judge_validation"]["n_items"], "B9": lambda p: p["judge_validation"]["n_items"],
    "B10": lambda p: p["judge_validation"]["n_items"],
    "B7": lambda p: p["entailment_validation"]["b7_sets"],
}
"""Claim -> the units of its `unit` a run with these resolved parameters (stage -> name -> value) gives it."""

def test_every_testable_claim_has_a_way_to_count_its_units():
    assert {c for c, spec in CLAIMS.items() if not spec.not_testable} == set(UNITS)


def test_the_claim_table_carries_the_registered_minimums():
    registered = registered_min_n(REGISTRATION)
    assert registered, "the registration sized no claim"
    assert {c: CLAIMS[c].min_n for c in registered} == registered


def test_the_published_profile_reaches_every_registered_minimum():
    parameters = {p.stage.name: resolved_parameters(p) for p in plan("published", [])}
    short = {c: (UNITS[c](parameters), n) for c, n in registered_min_n(REGISTRATION).items()
             if UNITS[c](parameters) < n}
    assert not short, f"claim -> (units the published profile gives, registered minimum): {short}"
