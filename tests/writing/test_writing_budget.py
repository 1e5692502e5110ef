"""The story token budget is derived from the word limit, and the profiles' writing settings follow the papers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from llmcreativity.pipeline.planning import declared_parameters
from llmcreativity.pipeline.stages import STAGES
from llmcreativity.writing.frameworks import (
    STORY_SAMPLING,
    TOKENS_PER_WORD,
    LLMDiscussion,
    WritingConfig,
    story_token_budget,
)
from llmcreativity.writing.frameworks.writing_config import REPLY_OVERHEAD_TOKENS
from llmcreativity.writing.report import token_budget_check

WRITING = {s.name: s for s in STAGES if s.name in ("baselines", "review")}


def test_budget_is_tokens_per_word_times_words_plus_the_reply_overhead():
    assert story_token_budget(120) == math.ceil(TOKENS_PER_WORD * 120) + REPLY_OVERHEAD_TOKENS
    assert story_token_budget(300) > 300 * 1.42  # above the measured 95th percentile of every registry tokenizer
    assert story_token_budget(10, tokens_per_word=2.0) == 20 + REPLY_OVERHEAD_TOKENS
    with pytest.raises(ValueError, match="max_story_words"):
        story_token_budget(0)


def test_for_words_sets_the_story_budget_from_the_word_limit_and_keeps_the_rest():
    sampling = STORY_SAMPLING.merge(temperature=0.3, max_tokens=5, seed=7)
    config = WritingConfig.for_words(120, sampling=sampling, feedback_max_tokens=80)
    assert config.story_config().max_tokens == story_token_budget(120)
    assert (config.story_config().temperature, config.story_config().seed) == (0.3, 7)
    assert config.feedback_config().max_tokens == 80 and config.max_story_words == 120
    assert WritingConfig().story_config().max_tokens == story_token_budget(WritingConfig().max_story_words)


@pytest.mark.parametrize("name", sorted(WRITING))
def test_no_profile_sets_a_story_token_budget_that_could_disagree_with_the_word_limit(name):
    stage = WRITING[name]
    assert "story_max_tokens" not in declared_parameters(stage)
    assert all("story_max_tokens" not in overrides for overrides in stage.profiles.values())


def test_paper_profile_writes_300_word_stories_and_lets_writers_see_each_others_revisions():
    assert WRITING["baselines"].profiles["paper"]["max_story_words"] == 300
    assert WRITING["review"].profiles["paper"]["max_story_words"] == 300
    rounds = WRITING["baselines"].profiles["paper"]["rounds"]
    # Round r of a Discussion reads the round r-1 versions: from round 2 on, those are revisions.
    from llmcreativity.writing.dataset import PromptItem
    from writing_helpers import CountingBackend, unique_story_responder

    t = LLMDiscussion(rounds=rounds).run(CountingBackend(unique_story_responder()),
                                         PromptItem("p-00", "P", 0, "A moon that hums."))
    seen_kinds = {t.get(v).kind for m in t.select(kind="revision") if m.round >= 2 for v in m.visible}
    assert rounds >= 2 and seen_kinds == {"revision"}


def test_token_budget_check_counts_truncated_stories_and_tokens_per_word():
    stories = pd.DataFrame({"framework": ["a", "a", "b", "b"],
                            "flags": [[], ["truncated"], ["over_long"], ["over_long", "truncated"]],
                            "story_tokens": [30, 50, 99, 99], "n_words": [20, 30, 40, 40]})
    check = token_budget_check(stories)
    assert check.loc["a", "truncated"] == 0.5 and check.loc["b", "over_long"] == 1.0
    assert check.loc["a", "cut_short"] == 0.5 and check.loc["b", "cut_short"] == 0.0
    assert check.loc["a", "tokens_per_word"] == 1.5 and pd.isna(check.loc["b", "tokens_per_word"])
