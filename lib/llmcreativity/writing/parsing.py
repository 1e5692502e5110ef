"""Extracting the story from a model reply, recording every problem as a flag.

Writers are asked to put the line ``STORY:`` before their story. Replies that ignore the
marker, are empty, run past the word budget or were cut off by ``max_tokens`` are still
used, but each such problem is written into the message's flags so that later stages can
count or exclude them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..llm.types import FinishReason

STORY_MARKER = "STORY:"
"""The line writers are asked to put before their story."""

_MARKER = re.compile(r"^[\s#*_>`-]*story[\s*_`]*:[\s*_`]*", re.IGNORECASE | re.MULTILINE)
_END = re.compile(r"(?:^|(?<=[.!?\"”]))[\s*_#]*(?:the end|end of story)[\s.!*_#]*$", re.IGNORECASE)
_DELIMITER = re.compile(r"^[ \t]*(?:<{2,}|>{2,})[ \t]*", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)]*(?=\s|$)")

FLAG_MISSING_MARKER = "missing_marker"
"""No ``STORY:`` line: the whole reply was taken as the story."""
FLAG_EMPTY = "empty"
"""Nothing was left after parsing."""
FLAG_OVER_LONG = "over_long"
"""More words than the budget: cut at the last sentence end within the budget."""
FLAG_TRUNCATED = "truncated"
"""The model hit ``max_tokens`` (finish_reason "length"), so the text may stop mid-sentence."""
FLAG_KEPT_PREVIOUS = "kept_previous"
"""A revision came back empty, so the agent's previous version stands for this round."""


@dataclass(frozen=True)
class ParsedText:
    """Text taken from one reply, with what went wrong."""

    text: str
    """The extracted story or feedback, stripped."""
    flags: tuple[str, ...]
    """Problems found, from the FLAG_* constants, in a fixed order."""


def strip_delimiters(reply: str) -> str:
    """`reply` without the ``<<<`` / ``>>>`` quote delimiters of our prompts, which small models copy into replies."""
    return _DELIMITER.sub("", reply)


def cut_to_words(text: str, max_words: int) -> str:
    """The longest prefix of `text` with at most `max_words` words that ends at a sentence end.

    Falls back to the first `max_words` words when no sentence ends inside the budget.
    """
    words = list(re.finditer(r"\S+", text))
    if len(words) <= max_words:
        return text
    limit = words[max_words - 1].end()
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit + 1) if m.end() <= limit]
    return text[: ends[-1]] if ends else text[:limit]


def extract_story(reply: str, *, max_words: int, finish_reason: FinishReason = "stop") -> ParsedText:
    """The story in `reply`: the text after the first ``STORY:`` line, else the whole reply (flagged).

    A trailing "The End" is dropped; over-long stories are cut to `max_words` at a sentence end.
    """
    if max_words < 1:
        raise ValueError(f"max_words={max_words!r}: the story word budget must be >= 1")
    flags: list[str] = []
    reply = strip_delimiters(reply)
    match = _MARKER.search(reply)
    if match:
        text = reply[match.end():]
    else:
        text = reply
        if reply.strip():
            flags.append(FLAG_MISSING_MARKER)
    text = _END.sub("", text.strip()).strip()
    if not text:
        flags.append(FLAG_EMPTY)
    elif len(text.split()) > max_words:
        text = cut_to_words(text, max_words).strip()
        flags.append(FLAG_OVER_LONG)
    if finish_reason == "length":
        flags.append(FLAG_TRUNCATED)
    return ParsedText(text, tuple(flags))


def extract_feedback(reply: str, *, finish_reason: FinishReason = "stop") -> ParsedText:
    """Feedback text (a review, critique or challenge): the stripped reply, flagged when empty or cut off."""
    text = strip_delimiters(reply).strip()
    flags = [FLAG_EMPTY] if not text else []
    if finish_reason == "length":
        flags.append(FLAG_TRUNCATED)
    return ParsedText(text, tuple(flags))
