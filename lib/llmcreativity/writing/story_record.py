"""The story record that later stages read, one line of stories.jsonl per final story (its JSON form,
`dataclass_json.to_json`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dataclass_json import from_json
from ..jsonl import read_jsonl
from .dataset import PromptItem
from .transcript import FrameworkName, Message, Transcript


@dataclass(frozen=True)
class StoryRecord:
    """One final story of one framework run on one prompt: one line of ``stories.jsonl``."""

    prompt_id: str
    """SciFi-100 prompt id (``<category slug>-<index>``)."""
    category: str
    """The prompt's writing category."""
    prompt: str
    """The prompt text."""
    framework: FrameworkName
    """The framework that wrote it."""
    agent: str
    """Writer that produced the story."""
    persona: str | None
    """Writer persona name, None where the framework gives none (debate)."""
    round: int
    """Round of the final version (0 = never revised)."""
    story: str
    """The final story text ("" when the model produced none; then flags says so)."""
    flags: list[str]
    """Parsing problems of the final version (see `llmcreativity.writing.parsing`); [] when clean."""
    model: str
    """Backend identity of the model that wrote it."""
    tokens: int
    """Prompt + completion tokens of the whole framework run on this prompt (all agents, all calls)."""
    story_tokens: int
    """Completion tokens of the final version's reply."""
    seconds: float
    """Model seconds of the whole framework run on this prompt (as computed, also when later read from the cache)."""
    n_words: int
    """Words in `story`."""
    message_id: str
    """Id of the transcript message holding this version."""
    settings: dict[str, Any]
    """The framework's parameters (rounds, personas, sampling settings)."""


def story_records(transcript: Transcript, item: PromptItem, *, model: str, settings: dict[str, Any],
                  personas: dict[str, str | None]) -> list[StoryRecord]:
    """The run's final stories as records; `personas` maps agent name -> persona name."""
    run_tokens = sum(m.prompt_tokens + m.completion_tokens for m in transcript)
    run_seconds = sum(m.seconds for m in transcript)
    out = []
    for m in transcript.finals():
        story = m.story or ""
        out.append(StoryRecord(
            prompt_id=item.prompt_id, category=item.category, prompt=item.text, framework=transcript.framework,
            agent=m.author, persona=personas.get(m.author), round=m.round, story=story, flags=list(m.flags),
            model=model, tokens=run_tokens, story_tokens=m.completion_tokens, seconds=run_seconds,
            n_words=len(story.split()),
            message_id=m.id, settings=settings,
        ))
    return out


def read_transcripts(path: str | Path) -> dict[tuple[str, str], Transcript]:
    """Transcripts by (framework, prompt_id); a message written twice (a resumed run) counts once, last copy wins."""
    by_id: dict[str, Message] = {}
    for row in read_jsonl(path):
        by_id.pop(row["id"], None)
        by_id[row["id"]] = from_json(Message, row)
    out: dict[tuple[str, str], Transcript] = {}
    for m in by_id.values():
        out.setdefault((m.framework, m.prompt_id), Transcript(m.framework, m.prompt_id)).messages.append(m)
    return out
