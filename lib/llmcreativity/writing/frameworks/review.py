"""LLM Review: blind peer review. Writers draft alone, review each other's drafts, revise alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...llm.backend import Backend
from ..dataset import PromptItem
from ..persona import REVIEW_PERSONAS, Persona
from ..transcript import Transcript
from .prompts import OWN_STORY, block, chat, revise_instruction, writing_task
from .protocol import Request, framework_settings, step, usage_tag
from .writing_config import WritingConfig

REVIEW_DIMENSIONS: tuple[str, ...] = (
    "originality",
    "world-building potential",
    "speculative-logic consistency",
    "imagery richness",
    "character depth",
)
"""The five dimensions every review covers."""


def review_instruction() -> str:
    """What a reviewer is asked to do with one peer draft."""
    dims = ", ".join(REVIEW_DIMENSIONS[:-1]) + " and " + REVIEW_DIMENSIONS[-1]
    return (
        f"You are reviewing a peer's draft. For each of five dimensions ({dims}), name one strength or weakness "
        "of this story and give one concrete suggestion for improving it. Write one short paragraph per "
        "dimension, starting with the dimension's name. Do not rewrite the story."
    )


@dataclass(frozen=True)
class LLMReview:
    """Compose, review, revise, with three batched calls.

    1. Each writer drafts from the prompt alone (round 0).
    2. Each writer reviews every *other* writer's initial draft on the five dimensions (one
       message per reviewer and target).
    3. Each writer revises from its own draft and the reviews of it, shown anonymously; it
       never sees another writer's story, draft or revision.
    """

    personas: tuple[Persona, ...] = REVIEW_PERSONAS
    """Writer personas (the paper's: Humanistic, Futuristic, Ecological)."""
    config: WritingConfig = WritingConfig()
    """Sampling settings."""
    name: str = "review"
    """Framework name."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.personas]
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError(f"personas={names}: peer review needs at least 2 writers with distinct names")

    def run(self, lm: Backend, item: PromptItem) -> Transcript:
        """Drafts, reviews, revisions: one batched call each."""
        t = Transcript(self.name, item.prompt_id)
        words = self.config.max_story_words
        story_cfg, feedback_cfg = self.config.story_config(), self.config.feedback_config()
        with usage_tag(lm, self.name):
            drafts = step(lm, t,
                          [Request(p.name, 0, "draft", chat(p, writing_task(item, words)), ()) for p in self.personas],
                          config=story_cfg, max_story_words=words)
            by_author = {d.author: d for d in drafts}
            reviews = [
                Request(p.name, 1, "review",
                        chat(p, f"Writing prompt: {item.text}\n\n" + block("Peer draft", by_author[q.name].content)
                             + "\n\n" + review_instruction()),
                        (by_author[q.name].id,), target=q.name)
                for p in self.personas for q in self.personas if q != p
            ]
            step(lm, t, reviews, config=feedback_cfg, max_story_words=words)
            revisions = []
            for p in self.personas:
                own = by_author[p.name]
                received = t.select(kind="review", target=p.name)
                text = (
                    f"Writing prompt: {item.text}\n\n" + block(OWN_STORY, own.content) + "\n\n"
                    + "\n\n".join(block(f"Review {k + 1}", m.content) for k, m in enumerate(received))
                    + "\n\n" + revise_instruction(words)
                )
                revisions.append(Request(p.name, 1, "revision", chat(p, text), (own.id, *(m.id for m in received)),
                                         previous=own))
            step(lm, t, revisions, config=story_cfg, max_story_words=words)
        return t

    def settings(self) -> dict[str, Any]:
        """Parameters as plain JSON."""
        return framework_settings(self)
