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


SURPRISAL_CONTEXTS: tuple[str, ...] = ("prompt", "none")
"""What the scoring model reads before a story's tokens (`story_surprisal`): "prompt", the writing prompt
(`PROMPT_CONTEXT`, this project's form), or "none", only the story's own earlier tokens (the LLM Review summary's
S_avg = -(1/L) sum_j log p(x_j | x_<j))."""
PROMPT_CONTEXT = "Writing prompt: {prompt}\n\nStory:\n"
"""The context of the "prompt" form: the scoring model reads it, then the story."""


def check_surprisal_context(value: str, name: str = "surprisal_context") -> str:
    """`value` when it is one of `SURPRISAL_CONTEXTS`; otherwise a ValueError naming the parameter `name` and the
    choices."""
    if value not in SURPRISAL_CONTEXTS:
        raise ValueError(f"{name}={value!r} is not one of {list(SURPRISAL_CONTEXTS)}: \"prompt\" conditions each "
                         "story on its writing prompt, \"none\" only on the story's earlier tokens")
    return value


def split_first_word(text: str) -> tuple[str, str]:
    """(the text's first word with the spacing before it, the rest): the unconditioned form's context and scored
    continuation. A text of one word has nothing to score after it: a ValueError.

    >>> split_first_word("Once upon a time")
    ('Once', ' upon a time')
    """
    found = re.match(r"\s*\S+", text)
    if found is None or not text[found.end():].strip():
        raise ValueError(f"text={text[:40]!r}: the unconditioned surprisal needs at least two words (the first is "
                         "the context of the rest)")
    return found.group(0), text[found.end():]


def story_surprisal(backend: Backend, story: str, prompt: str, *, context: str = "prompt",
                    max_words: int = 0) -> Surprisal:
    """Surprisal of a story under `backend`, in one of the two forms of `SURPRISAL_CONTEXTS`.

    - "prompt": S = -(1/L) sum_j log p(x_j | prompt, x_<j), the story scored after `PROMPT_CONTEXT` filled with
      `prompt` (`mean_surprisal(backend, story, PROMPT_CONTEXT.format(prompt=prompt))`, one call as ever);
    - "none": S = -(1/L) sum_{j>=2} log p(x_j | x_<j), the LLM Review summary's form: the scoring model reads only
      the story. A plain-text context cannot be empty (`backend.check_prompt`), and not every tokenizer has a
      beginning-of-text token to condition the first token on, so the story's first word is the context and the
      tokens after it are scored (`split_first_word`; a local model's tokenizer adds its BOS token before it where
      it has one). `prompt` is not read.

    `max_words` > 0 scores the story's first `max_words` words in either form (`first_words`).
    """
    check_surprisal_context(context, "context")
    if context == "prompt":
        return mean_surprisal(backend, story, PROMPT_CONTEXT.format(prompt=prompt), max_words=max_words)
    check_text(story, "story")
    head, rest = split_first_word(first_words(story, max_words))
    return mean_surprisal(backend, rest, head)


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
