"""A replay reads no git state: a copy of the repository without `.git`, with a chapter's prose edited, replays the
judge laboratory from the record, the choice's commit taken from the record's validity rows after the choice file's
SHA-256 is checked against the recorded one (`judgelab.choice.recorded_choice`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from llmcreativity.paths import DECISIVE_RECORD, REPO_ROOT, data_dir
from llmcreativity.pipeline.manifest import read_manifest
from llmcreativity.pipeline.record_compare import replay_differences
from llmcreativity.record_file import read_record

LEFT_OUT = (".git", ".venv", "results", "_build", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")
"""What a zip download of the repository does not hold (git's history) or a working copy holds beside the code."""


def _copy_without_git(target: Path) -> Path:
    shutil.copytree(REPO_ROOT, target, ignore=shutil.ignore_patterns(*LEFT_OUT), symlinks=True)
    assert not (target / ".git").exists()
    return target


@pytest.mark.slow
def test_a_copy_without_git_and_with_an_edited_chapter_replays_the_judge_laboratory_from_its_record(tmp_path,
                                                                                                   monkeypatch):
    copy = _copy_without_git(tmp_path / "copy")
    chapter = copy / "notebooks" / "review.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nA teacher's note added to the chapter's prose.\n",
                       encoding="utf-8")
    results = tmp_path / "results"
    env = {**os.environ, "PYTHONPATH": str(copy / "lib"), "LLMCREATIVITY_RESULTS": str(results),
           "LLMCREATIVITY_DATA": str(data_dir())}
    env.pop("LLMCREATIVITY_PROFILE", None)
    done = subprocess.run([sys.executable, "-m", "llmcreativity.cli", "run", "--replay", DECISIVE_RECORD,
                           "--stage", "judge_lab"], cwd=copy, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "UncommittedChoice" not in done.stdout + done.stderr
    record = read_record(copy / DECISIVE_RECORD)
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(results / "replay"))
    entry = read_manifest(record.profile).stages["judge_lab"]
    assert entry.status == "ok" and entry.calls == record.stages["judge_lab"].calls  # every call from the record
    assert replay_differences(record, {"judge_lab"}, results / "replay") == {"judge_lab": []}
    confirmation = json.loads((results / "replay" / "judge_lab" / "entailment_confirmation.json").read_text())
    recorded = {row["choice_sha256"]: row["choice_commit"] for row in record.stages["judge_lab"].judge_validity}
    assert recorded[confirmation["choice_sha256"]] == confirmation["choice_commit"]
