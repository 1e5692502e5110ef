"""Checklist judges: K short yes/no questions about an item, each answered as p(yes) by an embedded language model,
combined by weights fitted on the development labels.

An item's prompt is its text followed by one question, so the K prompts of an item share their prefix, which a
local model reads once (`llm.backend.answer_probs_batch`). Each answer enters the head as its log-odds
log(p / (1 - p)), p = p(Yes) / (p(Yes) + p(No)) clipped to [1e-4, 1 - 1e-4]. The direct question alone, unfitted,
is the "p(yes)" protocol.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..llm.backend import Backend, answer_probs_batch

ANSWERS: tuple[str, str] = ("Yes", "No")
"""The affirmative and negative answers read from the model's next-token probabilities."""

SYSTEM = "You check proposed solutions to practical problems. Answer each question with one word, Yes or No."
"""The system message of every checklist prompt."""

SOLUTION_QUESTIONS: tuple[str, ...] = (
    "Is this a correct solution to the problem?",
    "Does the solution use only the tools and items the problem lists?",
    "Would the solution physically work in the real world?",
    "Does the solution achieve the goal the problem asks for?",
    "Is the solution safe, harming no one and damaging nothing of value?",
    "Is the solution clear and specific enough to carry out?",
)
"""The solution-validity checklist, written before any answer was read; the first is the direct question."""

DIRECT = 0
"""Index of the direct question, the "p(yes)" protocol."""


def solution_prompts(problem: str, solution: str,
                     questions: Sequence[str] = SOLUTION_QUESTIONS) -> list[list[dict[str, str]]]:
    """The K chat prompts of one solution: the problem and solution, then one question each."""
    body = f"Problem: {problem.strip()}\n\nProposed solution: {solution.strip()}\n\nQuestion: "
    return [[{"role": "system", "content": SYSTEM}, {"role": "user", "content": body + q}] for q in questions]


def log_odds(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)) with p clipped to [1e-4, 1 - 1e-4]."""
    q = np.clip(np.asarray(p, dtype=float), 1e-4, 1 - 1e-4)
    out: np.ndarray = np.log(q / (1 - q))
    return out


def answer_matrix(lm: Backend, problems: Sequence[str], solutions: Sequence[str],
                  questions: Sequence[str] = SOLUTION_QUESTIONS) -> np.ndarray:
    """Items x questions: p(Yes) / (p(Yes) + p(No)) of each answer (`AnswerDistribution.probs`, renormalised over
    the two answers)."""
    if len(problems) != len(solutions):
        raise ValueError(f"{len(problems)} problems and {len(solutions)} solutions: give one problem per solution")
    rows = []
    for problem, solution in zip(problems, solutions, strict=True):
        dists = answer_probs_batch(lm, list(solution_prompts(problem, solution, questions)), list(ANSWERS))
        rows.append([d.probs[ANSWERS[0]] for d in dists])
    return np.array(rows, dtype=float).reshape(len(problems), len(questions))
