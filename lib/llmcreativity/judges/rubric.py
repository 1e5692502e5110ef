"""The LLM Review paper's rubric judge: five creativity dimensions, each scored 0-5.

Two estimators of one dimension's score, on the same prompt:

- **sampled** (the paper's): sample the judge's reply `repeats` times, read a score from each,
  average the readable ones, s = (1/R) sum_r s_r. A reply with no readable score is retried
  with a reminder; if it still has none, that repeat is recorded as missing together with the raw
  reply, never turned into a number.
- **expected**: read the judge's next-token distribution over the answers "0".."5" once and report
  E[s] = sum_{k=0..5} k p(k | prompt) (renormalized over the six digits); no sampling noise, one
  forward pass. `coverage` = sum_k p(k | prompt) says how much of the model's mass went to a digit.

The five prompts of one story share their prefix (system text, writing prompt, story) and differ only
in the closing instruction naming the dimension, so a backend with prefix caching (vLLM, llama.cpp
server, OpenAI) reuses the story's encoding across dimensions; the sampled mode sends them as one batch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ..llm.config import GenerateConfig
from ..llm.types import Message
from ..jsonl import append_jsonl, read_jsonl

SCALE = (
    "Score on an integer scale from 0 to 5: 0 = suspected plagiarism or extremely poor; 1 = poor; 2 = weak; "
    "3 = adequate; 4 = good and original; 5 = highly original and excellent."
)
"""The score scale every dimension shares (the paper's anchors at 0 and 5)."""

ANSWERS: tuple[str, ...] = ("0", "1", "2", "3", "4", "5")
"""The admissible replies; the expected-score mode reads the judge's probability of each."""

MODES = ("expected", "sampled")
"""Estimators: expected score from the digit distribution, or the mean of sampled scores."""


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

SYSTEM = (
    "You are an expert editor of science fiction who grades short stories strictly and consistently. "
    "You will read one story, then grade it on one dimension of a rubric."
)
"""System message shared by every dimension prompt."""

REMINDER = "Your reply did not contain a score. Reply with a single digit from 0 to 5 and nothing else."
"""Follow-up sent after an unreadable reply in the sampled mode."""


def dimension(key: str) -> Dimension:
    """The dimension with `key`; an unknown key is an error listing the keys."""
    for d in DIMENSIONS:
        if d.key == key:
            return d
    raise ValueError(f"unknown rubric dimension {key!r}: choose from {[d.key for d in DIMENSIONS]}")


def rubric_prompt(prompt: str, story: str, dim: Dimension) -> list[Message]:
    """Chat messages asking for `dim`'s score of `story`, written for writing prompt `prompt`.

    Everything up to the story is identical for the five dimensions (the shared prefix); the
    dimension, its criterion and the scale come last.
    """
    if not story.strip():
        raise ValueError("story is empty: there is nothing to grade (drop stories with no text first)")
    user = (
        f"Writing prompt:\n{prompt.strip()}\n\nStory:\n{story.strip()}\n\n"
        f"Grade the story on this dimension only.\nDimension: {dim.name}.\nCriterion: {dim.criterion}\n{SCALE}\n"
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


@dataclass(frozen=True)
class RubricItem:
    """One story to grade."""

    story_id: str
    """Unique id of the story (the key of the output records)."""
    prompt: str
    """The writing prompt the story answers."""
    story: str
    """The story text."""


@dataclass(frozen=True)
class RubricScore:
    """One dimension's score of one story under one estimator: one line of the scores JSONL."""

    story_id: str
    """Id of the graded story."""
    dimension: str
    """Dimension key (see `DIMENSIONS`)."""
    mode: str
    """"expected" or "sampled"."""
    judge: str
    """Backend identity of the judge model."""
    score: float | None
    """The estimate on 0-5; None when missing (sampled mode with no readable reply)."""
    samples: list[float | None] = field(default_factory=list)
    """Sampled mode: the score read from each repeat (None = missing after retries); [] in expected mode."""
    raw: list[str] = field(default_factory=list)
    """Sampled mode: the final reply of each repeat, kept verbatim; [] in expected mode."""
    retries: int = 0
    """Sampled mode: extra calls made because a reply had no readable score."""
    probs: dict[str, float] = field(default_factory=dict)
    """Expected mode: p(k) over "0".."5", renormalized; {} in sampled mode."""
    coverage: float | None = None
    """Expected mode: the unnormalized mass sum_k p(k | prompt) the judge put on a digit."""
    prompt_tokens: int = 0
    """Prompt tokens over every call for this score."""
    completion_tokens: int = 0
    """Completion tokens over every call for this score."""
    seconds: float = 0.0
    """Model time over every call for this score."""

    def to_row(self) -> dict[str, Any]:
        """Plain-JSON form."""
        return asdict(self)


def expected_score(probs: dict[str, float]) -> float:
    """E[s] = sum_k k p(k) / sum_k p(k) over the digit answers."""
    total = sum(probs.values())
    if total <= 0:
        raise ValueError(f"probs={probs} has no mass: cannot form an expected score")
    return float(sum(float(k) * p for k, p in probs.items()) / total)


def mean_of_samples(samples: Sequence[float | None]) -> float | None:
    """s = (1/R') sum of the R' readable repeats; None when no repeat was readable."""
    readable = [s for s in samples if s is not None]
    return float(np.mean(readable)) if readable else None


class RubricJudge:
    """Grades stories on the five dimensions with one judge backend.

    `repeats`, `temperature` and `max_tokens` set the sampled mode (the paper: three samples);
    `max_retries` is how many reminders an unreadable reply gets before its repeat is missing.
    """

    def __init__(self, lm: Any, *, repeats: int = 3, temperature: float = 0.7, max_tokens: int = 8,
                 max_retries: int = 1, seed: int = 0, dimensions: Sequence[Dimension] = DIMENSIONS):
        if repeats < 1:
            raise ValueError(f"repeats={repeats!r}: the sampled mode needs at least one sample")
        if max_retries < 0:
            raise ValueError(f"max_retries={max_retries!r}: must be >= 0")
        if not dimensions:
            raise ValueError("dimensions is empty: pass at least one rubric Dimension")
        self.lm = lm
        self.repeats = repeats
        self.max_retries = max_retries
        self.dimensions = tuple(dimensions)
        self.config = GenerateConfig(n=repeats, temperature=temperature, top_p=1.0, max_tokens=max_tokens, seed=seed)

    def expected(self, item: RubricItem) -> list[RubricScore]:
        """Expected-score mode: one `answer_probs` call per dimension."""
        out = []
        for dim in self.dimensions:
            dist = self.lm.answer_probs(rubric_prompt(item.prompt, item.story, dim), list(ANSWERS))
            out.append(RubricScore(
                item.story_id, dim.key, "expected", self.lm.identity, expected_score(dist.probs),
                probs={k: float(v) for k, v in dist.probs.items()}, coverage=dist.coverage,
                prompt_tokens=dist.usage.prompt_tokens, completion_tokens=dist.usage.completion_tokens,
                seconds=dist.usage.seconds,
            ))
        return out

    def sampled(self, item: RubricItem) -> list[RubricScore]:
        """Sampled mode: `repeats` replies per dimension (the five prompts in one batch), retried when unreadable."""
        prompts = [rubric_prompt(item.prompt, item.story, dim) for dim in self.dimensions]
        batches = self.lm.generate(prompts, self.config)
        out = []
        for dim, prompt, completions in zip(self.dimensions, prompts, batches):
            samples, raw, retries = [], [], 0
            tokens = [0, 0, 0.0]
            for r, c in enumerate(completions):
                reply, value = c.text, parse_score(c.text)
                _add(tokens, c)
                conversation = list(prompt)
                for attempt in range(1, self.max_retries + 1):
                    if value is not None:
                        break
                    conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": REMINDER}]
                    (again,), = self.lm.generate([conversation], self.config.merge(n=1, seed=self.config.seed + 1000 * attempt + r))
                    retries += 1
                    _add(tokens, again)
                    reply, value = again.text, parse_score(again.text)
                samples.append(value)
                raw.append(reply)
            out.append(RubricScore(
                item.story_id, dim.key, "sampled", self.lm.identity, mean_of_samples(samples), samples=samples,
                raw=raw, retries=retries, prompt_tokens=int(tokens[0]), completion_tokens=int(tokens[1]),
                seconds=float(tokens[2]),
            ))
        return out

    def score(self, item: RubricItem, mode: str) -> list[RubricScore]:
        """The five dimension scores of `item` under `mode` ("expected" or "sampled")."""
        if mode == "expected":
            return self.expected(item)
        if mode == "sampled":
            return self.sampled(item)
        raise ValueError(f"mode={mode!r}: choose one of {MODES}")


def _add(acc: list, completion: Any) -> None:
    acc[0] += completion.usage.prompt_tokens
    acc[1] += completion.usage.completion_tokens
    acc[2] += completion.usage.seconds


def run_rubric(judge: RubricJudge, items: Iterable[RubricItem], path: str | Path, mode: str, *,
               progress: bool = True) -> list[RubricScore]:
    """Grade every item under `mode`, appending to the JSONL file `path`; stories already graded are skipped.

    A story counts as done when all of the judge's dimensions are in the file for this judge and
    mode, so a killed run resumes with the story it was grading. Returns the file's records for the
    given items, judge and mode (one per story and dimension, the last copy when resumed).
    """
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: choose one of {MODES}")
    items = list(items)
    ids = [it.story_id for it in items]
    if len(set(ids)) != len(ids):
        raise ValueError("items have duplicate story_id values: each story needs its own id")
    keys = {d.key for d in judge.dimensions}
    done: dict[str, set[str]] = {}
    for row in read_jsonl(path):
        if row["judge"] == judge.lm.identity and row["mode"] == mode:
            done.setdefault(row["story_id"], set()).add(row["dimension"])
    todo = [it for it in items if not keys <= done.get(it.story_id, set())]
    for item in tqdm(todo, desc=f"rubric ({mode})", disable=not progress):
        append_jsonl(path, [s.to_row() for s in judge.score(item, mode)])
    return read_scores(path, judge=judge.lm.identity, mode=mode, story_ids=set(ids))


def read_scores(path: str | Path, *, judge: str | None = None, mode: str | None = None,
                story_ids: set[str] | None = None) -> list[RubricScore]:
    """Records of a scores file, filtered; a record written twice (resumed run) counts once, last copy wins."""
    latest: dict[tuple[str, str, str, str], RubricScore] = {}
    for row in read_jsonl(path):
        s = RubricScore(**row)
        if (judge is None or s.judge == judge) and (mode is None or s.mode == mode) and \
                (story_ids is None or s.story_id in story_ids):
            latest[(s.story_id, s.dimension, s.mode, s.judge)] = s
    return list(latest.values())
