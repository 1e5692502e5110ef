"""The published profile against its committed pre-registration (`published/preregistration`): the claim table
carries every registered minimum, and the profile's sizes give every claim the registration sized at least that many
units, so that a run of the profile can reach every verdict it registered."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from llmcreativity.claims.registration import registered_min_n
from llmcreativity.context import variable
from llmcreativity.paths import PUBLISHED_REGISTRATION, REPO_ROOT
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.pipeline.planning import plan
from llmcreativity.pipeline.record_compare import resolved_parameters

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


def test_a_claims_minimum_is_its_registrations_where_it_sized_the_claim_else_its_declarations(monkeypatch, tmp_path):
    """`declarations.min_n`: under a registration (given, or the one the runner put in the context) a claim it sized is
    decided at that minimum; a claim it did not size, and every claim of a run under no registration, at the
    declaration's (the first registration's), so the published record's verdicts replay unchanged."""
    import json

    from llmcreativity.claims import declarations
    from llmcreativity.claims.declarations import min_n

    folder = tmp_path / "registration"
    folder.mkdir(parents=True)
    claims = [{"claim_id": "B1", "terms": {"min_n": 23, "estimator": "", "verdict_rule": "", "rule_functions": {}}},
              {"claim_id": "A1", "terms": {"min_n": None, "estimator": "", "verdict_rule": "", "rule_functions": {}}}]
    (folder / "preregistration.json").write_text(json.dumps(
        {"claims": claims, "parser": {}, "tested": ["A1", "B1"], "not_testable": {}}))
    monkeypatch.delenv(variable("registration"), raising=False)
    assert min_n("B1", folder) == 23 and min_n("A1", folder) == CLAIMS["A1"].min_n
    assert min_n("B1") == CLAIMS["B1"].min_n
    monkeypatch.setenv(variable("profile"), "decisive")
    assert min_n("B1") == CLAIMS["B1"].min_n, "a profile's name alone decides no minimum"
    monkeypatch.setenv(variable("registration"), str(folder))
    assert min_n("B1") == 23
    assert declarations.min_n("B2") == CLAIMS["B2"].min_n  # not in its registration
    monkeypatch.setenv(variable("registration"), str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="missing"):
        min_n("B1")


def test_the_runner_hands_each_recorded_profile_its_registration_and_no_other_profile_one():
    """`paths.registration_folder` maps a recorded profile to its committed registration (`paths.RECORDS`), and the
    stage context carries it; the module that defines `min_n` names no profile."""
    import inspect

    from llmcreativity import paths
    from llmcreativity.claims import declarations
    from llmcreativity.pipeline.execution import stage_context
    from llmcreativity.pipeline.planning import plan

    for profile, (_, registration) in paths.RECORDS.items():
        assert paths.registration_folder(profile) == paths.REPO_ROOT / registration
        assert (paths.REPO_ROOT / registration / "preregistration.json").exists()
    assert paths.registration_folder("smoke") is None and paths.registration_folder("default") is None
    (p,) = plan("decisive", [], "backends")
    context = stage_context(p, "run", "hash", Path("usage.json"), None)
    assert context.registration == paths.REPO_ROOT / paths.DECISIVE_REGISTRATION and context.record is None
    source = inspect.getsource(declarations)
    for profile in ("default", "paper", "smoke", "pilot", "published", "decisive-pilot", "decisive"):
        assert f'"{profile}"' not in source and f"'{profile}'" not in source, profile


def test_the_redecisions_sizes_reach_every_minimum_its_registration_set():
    """The decisive profile's sizes against the committed second registration: semantic entropy's problems over
    both domains reach B1-B4's and B8's minimums, the prompts reach A2's and A4's, B7's sets the claim's."""
    from llmcreativity.claims.declarations import min_n
    from llmcreativity.paths import DECISIVE_REGISTRATION, REPO_ROOT
    from llmcreativity.pipeline.stages import DECISIVE_SIZES

    REGISTRATION_2 = REPO_ROOT / DECISIVE_REGISTRATION
    assert (REGISTRATION_2 / "preregistration.json").exists()
    se = DECISIVE_SIZES["semantic_entropy"]
    assert se["n_problems"] + se["n_hypogen"] >= max(min_n(c, REGISTRATION_2) for c in ("B1", "B2", "B3", "B4", "B8"))
    prompts = DECISIVE_SIZES["baselines"]["n_categories"] * DECISIVE_SIZES["baselines"]["per_category"]
    assert prompts == DECISIVE_SIZES["review"]["n_categories"] * DECISIVE_SIZES["review"]["per_category"]
    assert prompts >= max(min_n("A2", REGISTRATION_2), min_n("A4", REGISTRATION_2))
    assert 2 * DECISIVE_SIZES["entailment_validation"]["b7_sets"] >= min_n("B7", REGISTRATION_2)
