"""The rubric judge: one backend grading a story on every dimension under either estimator."""

from __future__ import annotations

from collections.abc import Sequence

from ...llm.backend import Backend, answer_probs_batch
from ...llm.generate_config import GenerateConfig
from ..asking import Attempt, ask, remind_until_readable
from ..judgement import JudgeItem
from .dimensions import DIMENSIONS, Dimension
from .prompt import ANSWERS, REMINDER, parse_score, rubric_prompt
from .rubric_scores import MODES, Mode, RubricScore, expected_score, mean_of_samples

SAMPLING = GenerateConfig(n=3, temperature=0.7, max_tokens=8)
"""The sampled mode's default (the paper's): three samples per score at temperature 0.7, a reply of at most 8 tokens."""


class RubricJudge:
    """Grades stories (`JudgeItem`: id, writing prompt, story) on the rubric's dimensions with one judge backend.

    `sampling` sets the sampled mode (`sampling.n` repeats per score; the paper: three samples);
    `max_retries` is how many reminders an unreadable reply gets before its repeat is missing.
    Retry `a` of repeat `r` samples one reply with seed `sampling.seed + 1000 a + r`.
    """

    def __init__(self, lm: Backend, *, sampling: GenerateConfig = SAMPLING, max_retries: int = 1,
                 dimensions: Sequence[Dimension] = DIMENSIONS):
        if max_retries < 0:
            raise ValueError(f"max_retries={max_retries!r}: must be >= 0")
        if not dimensions:
            raise ValueError("dimensions is empty: pass at least one rubric Dimension")
        self.lm = lm
        self.sampling = sampling
        self.max_retries = max_retries
        self.dimensions = tuple(dimensions)

    def expected(self, item: JudgeItem) -> list[RubricScore]:
        """Expected-score mode: the digit distribution of every dimension, read in one batched call."""
        prompts = [rubric_prompt(item.task, item.response, dim) for dim in self.dimensions]
        out = []
        for dim, dist in zip(self.dimensions, answer_probs_batch(self.lm, prompts, list(ANSWERS)), strict=True):
            out.append(RubricScore(
                item.item_id, dim.key, "expected", self.lm.identity, expected_score(dist.probs),
                probs={k: float(v) for k, v in dist.probs.items()}, coverage=dist.coverage,
                prompt_tokens=dist.usage.prompt_tokens, completion_tokens=dist.usage.completion_tokens,
                seconds=dist.usage.seconds,
            ))
        return out

    def sampled(self, item: JudgeItem) -> list[RubricScore]:
        """Sampled mode: `sampling.n` replies per dimension (the prompts in one batch), retried when unreadable."""
        prompts = [rubric_prompt(item.task, item.response, dim) for dim in self.dimensions]
        firsts = ask(self.lm, prompts, self.sampling, parse_score)
        repeat = [r for row in firsts for r in range(len(row))]
        chains = remind_until_readable(
            self.lm, [a for row in firsts for a in row], parse=parse_score, readable=lambda v: v is not None,
            reminder=REMINDER, max_retries=self.max_retries,
            config=lambda attempt, i: self.sampling.merge(n=1, seed=self.sampling.seed + 1000 * attempt + repeat[i]),
        )
        n = self.sampling.n
        return [self._sampled_score(item, dim, chains[d * n:(d + 1) * n]) for d, dim in enumerate(self.dimensions)]

    def _sampled_score(self, item: JudgeItem, dim: Dimension,
                       repeats: list[list[Attempt[float | None]]]) -> RubricScore:
        """One dimension's record from the attempts of its repeats; usage summed over every attempt."""
        samples = [attempts[-1].parsed for attempts in repeats]
        usages = [a.completion.usage for attempts in repeats for a in attempts]
        return RubricScore(
            item.item_id, dim.key, "sampled", self.lm.identity, mean_of_samples(samples), samples=samples,
            raw=[attempts[-1].completion.text for attempts in repeats],
            retries=sum(len(attempts) - 1 for attempts in repeats),
            prompt_tokens=sum(u.prompt_tokens for u in usages),
            completion_tokens=sum(u.completion_tokens for u in usages),
            seconds=float(sum(u.seconds for u in usages)),
        )

    def score(self, item: JudgeItem, mode: Mode) -> list[RubricScore]:
        """The dimension scores of `item` under `mode` ("expected" or "sampled")."""
        if mode == "expected":
            return self.expected(item)
        if mode == "sampled":
            return self.sampled(item)
        raise ValueError(f"mode={mode!r}: choose one of {MODES}")
