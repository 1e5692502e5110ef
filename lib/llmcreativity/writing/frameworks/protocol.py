"""What every framework shares: the protocol, its stored settings, and one batched step of agent calls."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from typing import Any, Protocol

from ...llm.backend import Backend
from ...llm.generate_config import GenerateConfig
from ..dataset import PromptItem
from ..parsing import FLAG_KEPT_PREVIOUS, extract_feedback, extract_story
from ..persona import Persona
from ..transcript import STORY_KINDS, Message, MessageKind, Transcript
from .writing_config import WritingConfig


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
    version (flagged "kept_previous"). Feedback replies are parsed with `extract_feedback`. Only the text is read,
    so no log-probabilities are asked for.
    """
    if not requests:
        return []
    replies = lm.generate([r.prompt for r in requests], config.merge(logprobs=False))
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
