"""Stage outputs: one function per file, under the profile's results folder."""

from __future__ import annotations

import pandas as pd
import pytest

from llmcreativity import outputs


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    return tmp_path


def test_outputs_live_in_their_stage_folder(results):
    assert outputs.chain_table_file() == results / "semantic_entropy" / "chains.parquet"
    assert outputs.homogenization_file("review") == results / "review" / "homogenization.csv"
    assert outputs.large_single_dir("big") == results / "baselines" / "single-big"
    assert outputs.judge_runs_dir().is_dir()


def test_a_smoke_run_writes_under_its_own_folder(results, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "smoke")
    assert outputs.unigram_file("words") == results / "smoke" / "corpus" / "unigram_words.parquet"


def test_readers_of_a_stage_that_has_not_run(results):
    assert outputs.read_chain_table() is None and outputs.read_homogenization("baselines") is None
    assert outputs.read_stage_transcripts("review") == {}
    with pytest.raises(FileNotFoundError, match="run the 'baselines' stage first"):
        outputs.read_stories("baselines")
    assert outputs.large_single_models() == []
    with pytest.raises(FileNotFoundError, match="no bigger Single Agent run"):
        outputs.read_large_single_stories()


def test_a_stage_that_writes_no_stories_is_refused():
    with pytest.raises(ValueError, match="writes no stories"):
        outputs.writing_dir("corpus")


def test_chain_table_reads_back_what_was_written():
    table = pd.DataFrame({"chain": ["a"], "solution_steps": [["x", "y"]]})
    table.to_parquet(outputs.chain_table_file())
    assert list(outputs.read_chain_table()["solution_steps"].iloc[0]) == ["x", "y"]


def test_the_bigger_single_agent_written_by_baselines_is_read_back_with_its_system_name():
    from llmcreativity.writing import PromptItem, SingleAgent, WritingConfig, run_writing
    from writing_helpers import CountingBackend, unique_story_responder

    item = PromptItem("strong-voice-00", "Strong Voice", 0, "A lighthouse on Europa.")
    run_writing([SingleAgent(config=WritingConfig())], CountingBackend(unique_story_responder()), [item],
                outputs.large_single_dir("big"), progress=False)
    assert outputs.large_single_models() == ["big"]
    stories = outputs.read_large_single_stories()
    assert list(stories["system"]) == ["single (big)"] and list(stories["prompt_id"]) == ["strong-voice-00"]
    assert stories["story_id"].iloc[0].startswith("single (big)::")
