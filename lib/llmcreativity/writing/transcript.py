"""Transcripts: every message of a framework run, with the exact prompt and what it could see. A `Message` is stored as
its JSON form (`dataclass_json.to_json`), one line of a transcripts file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from ..llm.types import FinishReason
from .parsing import extract_feedback

FrameworkName = Literal["single", "teacher", "debate", "discussion", "review"]
"""The writing frameworks: the Single Agent, the three multi-agent baselines and LLM Review."""

MessageKind = Literal["draft", "revision", "review", "critique", "challenge"]
"""Story versions (draft, revision) and feedback (review, critique, challenge)."""

STORY_KINDS: tuple[MessageKind, ...] = ("draft", "revision")
"""Kinds of message that carry a version of a story."""


@dataclass(frozen=True)
class Message:
    """One model reply inside a framework run."""

    id: str
    """Unique id: ``<framework>/<prompt_id>/r<round>/<kind>/<author>[-><target>]``."""
    framework: FrameworkName
    """Framework that produced it."""
    prompt_id: str
    """SciFi-100 prompt id the run was writing for."""
    author: str
    """Agent that wrote it."""
    round: int
    """0 for initial drafts, r >= 1 for the r-th round of feedback and revision."""
    kind: MessageKind
    """"draft", "revision" (story versions) or "review", "critique", "challenge" (feedback)."""
    prompt: list[dict[str, str]]
    """The exact chat messages sent to the model."""
    visible: tuple[str, ...]
    """Ids of the earlier messages whose text was put into `prompt` (and no others)."""
    text: str
    """The raw reply."""
    target: str | None = None
    """For feedback: the agent whose story it is about; None when it addresses several or none."""
    story: str | None = None
    """For story versions: the story parsed from `text` (after fallbacks); None for feedback."""
    flags: tuple[str, ...] = ()
    """Parsing problems (see `llmcreativity.writing.parsing`)."""
    finish_reason: FinishReason = "stop"
    """The backend's finish reason for this reply."""
    prompt_tokens: int = 0
    """Prompt tokens of this call."""
    completion_tokens: int = 0
    """Tokens generated for this reply."""
    seconds: float = 0.0
    """Model time of this reply when it was computed (the backend's share of its batch; kept on cache hits)."""

    @property
    def content(self) -> str:
        """What other agents are shown of this message: the story for story versions, else the parsed feedback."""
        return self.story if self.story is not None else extract_feedback(self.text).text


@dataclass
class Transcript:
    """The ordered messages of one framework run on one prompt."""

    framework: str
    """Framework name."""
    prompt_id: str
    """Prompt the run wrote for."""
    messages: list[Message] = field(default_factory=list)
    """Messages in the order they were produced."""

    def add(self, message: Message) -> None:
        """Append `message`; its visible ids must name messages already in the transcript."""
        known = {m.id for m in self.messages}
        if message.id in known:
            raise ValueError(f"message id {message.id!r} is already in the transcript")
        unknown = [v for v in message.visible if v not in known]
        if unknown:
            raise ValueError(f"message {message.id!r} claims to see {unknown}, which are not earlier messages")
        self.messages.append(message)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    def get(self, message_id: str) -> Message:
        """The message with id `message_id`."""
        for m in self.messages:
            if m.id == message_id:
                return m
        raise KeyError(f"no message {message_id!r} in the transcript of {self.framework}/{self.prompt_id}")

    def select(self, *, kind: str | Iterable[str] | None = None, author: str | None = None,
               round: int | None = None, target: str | None = None) -> list[Message]:
        """Messages matching every given filter, in order."""
        kinds = {kind} if isinstance(kind, str) else (set(kind) if kind is not None else None)
        return [
            m for m in self.messages
            if (kinds is None or m.kind in kinds)
            and (author is None or m.author == author)
            and (round is None or m.round == round)
            and (target is None or m.target == target)
        ]

    def latest_version(self, author: str, *, up_to_round: int | None = None) -> Message:
        """The author's most recent story version (at or before `up_to_round` when given)."""
        versions = [m for m in self.select(kind=STORY_KINDS,
                                           author=author) if up_to_round is None or m.round <= up_to_round]
        if not versions:
            raise KeyError(f"{author!r} has no story version in {self.framework}/{self.prompt_id}")
        return versions[-1]

    def writers(self) -> list[str]:
        """Authors of story versions, in order of first appearance."""
        return list(dict.fromkeys(m.author for m in self.select(kind=STORY_KINDS)))

    def finals(self) -> list[Message]:
        """Each writer's last story version: the stories the run delivers."""
        return [self.latest_version(a) for a in self.writers()]
