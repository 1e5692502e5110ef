"""The sampling settings of a writing run, shared by all its agents."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...llm.generate_config import GenerateConfig

TOKENS_PER_WORD = 1.5
"""Token budget per asked-for word. Measured on 400 HANNA stories (human and LLM prose), the registry's language-model
tokenizers use 1.22-1.26 tokens per whitespace word on average and at most 1.42 for 95 % of the stories
(`scripts/bench_tokens_per_word.py`); 1.5 leaves headroom above that."""

REPLY_OVERHEAD_TOKENS = 16
"""Tokens allowed on top of the story itself: the ``STORY:`` line, a title, a closing line."""


def story_token_budget(max_story_words: int, tokens_per_word: float = TOKENS_PER_WORD) -> int:
    """The token budget of a draft or revision asked to be approximately `max_story_words` words long (and cut
    back to that many when it runs past them):

        max_tokens = ceil(tokens_per_word * max_story_words) + REPLY_OVERHEAD_TOKENS

    so a story that keeps to the word limit is not cut off by the token limit.
    """
    if max_story_words < 1:
        raise ValueError(f"max_story_words={max_story_words!r}: must be >= 1")
    if tokens_per_word <= 0:
        raise ValueError(f"tokens_per_word={tokens_per_word!r}: must be > 0")
    return math.ceil(tokens_per_word * max_story_words) + REPLY_OVERHEAD_TOKENS


STORY_SAMPLING = GenerateConfig(temperature=0.8, top_p=0.95, max_tokens=story_token_budget(300))
"""Default sampling of a writing run: temperature 0.8, nucleus 0.95, the token budget of a 300-word story."""

_STORED = {"max_tokens": "story_max_tokens"}
"""Stored name of a sampling field where it differs (the story budget, beside feedback_max_tokens)."""


@dataclass(frozen=True)
class WritingConfig:
    """Sampling settings shared by all agents of a run: one `GenerateConfig`, with a shorter budget for feedback.

    Stored with every story in the flat form of `to_dict` (temperature, top_p, story_max_tokens,
    feedback_max_tokens, max_story_words, seed), which `from_dict` reads back.
    """

    sampling: GenerateConfig = STORY_SAMPLING
    """Sampling of every call (one sample each); its `max_tokens` is the budget of a draft or revision."""
    feedback_max_tokens: int = 200
    """Token budget of a review, critique or challenge."""
    max_story_words: int = 300
    """Word budget asked of writers; longer stories are cut at a sentence end and flagged."""

    def __post_init__(self) -> None:
        if self.sampling.n != 1:
            raise ValueError(f"sampling.n={self.sampling.n!r}: every agent call takes one sample; use n=1")
        if self.max_story_words < 1:
            raise ValueError(f"max_story_words={self.max_story_words!r}: must be >= 1")
        self.feedback_config()  # validates feedback_max_tokens

    @classmethod
    def for_words(cls, max_story_words: int, *, sampling: GenerateConfig = STORY_SAMPLING,
                  feedback_max_tokens: int = 200) -> WritingConfig:
        """The config for stories of approximately `max_story_words` words, with the story token budget derived from it
        (`story_token_budget`); `sampling.max_tokens` is replaced."""
        return cls(sampling.merge(max_tokens=story_token_budget(max_story_words)),
                   feedback_max_tokens=feedback_max_tokens, max_story_words=max_story_words)

    def story_config(self) -> GenerateConfig:
        """Sampling settings of story versions."""
        return self.sampling

    def feedback_config(self) -> GenerateConfig:
        """Sampling settings of feedback messages: `sampling` with max_tokens = feedback_max_tokens."""
        return self.sampling.merge(max_tokens=self.feedback_max_tokens)

    def to_dict(self) -> dict[str, Any]:
        """The flat plain-JSON form stored in every story's settings ("stop" only when set)."""
        flat = self.sampling.to_flat(omit=("n",), rename=_STORED)
        seed = flat.pop("seed")  # stored last, as in every story written so far
        return {**flat, "feedback_max_tokens": self.feedback_max_tokens, "max_story_words": self.max_story_words,
                "seed": seed}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> WritingConfig:
        """Inverse of `to_dict` (e.g. a stored story's ``settings["config"]``)."""
        sampling, rest = GenerateConfig.from_flat(d, rename=_STORED)
        return cls(sampling, **rest)
