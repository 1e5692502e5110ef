"""Ready-made criteria sets: the yes/no questions the judges decide, by name (`criteria_set`).

- `paper`: the convergent criteria of the automated-creativity paper, feasibility, coherence,
  relevance and domain correctness, for any domain;
- `macgyver`: MacGyver's own three (feasible, effective, safe), the qualities its human label judges;
- `valid`: one criterion that restates MacGyver's label (the cheapest match to it);
- `story`: binary criteria for stories (coherent, complete, original).

A judge decides a set in one discussion by default (`criteria_mode="joint"`): the set becomes one criterion
(`joint_criterion`) that holds only when every one of its criteria does, and the judge reaches one binary
verdict on it, as the paper's panel does. The ablation `criteria_mode="per_criterion"` decides each criterion
apart and ANDs the verdicts. A set of one criterion is decided the same way under both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from .judgement import Criterion

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

CriteriaMode = Literal["joint", "per_criterion"]
"""How a judge decides a set of criteria: one discussion over all of them with one binary verdict ("joint", the
paper's) or one discussion per criterion, the verdicts AND-ed ("per_criterion", an ablation)."""
CRITERIA_MODES: tuple[str, ...] = get_args(CriteriaMode)
"""`CriteriaMode`'s values."""


def joint_criterion(criteria: Sequence[Criterion]) -> Criterion:
    """One criterion that holds when every one of `criteria` holds: named for them all, defined by each in turn; a
    single criterion is returned as it is (so its prompts are those of the per-criterion form).

    >>> joint_criterion(MACGYVER_CRITERIA).name
    'feasible, effective and safe'
    """
    if not criteria:
        raise ValueError("joint_criterion needs at least one Criterion")
    if len(criteria) == 1:
        return criteria[0]
    names = [c.name for c in criteria]
    parts = "\n".join(f"- {c.name}: {c.definition}" for c in criteria)
    return Criterion(f"{', '.join(names[:-1])} and {names[-1]}",
                     f"Yes only if every one of these holds; no if any one fails.\n{parts}")


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
