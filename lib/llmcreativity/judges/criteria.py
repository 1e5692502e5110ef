"""Ready-made criteria: the yes/no questions the judges decide for MacGyver solutions and for stories."""

from __future__ import annotations

from .records import Criterion

MACGYVER_VALID = Criterion(
    "valid",
    "The solution would really solve the stated problem using only the tools and materials listed, with steps that "
    "are physically possible and safe. If the problem cannot be solved with those items, a valid solution says so "
    "instead of pretending.",
)
"""One criterion matching MacGyver's human label (annotation starting with correct_)."""

MACGYVER_CRITERIA: tuple[Criterion, ...] = (
    Criterion("feasible", "Every step is physically possible with only the tools and materials the problem lists "
              "(or the solution rightly says the problem cannot be solved with them)."),
    Criterion("effective", "Carrying out the steps would actually achieve the goal the problem states."),
    Criterion("safe", "The steps do not put people or property at serious risk."),
)
"""The three MacGyver criteria of the paper; the item is valid when all three hold."""

STORY_CRITERIA: tuple[Criterion, ...] = (
    Criterion("coherent", "The story's events, characters and logic fit together without contradictions."),
    Criterion("complete", "The story has a beginning, a development and an ending, and answers its prompt."),
    Criterion("original", "The story takes the prompt somewhere unexpected instead of the most obvious reading."),
)
"""Binary criteria for stories."""
