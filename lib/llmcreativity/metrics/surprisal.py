"""Mean token surprisal of a text under a scoring language model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llmcreativity.llm.backend import Backend
from llmcreativity.llm.types import Prompt
from llmcreativity.metrics._validation import check_text


@dataclass(frozen=True)
class Surprisal:
    """Surprisal of one text, overall and per token."""

    mean: float
    """S = -(1/L) sum_j log p(x_j | context, x_<j), in nats per token."""
    tokens: tuple[str, ...]
    """The scoring model's tokens of the text."""
    per_token: tuple[float, ...]
    """-log p(x_j | context, x_<j) for each token, in nats (for plots)."""
    model: str
    """Identity of the scoring model."""


def surprisal_from_logprobs(logprobs: list[float] | np.ndarray) -> float:
    """S = -(1/L) sum_{j=1..L} log p(x_j | x_<j), given the L natural-log token probabilities."""
    lp = np.asarray(logprobs, dtype=np.float64)
    if lp.ndim != 1 or lp.size == 0:
        raise ValueError("logprobs is empty: surprisal needs at least one scored token")
    if np.any(lp > 1e-9) or not np.all(np.isfinite(lp)):
        raise ValueError("logprobs must be finite natural-log probabilities (<= 0)")
    return float(-lp.mean())


def mean_surprisal(backend: Backend, text: str, context: Prompt) -> Surprisal:
    """Surprisal of `text` after `context` under `backend` (teacher-forced `backend.score`).

    `context` is the prompt the text answers (e.g. the writing prompt): S measures how unexpected
    the text is to the scoring model given that prompt. `backend` is any object with the fixed
    backend API (`score`, `identity`).
    """
    check_text(text, "text")
    scores = backend.score(context, text)
    if not scores.logprobs:
        raise ValueError(f"the scoring model {backend.identity} returned no tokens for text={text[:40]!r}")
    per_token = tuple(-float(v) for v in scores.logprobs)
    return Surprisal(surprisal_from_logprobs(scores.logprobs), tuple(scores.tokens), per_token, backend.identity)
