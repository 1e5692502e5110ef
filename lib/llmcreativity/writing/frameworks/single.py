"""Single Agent: one writer with a persona writes the story in one call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...llm.backend import Backend
from ..dataset import PromptItem
from ..persona import WRITER, Persona
from ..transcript import Transcript
from .prompts import chat, writing_task
from .protocol import Request, framework_settings, step, usage_tag
from .writing_config import WritingConfig


@dataclass(frozen=True)
class SingleAgent:
    """One writer, one draft, no interaction."""

    persona: Persona = WRITER
    """The writer's persona."""
    config: WritingConfig = WritingConfig()
    """Sampling settings."""
    name: str = "single"
    """Framework name in transcripts, records and usage tags."""

    def run(self, lm: Backend, item: PromptItem) -> Transcript:
        """Round 0: the writer drafts from the prompt alone."""
        t = Transcript(self.name, item.prompt_id)
        request = Request(self.persona.name, 0, "draft",
                          chat(self.persona, writing_task(item, self.config.max_story_words)), ())
        with usage_tag(lm, self.name):
            step(lm, t, [request], config=self.config.story_config(), max_story_words=self.config.max_story_words)
        return t

    def settings(self) -> dict[str, Any]:
        """Parameters as plain JSON."""
        return framework_settings(self)
