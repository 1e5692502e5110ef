"""What every framework shares: sampling settings, one batched step of agent calls, prompt pieces."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from typing import Any, Protocol

from ...llm.backend import Backend
from ...llm.config import GenerateConfig
from ..dataset import PromptItem
from ..parsing import FLAG_KEPT_PREVIOUS, STORY_MARKER, extract_feedback, extract_story
from ..persona import Persona
from ..transcript import STORY_KINDS, Message, MessageKind, Transcript

STORY_SAMPLING = GenerateConfig(temperature=0.8, top_p=0.95, max_tokens=400)
"""Default sampling of a writing run: temperature 0.8, nucleus 0.95, 400 tokens per draft or revision."""


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

    def story_config(self) -> GenerateConfig:
        """Sampling settings of story versions."""
        return self.sampling

    def feedback_config(self) -> GenerateConfig:
        """Sampling settings of feedback messages: `sampling` with max_tokens = feedback_max_tokens."""
        return self.sampling.merge(max_tokens=self.feedback_max_tokens)

    def to_dict(self) -> dict[str, Any]:
        """The flat plain-JSON form stored in every story's settings ("stop" only when set)."""
        s = self.sampling
        out: dict[str, Any] = {"temperature": s.temperature, "top_p": s.top_p, "story_max_tokens": s.max_tokens,
                               "feedback_max_tokens": self.feedback_max_tokens,
                               "max_story_words": self.max_story_words, "seed": s.seed}
        if s.stop:
            out["stop"] = list(s.stop)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> WritingConfig:
        """Inverse of `to_dict` (e.g. a stored story's ``settings["config"]``)."""
        d = dict(d)
        sampling = GenerateConfig(temperature=d.pop("temperature"), top_p=d.pop("top_p"),
                                  max_tokens=d.pop("story_max_tokens"), seed=d.pop("seed"),
                                  stop=tuple(d.pop("stop", ())))
        return cls(sampling, **d)


@dataclass(frozen=True)
class Request:
    """One agent call to be made within a batched step."""

    author: str
    """Agent making the call."""
    round: int
    """Round the reply belongs to."""
    kind: MessageKind
    """Message kind of the reply."""
    prompt: list[dict[str, str]]
    """Chat messages to send."""
    visible: tuple[str, ...]
    """Ids of the messages whose text the prompt contains."""
    target: str | None = None
    """Agent a feedback message is about."""
    previous: Message | None = None
    """For revisions: the version that stands if the revision comes back empty."""


class Framework(Protocol):
    """A writing protocol over agents."""

    name: str

    def run(self, lm: Backend, item: PromptItem) -> Transcript:
        """Write for one prompt; every model call goes through `lm` under the tag `name`."""
        ...

    def settings(self) -> dict[str, Any]:
        """The framework's parameters as plain JSON, stored with every story."""
        ...


def framework_settings(framework: Any) -> dict[str, Any]:
    """Plain-JSON parameters of a framework dataclass: personas by name, the config in its flat form."""
    out: dict[str, Any] = {}
    for f in fields(framework):
        if f.name == "name":
            continue
        value = getattr(framework, f.name)
        if isinstance(value, WritingConfig):
            value = value.to_dict()
        elif isinstance(value, Persona):
            value = value.name
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Persona) for v in value):
            value = [v.name for v in value]
        out[f.name] = value
    return out


def usage_tag(lm: Backend, name: str) -> AbstractContextManager[None]:
    """`lm.tagged(name)`, so usage is accounted per framework; a clear error for backends without accounting."""
    if not hasattr(lm, "tagged"):
        raise TypeError(f"{type(lm).__name__} has no tagged(): pass a backend from get_backend(), or wrap it as "
                        "CachedBackend(backend, cache=None)")
    return lm.tagged(name)


def message_id(framework: str, prompt_id: str, round: int, kind: str, author: str, target: str | None) -> str:
    """``<framework>/<prompt_id>/r<round>/<kind>/<author>[-><target>]``."""
    base = f"{framework}/{prompt_id}/r{round}/{kind}/{author}"
    return f"{base}->{target}" if target else base


def step(lm: Backend, transcript: Transcript, requests: list[Request], *, config: GenerateConfig,
         max_story_words: int) -> list[Message]:
    """Make all `requests` in ONE `lm.generate` call, parse the replies and append them to `transcript`.

    Story replies are parsed with `extract_story`; an empty revision keeps the author's previous
    version (flagged "kept_previous"). Feedback replies are parsed with `extract_feedback`.
    """
    if not requests:
        return []
    replies = lm.generate([r.prompt for r in requests], config)
    out = []
    for req, completions in zip(requests, replies, strict=True):
        c = completions[0]
        if req.kind in STORY_KINDS:
            parsed = extract_story(c.text, max_words=max_story_words, finish_reason=c.finish_reason)
            story, flags = parsed.text, parsed.flags
            if not story and req.previous is not None:
                story, flags = req.previous.content, (*flags, FLAG_KEPT_PREVIOUS)
        else:
            parsed = extract_feedback(c.text, finish_reason=c.finish_reason)
            story, flags = None, parsed.flags
        msg = Message(
            id=message_id(transcript.framework, transcript.prompt_id, req.round, req.kind, req.author, req.target),
            framework=transcript.framework, prompt_id=transcript.prompt_id, author=req.author, round=req.round,
            kind=req.kind, prompt=req.prompt, visible=req.visible, text=c.text, target=req.target, story=story,
            flags=flags, finish_reason=c.finish_reason, prompt_tokens=c.usage.prompt_tokens,
            completion_tokens=c.usage.completion_tokens, seconds=c.usage.seconds,
        )
        transcript.add(msg)
        out.append(msg)
    return out


def chat(system: Persona | None, user: str) -> list[dict[str, str]]:
    """Chat messages: the persona as system message (when given), then the user turn."""
    head = [{"role": "system", "content": system.description}] if system is not None else []
    return [*head, {"role": "user", "content": user}]


def writing_task(item: PromptItem, max_words: int) -> str:
    """The instruction every writer gets for a first draft."""
    return (
        f"Writing prompt: {item.text}\n\n"
        f"Write an original science-fiction short story for this prompt, at most {max_words} words. "
        f"Begin your reply with the line {STORY_MARKER} and then write only the story."
    )


def revise_instruction(max_words: int) -> str:
    """The closing instruction of every revision prompt."""
    return (
        f"Write the full revised story, at most {max_words} words. "
        f"Begin your reply with the line {STORY_MARKER} and then write only the story."
    )


def block(label: str, text: str) -> str:
    """A labelled, delimited block of quoted text inside a prompt."""
    return f"{label}:\n<<<\n{text}\n>>>"
