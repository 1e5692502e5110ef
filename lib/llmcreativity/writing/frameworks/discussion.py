"""LLM Discussion: writers with personas read each other's latest versions every round and update their own."""

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


@dataclass(frozen=True)
class LLMDiscussion:
    """Drafts, then every round each writer rewrites after reading all other writers' latest versions.

    Information flow: a round-r revision sees the writer's own and every other writer's round r-1 version.
    """

    personas: tuple[Persona, ...] = REVIEW_PERSONAS
    """Writer personas (distinct names, at least 2)."""
    rounds: int = 1
    """Discussion rounds after the drafts."""
    config: WritingConfig = WritingConfig()
    """Sampling settings."""
    name: str = "discussion"
    """Framework name."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.personas]
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError(f"personas={names}: a discussion needs at least 2 writers with distinct names")
        if self.rounds < 1:
            raise ValueError(f"rounds={self.rounds!r}: LLM Discussion needs at least one round")

    def run(self, lm: Backend, item: PromptItem) -> Transcript:
        """Drafts, then `rounds` discussion rounds, each one batched call."""
        t = Transcript(self.name, item.prompt_id)
        words = self.config.max_story_words
        story_cfg = self.config.story_config()
        with usage_tag(lm, self.name):
            step(lm, t, [Request(p.name, 0, "draft", chat(p, writing_task(item, words)), ()) for p in self.personas],
                 config=story_cfg, max_story_words=words)
            for r in range(1, self.rounds + 1):
                requests = []
                for p in self.personas:
                    own = t.latest_version(p.name, up_to_round=r - 1)
                    others = [t.latest_version(q.name, up_to_round=r - 1) for q in self.personas if q != p]
                    text = (
                        f"Writing prompt: {item.text}\n\n" + block(OWN_STORY, own.content) + "\n\n"
                        + "\n\n".join(block(f"Latest story by the {o.author} writer", o.content) for o in others)
                        + "\n\n" + revise_instruction(words)
                    )
                    requests.append(Request(p.name, r, "revision", chat(p, text), (own.id, *(o.id for o in others)),
                                            previous=own))
                step(lm, t, requests, config=story_cfg, max_story_words=words)
        return t

    def settings(self) -> dict[str, Any]:
        """Parameters as plain JSON."""
        return framework_settings(self)
