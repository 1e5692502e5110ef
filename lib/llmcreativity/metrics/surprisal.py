"""Mean token surprisal of a text under a scoring language model."""

from __future__ import annotations

import re
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


def first_words(text: str, max_words: int) -> str:
    """The text up to and including its `max_words`-th whitespace-separated word, spacing kept (all of it when it
    is shorter, or when `max_words` is 0)."""
    if max_words < 0:
        raise ValueError(f"max_words={max_words!r}: must be >= 0 (0 = the whole text)")
    found = re.match(rf"\s*(?:\S+\s+){{{max_words - 1}}}\S+", text) if max_words else None
    return found.group(0) if found else text


def mean_surprisal(backend: Backend, text: str, context: Prompt, *, max_words: int = 0) -> Surprisal:
    """Surprisal of `text` after `context` under `backend` (teacher-forced `backend.score`).

    `context` is the prompt the text answers (e.g. the writing prompt): S measures how unexpected
    the text is to the scoring model given that prompt. `backend` is any object with the fixed
    backend API (`score`, `identity`). `max_words` > 0 scores only the text's first `max_words` words
    (`first_words`): texts cut to one length are compared at equal length (surprisal falls along a text
    as the context grows), and teacher-forced scoring costs tokens (one full-vocabulary pass per token on a
    llama-cpp-python server).
    """
    check_text(text, "text")
    text = first_words(text, max_words)
    scores = backend.score(context, text)
    if not scores.logprobs:
        raise ValueError(f"the scoring model {backend.identity} returned no tokens for text={text[:40]!r}")
    per_token = tuple(-float(v) for v in scores.logprobs)
    return Surprisal(surprisal_from_logprobs(scores.logprobs), tuple(scores.tokens), per_token, backend.identity)
