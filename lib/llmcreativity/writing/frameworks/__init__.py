"""The writing frameworks: Single Agent, LLM Teacher, LLM Debate, LLM Discussion and LLM Review."""

from __future__ import annotations

from typing import Any

from .debate import LLMDebate
from .discussion import LLMDiscussion
from .protocol import Framework
from .review import REVIEW_DIMENSIONS, LLMReview
from .single import SingleAgent
from .teacher import LLMTeacher
from .writing_config import STORY_SAMPLING, TOKENS_PER_WORD, WritingConfig, story_token_budget

FRAMEWORKS: dict[str, type] = {
    "single": SingleAgent,
    "teacher": LLMTeacher,
    "debate": LLMDebate,
    "discussion": LLMDiscussion,
    "review": LLMReview,
}
"""Framework classes by name."""

BASELINES: tuple[str, ...] = ("single", "teacher", "debate", "discussion")
"""The paper's four baselines."""


def large_single_system(model: str) -> str:
    """The name of the bigger Single Agent in result tables, e.g. "single (qwen2.5-coder-1.5b)"."""
    return f"single ({model})"


def build_framework(name: str, config: WritingConfig, rounds: int = 1) -> Framework:
    """The framework called `name` with default agents, `config` and (where it has rounds) `rounds`."""
    if name not in FRAMEWORKS:
        raise ValueError(f"framework={name!r} is unknown: choose one of {sorted(FRAMEWORKS)}")
    cls: Any = FRAMEWORKS[name]
    if name in ("teacher", "debate", "discussion"):
        return cls(rounds=rounds, config=config)
    return cls(config=config)


__all__ = ["BASELINES", "FRAMEWORKS", "REVIEW_DIMENSIONS", "STORY_SAMPLING", "TOKENS_PER_WORD", "Framework",
           "LLMDebate", "LLMDiscussion", "LLMReview", "LLMTeacher", "SingleAgent", "WritingConfig", "build_framework",
           "large_single_system", "story_token_budget"]
