"""LLM Debate: writers without personas challenge each other's drafts, then revise after the debate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...llm.backend import Backend
from ..dataset import PromptItem
from ..persona import DEBATER, Persona
from ..transcript import Transcript
from .prompts import OWN_STORY, block, chat, revise_instruction, writing_task
from .protocol import Request, framework_settings, step, usage_tag
from .writing_config import WritingConfig


@dataclass(frozen=True)
class LLMDebate:
    """Every round each writer challenges the others' latest stories, then revises after reading the challenges.

    Information flow: a challenge in round r sees every writer's version from round r-1; a
    revision in round r sees the writer's own version and the other writers' round-r challenges.
    """

    n_agents: int = 3
    """Number of debating writers."""
    rounds: int = 1
    """Debate-and-revise rounds after the drafts."""
    config: WritingConfig = WritingConfig()
    """Sampling settings."""
    name: str = "debate"
    """Framework name."""

    def __post_init__(self) -> None:
        if self.n_agents < 2:
            raise ValueError(f"n_agents={self.n_agents!r}: a debate needs at least 2 writers")
        if self.rounds < 1:
            raise ValueError(f"rounds={self.rounds!r}: LLM Debate needs at least one round")

    def agents(self) -> list[str]:
        """Writer names: Writer1, Writer2, ..."""
        return [f"Writer{i + 1}" for i in range(self.n_agents)]

    def _role(self, agent: str) -> Persona:
        # The shared debater role, numbered so that identical prompts do not give identical samples.
        return Persona(agent, f"{DEBATER.description} You are {agent} of {self.n_agents}.")

    def run(self, lm: Backend, item: PromptItem) -> Transcript:
        """Drafts, then `rounds` x (challenges, revisions), each phase one batched call."""
        t = Transcript(self.name, item.prompt_id)
        words = self.config.max_story_words
        story_cfg, feedback_cfg = self.config.story_config(), self.config.feedback_config()
        agents = self.agents()
        with usage_tag(lm, self.name):
            step(lm, t, [Request(a, 0, "draft", chat(self._role(a), writing_task(item, words)), ()) for a in agents],
                 config=story_cfg, max_story_words=words)
            for r in range(1, self.rounds + 1):
                challenges = []
                for a in agents:
                    own = t.latest_version(a)
                    others = [t.latest_version(b) for b in agents if b != a]
                    text = (
                        f"Writing prompt: {item.text}\n\n" + block(OWN_STORY, own.content) + "\n\n"
                        + "\n\n".join(block(f"Story by {o.author}", o.content) for o in others)
                        + "\n\nChallenge the other writers' stories: point out where their speculative logic does not "
                        "hold and where their ideas are unoriginal or clichéd. Be specific and name the writer."
                    )
                    challenges.append(Request(a, r, "challenge", chat(self._role(a), text),
                                              (own.id, *(o.id for o in others))))
                step(lm, t, challenges, config=feedback_cfg, max_story_words=words)
                revisions = []
                for a in agents:
                    own = t.latest_version(a)
                    received = [m for m in t.select(kind="challenge", round=r) if m.author != a]
                    text = (
                        f"Writing prompt: {item.text}\n\n" + block(OWN_STORY, own.content) + "\n\n"
                        + "\n\n".join(block(f"Challenge from {m.author}", m.content) for m in received)
                        + "\n\n" + revise_instruction(words)
                    )
                    revisions.append(Request(a, r, "revision", chat(self._role(a), text),
                                             (own.id, *(m.id for m in received)), previous=own))
                step(lm, t, revisions, config=story_cfg, max_story_words=words)
        return t

    def settings(self) -> dict[str, Any]:
        """Parameters as plain JSON."""
        return framework_settings(self)
