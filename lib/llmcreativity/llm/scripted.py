"""A scripted test double: replays canned replies, for testing orchestration (who sees what).

Never used to produce anything a notebook reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .config import GenerateConfig
from .types import AnswerDistribution, Completion, Prompt, TokenScores, Usage

Responder = Callable[[Prompt, int], str]
"""Maps (prompt, sample index) to the reply text."""


def prompt_text(prompt: Prompt) -> str:
    """All text of a prompt joined, for matching and token counts."""
    return prompt if isinstance(prompt, str) else "\n".join(m["content"] for m in prompt)


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
