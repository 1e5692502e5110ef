"""Scripted test doubles: a language model that replays canned replies and a sentence embedder that embeds by a
given rule, for testing orchestration (who sees what, what is computed once) without a model.

Never used to produce anything a notebook reports.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable, Sequence

import numpy as np

from .generate_config import GenerateConfig
from .types import AnswerDistribution, Completion, Prompt, TokenScores, Usage, prompt_text

Responder = Callable[[Prompt, int], str]
"""Maps (prompt, sample index) to the reply text."""


class ScriptedBackend:
    """Replies with `responder(prompt, i)`; records every prompt it was given in `seen` and each call's batch size in
    `batches`."""

    def __init__(self, responder: Responder, *, answer_logprobs: dict[str, float] | None = None):
        self.identity = "scripted"
        self.responder = responder
        self.answer_logprobs = answer_logprobs or {}
        self.seen: list[Prompt] = []
        self.batches: list[int] = []

    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        out = []
        self.batches.append(len(prompts))
        for p in prompts:
            self.seen.append(p)
            replies = [self.responder(p, i) for i in range(config.n)]
            out.append([
                Completion(
                    text=r,
                    tokens=r.split() if config.logprobs else [],
                    logprobs=[-1.0] * len(r.split()) if config.logprobs else [],
                    finish_reason="stop",
                    usage=Usage(self.count_tokens(prompt_text(p)), len(r.split()), 0.0),
                )
                for r in replies
            ])
        return out

    def score(self, context: Prompt, continuation: str) -> TokenScores:
        toks = continuation.split()
        return TokenScores(toks, [-1.0] * len(toks), Usage(self.count_tokens(prompt_text(context)) + len(toks)))

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        self.seen.append(prompt)
        lp = {a: self.answer_logprobs.get(a, math.log(1 / len(answers))) for a in answers}
        z = sum(math.exp(v) for v in lp.values())
        return AnswerDistribution({a: math.exp(v) / z for a, v in lp.items()}, lp,
                                  Usage(self.count_tokens(prompt_text(prompt)), 1))

    def count_tokens(self, text: str) -> int:
        return len(text.split())


Embedding = Callable[[str], Sequence[float] | np.ndarray]
"""Maps a text to its row (the embedder scales it to unit length)."""


def word_counts(text: str, dim: int = 256) -> np.ndarray:
    """Counts of the lower-cased words of `text`, word w counted in bucket CRC-32(w) mod `dim`: texts that share words
    have close rows, texts that share none orthogonal ones (but for a rare shared bucket).

    >>> float(word_counts("A cat, a hat", dim=4).sum())
    4.0
    """
    row = np.zeros(dim, dtype=np.float32)
    for w in re.findall(r"[a-z]+", text.lower()):
        row[zlib.crc32(w.encode()) % dim] += 1
    return row


class ScriptedEmbedder:
    """A sentence-embedder double: the row of a text is `embed(text)` scaled to unit length (a zero row stays zero),
    by default its hashed word counts (`word_counts`). Records the texts of every `encode` call in `batches`.

    `dim`: the rows' length; None reads it off `embed("a probe text")`.
    """

    def __init__(self, embed: Embedding = word_counts, *, dim: int | None = None,
                 identity: str = "scripted-embedder"):
        self.embed = embed
        self.identity = identity
        self.dim = len(embed("a probe text")) if dim is None else dim
        self.batches: list[list[str]] = []

    @property
    def seen(self) -> list[str]:
        """Every text encoded, in order."""
        return [t for batch in self.batches for t in batch]

    def encode(self, texts: Sequence[str], **_: object) -> np.ndarray:
        """Unit rows of `embed(text)`, shape (len(texts), dim)."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not one string")
        self.batches.append(list(texts))
        rows = np.array([self.embed(t) for t in texts], dtype=np.float32).reshape(len(texts), self.dim)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1, norms)
