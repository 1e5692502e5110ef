"""Judge names derived from settings: every judge name a committed record holds (its run files, its agreement
records, the names in its texts) is rebuilt byte for byte from the settings of the parameters that record ran with,
and the judges themselves name themselves through the same settings."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from llmcreativity.judges import AnswerProbabilityJudge, ChatEvalJudge, RetrievalPanelJudge, SingleCallJudge
from llmcreativity.judges.criteria import criteria_set
from llmcreativity.judges.divergent import domain_criteria
from llmcreativity.judges.settings import (
    AnswerProbabilitySettings,
    ChatEvalSettings,
    PanelSettings,
    SingleCallSettings,
    judged_with,
    on_base_model,
)
from llmcreativity.judges.validation import NO_EARLY_STOP, validation_arms
from llmcreativity.llm import ScriptedEmbedder
from llmcreativity.record_file import RecordedStage, read_record
from locations import REPO, TEST_DATA

RECORDS = {
    "published/run": REPO / "published" / "run" / "record.json",
    "published/decisive": REPO / "published" / "decisive" / "record.json",
    "smoke": TEST_DATA / "records" / "smoke" / "record.json",
}
"""Every committed record: the published run, the claims' re-decision and the smoke record of the tests."""
STAGE = "judge_validation"
RUNS = f"{STAGE}/runs/"
NAME_IN_TEXT = re.compile(r"(?:retrieval-(?:full|partitioned)|chateval)\([^)]*\)(?:\[\w+\])?"
                          r"(?: \[[^\]]*\]| \(llama\.cpp:[^)]*\))?")
"""What looks like a discussion judge's name in a record's text, with its model suffix if any: only to find the
names, every one of which must be derived (the code never reads settings out of a name)."""
SE_DOMAINS = ("macgyver", "hypogen-astro")
"""The semantic-entropy domains whose chains every record's judge-validation stage judged (`se-chains-<domain>-`)."""


def _stage(record: str) -> RecordedStage:
    return read_record(RECORDS[record].parent).stages[STAGE]


def _derived_runs(params: dict[str, Any]) -> set[str]:
    """The run files the chapter writes under `params`, named from settings alone."""
    arms = validation_arms(params)
    names = {s.name for s in arms.by_kind.values()} | {s.name for s in arms.sweep}
    names |= {arms.weak_name} if arms.weak_name else set()
    chosen = criteria_set(params["criteria"])
    se = arms.by_kind[params["se_judge"]]
    names |= {f"se-chains-{d}-{replace(se, n_criteria=len(domain_criteria(d, chosen))).name}" for d in SE_DOMAINS}
    return {f"{RUNS}{n}.jsonl" for n in names}


@pytest.mark.parametrize("record", sorted(RECORDS))
def test_every_recorded_run_file_is_named_from_the_settings_of_its_parameters(record):
    stage = _stage(record)
    assert _derived_runs(stage.resolved_parameters) == {p for p in stage.outputs if p.startswith(RUNS)}


@pytest.mark.parametrize("record", sorted(RECORDS))
def test_every_recorded_agreement_is_named_from_the_settings_and_the_judges_model(record):
    stage = _stage(record)
    params = stage.resolved_parameters
    recorded = {v["judge"] for v in stage.judge_validity}
    derived = {judged_with(s.name, params["convergent_judge"]) for s in validation_arms(params).by_kind.values()}
    assert recorded == (set() if record == "smoke" else derived)  # the smoke profile records no agreement


@pytest.mark.parametrize("record", sorted(RECORDS))
def test_every_judge_name_in_the_records_texts_is_derived(record):
    params = _stage(record).resolved_parameters
    arms = validation_arms(params)
    names = {s.name for s in arms.by_kind.values()} | {s.name for s in arms.sweep}
    derived = names | {judged_with(n, params["convergent_judge"]) for n in names} | {arms.weak_name}
    found = set(NAME_IN_TEXT.findall(RECORDS[record].read_text()))
    assert found and found <= derived
    assert arms.reference.name in found and arms.twin.name in found


