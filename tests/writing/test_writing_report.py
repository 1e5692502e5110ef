"""The writing chapters' one text display: a prompt's stories as readable prose, each named by framework, writer and
persona, a revision beside its own draft."""

from __future__ import annotations

import pytest

from llmcreativity.llm import get_embedder
from llmcreativity.llm.cached_embedder import CachedEmbedder, uncached
from llmcreativity.writing.dataset import PromptItem
from llmcreativity.writing.frameworks import STORY_SAMPLING, LLMReview, SingleAgent, WritingConfig
from llmcreativity.writing.report import readable_stories
from llmcreativity.writing.story_record import read_transcripts
from llmcreativity.writing.writing_run import load_stories, run_writing
from writing_helpers import CountingBackend, unique_story_responder

CONFIG = WritingConfig(STORY_SAMPLING.merge(max_tokens=64), feedback_max_tokens=32, max_story_words=60)
ITEM = PromptItem("pacing-00", "Pacing", 0, "A comet <returns> & hums.")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    result = run_writing([SingleAgent(config=CONFIG), LLMReview(config=CONFIG)],
                         CountingBackend(unique_story_responder()), [ITEM], tmp_path_factory.mktemp("w"),
                         progress=False)
    return load_stories(result.stories_path), read_transcripts(result.transcripts_path)


def test_every_final_story_is_shown_named_by_framework_writer_and_persona(written):
    stories, transcripts = written
    shown = readable_stories(stories, ITEM.prompt_id, transcripts).data
    assert shown.count("<table") == len(stories) == 4
    for persona in ("Humanistic", "Futuristic", "Ecological"):
        assert f"<strong>review</strong>: {persona}, persona {persona} (round 1" in shown
    assert "<strong>single</strong>: " in shown and all(story in shown for story in stories.story)


def test_a_revision_stands_beside_its_own_draft_and_a_draft_alone(written):
    stories, transcripts = written
    shown = readable_stories(stories, ITEM.prompt_id, transcripts).data
    for row in stories[stories.framework == "review"].itertuples():
        draft = transcripts["review", ITEM.prompt_id].select(kind="draft", author=row.agent)[0].story
        card = shown[shown.index(f"<strong>review</strong>: {row.agent},"):]
        card = card[:card.index("</table>")]
        assert card.index(draft) < card.index("<em>revision</em>") < card.index(row.story)
    single = shown[shown.index("<strong>single</strong>"):]
    assert "draft (round 0)" not in single[:single.index("</table>")]
    assert "draft (round 0)" not in readable_stories(stories, ITEM.prompt_id).data  # no transcripts: stories only


def test_text_is_escaped_and_an_unknown_prompt_is_refused_naming_the_known_ones(written):
    stories, _ = written
    stories = stories.assign(story=stories.story.where(stories.framework != "single", "A <b>bold</b> & odd tale."))
    assert "A &lt;b&gt;bold&lt;/b&gt; &amp; odd tale." in readable_stories(stories, ITEM.prompt_id).data
    with pytest.raises(KeyError, match="pacing-00"):
        readable_stories(stories, "nope-01")


def test_uncached_gives_the_model_under_the_cache_which_encodes_alike(tmp_path):
    cached = get_embedder("all-minilm-l6-v2", cache=tmp_path / "e.sqlite")
    model = uncached(cached)
    assert isinstance(cached, CachedEmbedder) and not isinstance(model, CachedEmbedder)
    assert uncached(model) is model
    assert abs(model.encode(["A comet hums."]) - cached.encode(["A comet hums."])).max() < 1e-5
