"""Prompt pieces every framework shares: the chat layout, the writing task, the revision instruction, quoted blocks."""

from __future__ import annotations

from ...llm.types import Message
from ..dataset import PromptItem
from ..parsing import STORY_MARKER
from ..persona import Persona


def chat(system: Persona | None, user: str) -> list[Message]:
    """Chat messages: the persona as system message (when given), then the user turn."""
    head = [{"role": "system", "content": system.description}] if system is not None else []
    return [*head, {"role": "user", "content": user}]


STORY_LENGTH = "approximately {max_words} words"
"""How long a story is asked to be, in the LLM Review paper's words ("approximately 300 words"); `max_words` is the
run's `max_story_words`. The parser still measures every story and cuts one that runs past `max_words` at a sentence
end, flagged `over_long` (`parsing.extract_story`)."""


def writing_task(item: PromptItem, max_words: int) -> str:
    """The instruction every writer gets for a first draft."""
    return (
        f"Writing prompt: {item.text}\n\n"
        f"Write an original science-fiction short story for this prompt, {STORY_LENGTH.format(max_words=max_words)}. "
        f"Begin your reply with the line {STORY_MARKER} and then write only the story."
    )


OWN_STORY = "Your story"
"""Label of the writer's own latest version in every revision prompt (and in Debate's challenges)."""

REVISION_INSTRUCTION = (
    "Revise your story using what you were shown above. Write the full revised story, " + STORY_LENGTH + ". "
    "Begin your reply with the line " + STORY_MARKER + " and then write only the story."
)
"""The one revision instruction of every framework (Teacher, Debate, Discussion, Review).

Frameworks differ only in what a revision prompt shows above it (the teacher's critique, the other
writers' challenges, the other writers' stories, the peer reviews), never in what the writer is asked
to do with it: no framework's wording steers its writers toward or away from the others' stories.
"""


def revise_instruction(max_words: int) -> str:
    """The closing instruction of every revision prompt: `REVISION_INSTRUCTION` with the word budget."""
    return REVISION_INSTRUCTION.format(max_words=max_words)


def block(label: str, text: str) -> str:
    """A labelled, delimited block of quoted text inside a prompt."""
    return f"{label}:\n<<<\n{text}\n>>>"
