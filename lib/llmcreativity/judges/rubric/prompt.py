"""What the rubric judge is asked and how a score is read from its reply."""

from __future__ import annotations

import re

from ...llm.types import Message
from .dimensions import SCALE, Dimension

ANSWERS: tuple[str, ...] = ("0", "1", "2", "3", "4", "5")
"""The admissible replies; the expected-score mode reads the judge's probability of each."""

SYSTEM = (
    "You are an expert editor of science fiction who grades short stories strictly and consistently. "
    "You will read one story, then grade it on one dimension of a rubric."
)
"""System message shared by every dimension prompt."""

REMINDER = "Your reply did not contain a score. Reply with a single digit from 0 to 5 and nothing else."
"""Follow-up sent after an unreadable reply in the sampled mode."""


def rubric_prompt(prompt: str, story: str, dim: Dimension) -> list[Message]:
    """Chat messages asking for `dim`'s score of `story`, written for writing prompt `prompt`.

    Everything up to "Dimension:" is identical for the five dimensions (the shared prefix: system text,
    writing prompt, story, the task and the scale), so a backend with prefix reuse reads it once per story;
    only the dimension, its criterion and the one-line reply instruction differ, and they come last.
    """
    if not story.strip():
        raise ValueError("story is empty: there is nothing to grade (drop stories with no text first)")
    user = (
        f"Writing prompt:\n{prompt.strip()}\n\nStory:\n{story.strip()}\n\n"
        f"Grade the story on the one dimension named below, and on nothing else.\n{SCALE}\n\n"
        f"Dimension: {dim.name}.\nCriterion: {dim.criterion}\n"
        "Reply with a single digit from 0 to 5 and nothing else."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


_LABELLED = re.compile(r"score\W{0,4}(\d+(?:\.\d+)?)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w])")


def parse_score(text: str) -> float | None:
    """The score in a judge's reply, or None when there is none on the 0-5 scale.

    A labelled score ("Score: 4") wins, the last one if several; otherwise the first number in the
    reply ("4", "4/5", "I give it 3 out of 5"). A number outside [0, 5] is None, not clipped.
    """
    labelled = _LABELLED.findall(text)
    found = labelled[-1] if labelled else next(iter(_NUMBER.findall(text)), None)
    if found is None:
        return None
    value = float(found)
    return value if 0 <= value <= 5 else None