def test_the_published_names_byte_for_byte():
    model = "llama.cpp:qwen2.5-coder-0.5b"
    panel = {"rounds": 3, "k": 2, "max_tokens": 128}
    assert PanelSettings(views="full", stop_confidence=0.8, **panel).name == "retrieval-full(R=3,k=2,T=0.8,L=128)"
    assert PanelSettings(views="full", stop_confidence=1.01, **panel).name == "retrieval-full(R=3,k=2,T=1.01,L=128)"
    assert PanelSettings(views="partitioned", stop_confidence=0.8, **panel).name == \
        "retrieval-partitioned(R=3,k=2,T=0.8,L=128)"
    assert ChatEvalSettings(rounds=3, max_tokens=128).name == "chateval(R=3,L=128)"
    assert SingleCallSettings().name == "single"
    assert SingleCallSettings(reasoning=True).name == "cot"
    assert AnswerProbabilitySettings().name == "p(yes)"
    assert AnswerProbabilitySettings(n_criteria=4).name == "p(yes)[joint]"
    assert judged_with(ChatEvalSettings(rounds=3, max_tokens=128).name, model) == \
        "chateval(R=3,L=128) (llama.cpp:qwen2.5-coder-0.5b)"
    assert on_base_model(PanelSettings(views="full", stop_confidence=0.8, **panel).name, "llama.cpp:smollm2-135m") \
        == "retrieval-full(R=3,k=2,T=0.8,L=128) [llama.cpp:smollm2-135m]"


def test_the_criteria_mode_is_named_only_for_several_criteria():
    assert SingleCallSettings(criteria_mode="per_criterion").name == "single"
    assert SingleCallSettings(criteria_mode="per_criterion", n_criteria=3).name == "single[per_criterion]"


def test_the_twin_never_stops_early():
    arms = validation_arms(_stage("published/run").resolved_parameters)
    assert arms.reference.stops_early and not arms.twin.stops_early
    assert arms.twin == replace(arms.reference, stop_confidence=NO_EARLY_STOP)


@pytest.mark.parametrize("criteria", ["valid", "macgyver"])
def test_the_judges_name_themselves_through_their_settings(criteria):
    params = _stage("published/run").resolved_parameters | {"criteria": criteria}
    chosen = criteria_set(criteria)
    common: dict[str, Any] = {"lm": None, "criteria": chosen, "criteria_mode": params["criteria_mode"]}
    panel = dict(common, embedder=ScriptedEmbedder(), rounds=params["rounds"], max_tokens=params["max_tokens"])
    judges = {  # as the judge-validation chapter builds them
        "single": SingleCallJudge(**common, max_tokens=params["single_max_tokens"]),
        "cot": SingleCallJudge(**common, reasoning=True, max_tokens=params["cot_max_tokens"]),
        "p_yes": AnswerProbabilityJudge(**common),
        "chateval": ChatEvalJudge(**common, rounds=params["rounds"], max_tokens=params["max_tokens"]),
        "retrieval": RetrievalPanelJudge(**panel, k=params["k"], stop_confidence=params["stop_confidence"]),
        "retrieval, no early stop": RetrievalPanelJudge(**panel, k=params["k"], stop_confidence=1.01),
        "retrieval, partitioned": RetrievalPanelJudge(**panel, k=params["k"],
                                                      stop_confidence=params["stop_confidence"], views="partitioned"),
    }
    arms = validation_arms(params)
    assert {kind: j.settings for kind, j in judges.items()} == arms.by_kind
    assert {kind: j.name for kind, j in judges.items()} == {kind: s.name for kind, s in arms.by_kind.items()}


def test_a_label_overrides_the_derived_name():
    judge = SingleCallJudge(lm=None, criteria=criteria_set("valid"), label="mine")
    assert judge.name == "mine" and judge.settings.name == "single"
