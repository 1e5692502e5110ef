"""One end-to-end LLM Review run on a real embedded model (short budgets; the orchestration is tested elsewhere)."""

from __future__ import annotations

import pytest

from llmcreativity.llm import get_backend
from llmcreativity.writing import (
    STORY_SAMPLING,
    LLMReview,
    WritingConfig,
    load_scifi,
    load_stories,
    read_transcripts,
    run_writing,
    select_prompts,
)
from llmcreativity.writing.visibility import leaks


@pytest.mark.slow
def test_review_runs_end_to_end_on_an_embedded_model(tmp_path):
    lm = get_backend("smollm2-135m", cache=None)
    config = WritingConfig(STORY_SAMPLING.merge(max_tokens=24), feedback_max_tokens=16, max_story_words=20)
    item = select_prompts(load_scifi(), n_categories=1, per_category=1)[0]
    result = run_writing([LLMReview(config=config)], lm, [item], tmp_path, progress=False)
    stories = load_stories(result.stories_path)
    assert len(stories) == 3
    assert (stories.model == lm.identity).all()
    assert (stories.story_tokens <= 24).all()
    assert lm.usage_summary().tag.tolist() == ["review"]
    assert leaks(read_transcripts(result.transcripts_path)[("review", item.prompt_id)]) == []
