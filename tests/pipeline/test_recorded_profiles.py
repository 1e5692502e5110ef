"""Every committed record's profile resolves, stage by stage, to the parameters the record ran with.

A record (`published/run`, `published/decisive`, the tests' smoke record) keeps each stage's resolved parameters.
Its profile, planned as the runner plans it with no `-p`, must give the same values: else a replay of the record is
refused, and a `reproduce` asks other calls than the recorded ones.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.planning import Plan, plan
from llmcreativity.pipeline.record_compare import parameter_differences
from llmcreativity.record_file import RECORD_FILE, read_record
from locations import TEST_DATA

RECORDS = sorted([*(REPO_ROOT / "published").glob(f"*/{RECORD_FILE}"), *(TEST_DATA / "records").glob(
    f"*/{RECORD_FILE}")])
"""Every committed record's index file."""


def _recorded_stages() -> list[tuple[Path, str]]:
    return [(path.parent, stage) for path in RECORDS for stage in read_record(path.parent).stages]


@cache
def _plans(profile: str) -> dict[str, Plan]:
    return {p.stage.name: p for p in plan(profile, [])}


def test_the_committed_records_are_found():
    names = {str(path.parent.relative_to(REPO_ROOT)) for path in RECORDS}
    assert {"published/run", "published/decisive", "tests/data/records/smoke"} <= names


@pytest.mark.parametrize(("folder", "stage"), _recorded_stages(),
                         ids=lambda x: x.name if isinstance(x, Path) else x)
def test_a_records_profile_resolves_to_the_parameters_its_stage_ran_with(folder, stage, tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    record = read_record(folder)
    planned = _plans(record.profile)[stage]
    assert parameter_differences(record.stages[stage].resolved_parameters, planned) == ({}, {})
