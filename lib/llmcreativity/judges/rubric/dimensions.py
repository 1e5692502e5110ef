"""The rubric: five creativity dimensions of science fiction, each scored on one 0-5 scale."""

from __future__ import annotations

from dataclasses import dataclass

SCALE = (
    "Score on an integer scale from 0 to 5: 0 = suspected plagiarism or extremely poor; 1 = poor; 2 = weak; "
    "3 = adequate; 4 = good and original; 5 = highly original and excellent."
)
"""The score scale every dimension shares (the paper's anchors at 0 and 5)."""

@dataclass(frozen=True)
class Dimension:
    """One rubric dimension."""

    key: str
    """Short column name, e.g. "integration"."""
    name: str
    """Name as the paper gives it."""
    criterion: str
    """What a high score means, written out for the judge."""


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("integration", "Integration of Scientific Concepts",
              "Scientific or technological ideas are woven into the narrative and drive it: events, choices and "
              "consequences depend on them. Ideas that are only named, explained in an inserted lecture, or could "
              "be removed without changing the story score low."),
    Dimension("logic", "Speculative Logic",
              "The imagined setting is self-consistent: its premises are clear, the story follows their "
              "consequences, and nothing contradicts the rules it set up. Hand-waving, contradictions or effects "
              "without causes score low."),
    Dimension("character", "Character Depth",
              "Characters have distinct personalities and voices, and full motivations that explain what they do; "
              "they change or reveal themselves through the events. Interchangeable names without inner life "
              "score low."),
    Dimension("world", "Immersive World-Building",
              "Scenes, places, societies and the world's rules are rendered with enough concrete, consistent "
              "detail that the reader can imagine being there. A bare or generic backdrop scores low."),
    Dimension("ethics", "Ethical and Philosophical Themes",
              "The story explores ethical or philosophical questions in depth: it shows their stakes through the "
              "characters and events and weighs more than one side. Themes only mentioned or moralized scores low."),
)
"""The paper's five dimensions, in its table's order."""

