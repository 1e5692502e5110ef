"""Ready-made criteria sets: the yes/no questions the judges decide, by name (`criteria_set`).

- `paper`: the convergent criteria of the automated-creativity paper, feasibility, coherence,
  relevance and domain correctness, for any domain;
- `macgyver`: MacGyver's own three (feasible, effective, safe), the qualities its human label judges;
- `valid`: one criterion that restates MacGyver's label (the cheapest match to it);
- `story`: binary criteria for stories (coherent, complete, original).

A judge's verdict on an item is the AND over the set's criteria.
"""

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
"""MacGyver's three qualities (its human label judges feasibility, efficacy and safety); valid when all three hold."""

PAPER_CRITERIA: tuple[Criterion, ...] = (
    Criterion("feasible", "Yes if the solution can actually be carried out with the resources, tools and conditions "
              "the task allows; no if any step is physically, practically or logically impossible."),
    Criterion("coherent", "Yes if the solution's steps or parts fit together in a sensible order without "
              "contradicting each other; no if a step contradicts another or does not follow from the earlier ones."),
    Criterion("relevant", "Yes if the solution addresses the goal the task actually states; no if it solves a "
              "different or only loosely related problem."),
    Criterion("domain-correct", "Yes if every factual, scientific or technical statement the solution relies on is "
              "correct in the task's domain; no if it relies on a false fact or a misused principle."),
)
"""The automated-creativity paper's convergent criteria: feasibility, coherence, relevance, domain correctness."""

STORY_CRITERIA: tuple[Criterion, ...] = (
    Criterion("coherent", "The story's events, characters and logic fit together without contradictions."),
    Criterion("complete", "The story has a beginning, a development and an ending, and answers its prompt."),
    Criterion("original", "The story takes the prompt somewhere unexpected instead of the most obvious reading."),
)
"""Binary criteria for stories."""

CRITERIA_SETS: dict[str, tuple[Criterion, ...]] = {
    "valid": (MACGYVER_VALID,), "macgyver": MACGYVER_CRITERIA, "paper": PAPER_CRITERIA, "story": STORY_CRITERIA,
}
"""Criteria set name -> its criteria."""


def criteria_set(name: str) -> tuple[Criterion, ...]:
    """The criteria of the set `name` (one of `CRITERIA_SETS`); an unknown name raises, listing the sets.

    >>> [c.name for c in criteria_set("paper")]
    ['feasible', 'coherent', 'relevant', 'domain-correct']
    """
    if name not in CRITERIA_SETS:
        raise ValueError(f"criteria={name!r} is not a criteria set: use one of {list(CRITERIA_SETS)} "
                         "('paper' = the automated-creativity paper's four, 'macgyver' = MacGyver's own three)")
    return CRITERIA_SETS[name]
