"""Records returned by backends."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

Message = dict[str, str]
"""One chat message in OpenAI form: {"role": "system" | "user" | "assistant", "content": str}."""

Prompt = str | list[Message]
"""A plain-text prompt (no chat template) or a list of chat messages."""


def prompt_text(prompt: Prompt) -> str:
    """All text of a prompt joined, for matching and token counts."""
    return prompt if isinstance(prompt, str) else "\n".join(m["content"] for m in prompt)


FinishReason = Literal["stop", "length", "error"]


@dataclass
class Usage:
    """Cost of one backend call."""

    prompt_tokens: int = 0
    """Tokens in the prompt (counted once per call, even for n samples)."""
    completion_tokens: int = 0
    """Tokens generated, summed over samples."""
    seconds: float = 0.0
    """Wall time of the call as it was computed (not of a cache read)."""
    cached: bool = False
    """True when the answer came from the cache and no model ran."""

    @property
    def total_tokens(self) -> int:
        """prompt_tokens + completion_tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Completion:
    """One sampled completion with its token log-probabilities (natural log)."""

    text: str
    """The completion text, stop string removed."""
    tokens: list[str]
    """The generated tokens as strings."""
    logprobs: list[float]
    """log p(token_j | prompt, tokens_<j) under the sampling model at temperature 1, one per token."""
    finish_reason: FinishReason
    """"stop" (end of sequence or a stop string), "length" (max_tokens reached) or "error"."""
    usage: Usage = field(default_factory=Usage)
    """Cost of producing this completion (prompt tokens are shared across the n samples of a call)."""

    @property
    def sum_logprob(self) -> float:
        """log p(sequence) = sum_j log p(x_j | x_<j)."""
        return float(sum(self.logprobs))

    @property
    def mean_logprob(self) -> float:
        """Length-normalized log-probability (1/L) sum_j log p(x_j | x_<j); -inf for an empty completion."""
        return self.sum_logprob / len(self.logprobs) if self.logprobs else -math.inf


@dataclass
class TokenScores:
    """Teacher-forced log-probabilities of a given continuation after a context."""

    tokens: list[str]
    """Continuation tokens as strings."""
    logprobs: list[float]
    """log p(x_j | context, x_<j), natural log, one per continuation token."""
    usage: Usage = field(default_factory=Usage)


@dataclass
class AnswerDistribution:
    """Probability of each of a few short answers as the model's next output."""

    probs: dict[str, float]
    """p(answer | prompt) renormalized over the given answers; sums to 1."""
    logprobs: dict[str, float]
    """Unnormalized log p(answer | prompt) of each answer's full token sequence."""
    usage: Usage = field(default_factory=Usage)

    @property
    def coverage(self) -> float:
        """Probability mass the model put on the given answers, sum_a p(a|prompt), in [0, 1]."""
        return float(sum(math.exp(v) for v in self.logprobs.values()))

    def expected(self) -> float:
        """E[a] = sum_a a p(a) for numeric answers (e.g. the digits 0-5 of a rubric score)."""
        return float(sum(float(a) * p for a, p in self.probs.items()))
