"""The resumable runner: story records, transcripts, skipping done work, surviving a killed run."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from llmcreativity.dataclass_json import from_json, to_json
from llmcreativity.jsonl import read_jsonl
from llmcreativity.writing.dataset import PromptItem
from llmcreativity.writing.frameworks import STORY_SAMPLING, LLMReview, SingleAgent, WritingConfig
from llmcreativity.writing.story_record import StoryRecord, read_transcripts
from llmcreativity.writing.writing_run import load_stories, run_writing
from writing_helpers import CountingBackend, unique_story_responder

CONFIG = WritingConfig(STORY_SAMPLING.merge(max_tokens=64), feedback_max_tokens=32, max_story_words=60)
ITEMS = [PromptItem(f"pacing-0{i}", "Pacing", i, f"Prompt number {i} about a comet.") for i in range(2)]
FRAMEWORKS = [SingleAgent(config=CONFIG), LLMReview(config=CONFIG)]


def load_messages(path) -> pd.DataFrame:
    """Every transcript message of a transcripts file, one row each."""
    return pd.DataFrame([to_json(m) for t in read_transcripts(path).values() for m in t])


def test_one_story_row_per_final_story(tmp_path):
    lm = CountingBackend(unique_story_responder())
    result = run_writing(FRAMEWORKS, lm, ITEMS, tmp_path, progress=False)
    stories = load_stories(result.stories_path)
    assert len(stories) == 2 * (1 + 3)
    assert set(stories.framework) == {"single", "review"}
    assert (result.written, result.skipped) == (4, 0)


def test_story_row_carries_the_documented_schema(tmp_path):
    lm = CountingBackend(unique_story_responder())
    result = run_writing(FRAMEWORKS, lm, ITEMS[:1], tmp_path, progress=False)
    row = read_jsonl(result.stories_path)[-1]
    record = from_json(StoryRecord, row)
    assert (record.framework, record.agent, record.persona, record.round) == ("review", "Ecological", "Ecological", 1)
    assert record.model == "scripted"
    assert record.settings["personas"] == ["Humanistic", "Futuristic", "Ecological"]
    assert record.n_words == len(record.story.split())


def test_tokens_are_the_whole_runs_prompt_and_completion_tokens(tmp_path):
    lm = CountingBackend(unique_story_responder())
    result = run_writing([LLMReview(config=CONFIG)], lm, ITEMS[:1], tmp_path, progress=False)
    messages = load_messages(result.transcripts_path)
    stories = load_stories(result.stories_path)
    assert set(stories.tokens) == {int((messages.prompt_tokens + messages.completion_tokens).sum())}


def test_rerun_skips_done_pairs_without_calling_the_model(tmp_path):
    run_writing(FRAMEWORKS, CountingBackend(unique_story_responder()), ITEMS, tmp_path, progress=False)
    lm = CountingBackend(unique_story_responder())
    result = run_writing(FRAMEWORKS, lm, ITEMS, tmp_path, progress=False)
    assert lm.batches == []
    assert (result.written, result.skipped) == (0, 4)
    assert len(load_stories(result.stories_path)) == 8


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path):
    first = run_writing(FRAMEWORKS, CountingBackend(unique_story_responder()), ITEMS[:1], tmp_path, progress=False)
    # Simulate a kill while the second prompt's transcript was written but its stories were half-written.
    item = ITEMS[1]
    partial = LLMReview(config=CONFIG).run(CountingBackend(unique_story_responder()), item)
    with open(first.transcripts_path, "a") as f:
        f.writelines(json.dumps(r) + "\n" for r in (to_json(m) for m in partial))
    with open(first.stories_path, "a") as f:
        f.write('{"prompt_id": "pacing-01", "framework": "rev')
    run_writing(FRAMEWORKS, CountingBackend(unique_story_responder()), ITEMS, tmp_path, progress=False)
    stories = load_stories(first.stories_path)
    assert len(stories) == 8
    assert not stories.duplicated(["prompt_id", "framework", "agent"]).any()
    transcripts = read_transcripts(first.transcripts_path)
    assert len(transcripts[("review", "pacing-01")]) == 12
    assert len(load_messages(first.transcripts_path)) == 2 * (1 + 12)


def test_rerun_with_another_model_into_the_same_folder_is_an_error(tmp_path):
    run_writing(FRAMEWORKS, CountingBackend(unique_story_responder()), ITEMS[:1], tmp_path, progress=False)
    lm = CountingBackend(unique_story_responder())
    lm.identity = "another-model"
    with pytest.raises(ValueError, match="pass another out_dir"):
        run_writing(FRAMEWORKS, lm, ITEMS, tmp_path, progress=False)


def test_same_framework_twice_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="once per run"):
        run_writing([SingleAgent(), SingleAgent()], CountingBackend(unique_story_responder()), ITEMS, tmp_path)


def test_story_row_with_unknown_keys_is_rejected():
    with pytest.raises(ValueError, match="unknown keys"):
        from_json(StoryRecord, {"surprise": 1})


def test_transcripts_on_disk_feed_the_homogenization_measure(tmp_path):
    from llmcreativity.llm import ScriptedEmbedder
    from llmcreativity.writing.frameworks import LLMDiscussion
    from llmcreativity.writing.homogenization import homogenization, versions_by_round

    result = run_writing([LLMDiscussion(rounds=2, config=CONFIG)], CountingBackend(unique_story_responder()), ITEMS,
                         tmp_path, progress=False)
    h = homogenization(versions_by_round(read_transcripts(result.transcripts_path)), ScriptedEmbedder())
    expected = [(p, r) for p in ("pacing-00", "pacing-01") for r in range(3)]
    assert sorted(zip(h.prompt_id, h["round"], strict=True)) == expected
    assert (h.n_stories == 3).all()


def test_cost_per_framework_counts_each_run_once():
    import pandas as pd

    from llmcreativity.writing.report import cost_per_framework
    stories = pd.DataFrame({"framework": ["review"] * 3 + ["single"], "prompt_id": ["a", "a", "a", "a"],
                            "tokens": [300, 300, 300, 50], "seconds": [6.0, 6.0, 6.0, 1.0]})
    cost = cost_per_framework(stories)
    assert cost.loc["review"].tolist() == [1, 3, 300.0, 100.0, 300, 6.0]
    assert cost.loc["single"].tolist() == [1, 1, 50.0, 50.0, 50, 1.0]
