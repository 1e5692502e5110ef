"""LLM Teacher: a teacher critiques each student's draft; each student revises from that feedback."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...llm.backend import Backend
from ..dataset import PromptItem
from ..persona import REVIEW_PERSONAS, TEACHER, Persona
from ..transcript import Transcript
from .prompts import OWN_STORY, block, chat, revise_instruction, writing_task
from .protocol import Request, framework_settings, step, usage_tag
from .writing_config import WritingConfig


@dataclass(frozen=True)
class LLMTeacher:
    """Students draft; every round the teacher critiques each student's latest version and the student revises.

    Information flow: the teacher's critique of student s sees only s's latest version; s's
    revision sees only its own latest version and the teacher's critique of it.
    """

    students: tuple[Persona, ...] = REVIEW_PERSONAS
    """Student personas (names must be distinct and differ from the teacher's)."""
    teacher: Persona = TEACHER
    """The teacher's persona."""
    rounds: int = 1
    """Critique-and-revise rounds after the drafts."""
    config: WritingConfig = WritingConfig()
    """Sampling settings."""
    name: str = "teacher"
    """Framework name."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.students]
        if not names or len(set(names)) != len(names) or self.teacher.name in names:
            raise ValueError(f"students={names}, teacher={self.teacher.name!r}: need >= 1 student, all names distinct")
        if self.rounds < 1:
            raise ValueError(f"rounds={self.rounds!r}: LLM Teacher needs at least one round of critique")

    def run(self, lm: Backend, item: PromptItem) -> Transcript:
        """Drafts, then `rounds` x (critiques, revisions), each phase one batched call."""
        t = Transcript(self.name, item.prompt_id)
        words = self.config.max_story_words
        story_cfg, feedback_cfg = self.config.story_config(), self.config.feedback_config()
        with usage_tag(lm, self.name):
            drafts = [Request(s.name, 0, "draft", chat(s, writing_task(item, words)), ()) for s in self.students]
            step(lm, t, drafts, config=story_cfg, max_story_words=words)
            for r in range(1, self.rounds + 1):
                critiques = []
                for s in self.students:
                    latest = t.latest_version(s.name)
                    text = (
                        f"Writing prompt: {item.text}\n\n"
                        + block("A student's story", latest.content)
                        + "\n\nGive the student specific feedback: what works, what is weak in its science, logic, "
                        "characters and imagery, and how to make it more original. Do not rewrite the story."
                    )
                    critiques.append(Request(self.teacher.name, r, "critique", chat(self.teacher, text), (latest.id,),
                                             target=s.name))
                step(lm, t, critiques, config=feedback_cfg, max_story_words=words)
                revisions = []
                for s in self.students:
                    latest = t.latest_version(s.name)
                    critique = t.select(kind="critique", round=r, target=s.name)[0]
                    text = (
                        f"Writing prompt: {item.text}\n\n"
                        + block(OWN_STORY, latest.content) + "\n\n"
                        + block("Your teacher's feedback", critique.content)
                        + "\n\n" + revise_instruction(words)
                    )
                    revisions.append(Request(s.name, r, "revision", chat(s, text), (latest.id, critique.id),
                                             previous=latest))
                step(lm, t, revisions, config=story_cfg, max_story_words=words)
        return t

    def settings(self) -> dict[str, Any]:
        """Parameters as plain JSON."""
        return framework_settings(self)
