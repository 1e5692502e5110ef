"""Ask, parse, remind, retry: the one loop every judge uses to get a readable reply.

Every conversation is sent once (one batched call); a reply whose parse is not readable gets a
reminder appended, so the conversation continues and the retry is a new prompt even under greedy
decoding, and is asked again, at most `max_retries` times. The retries of one round that share a
sampling config go together in one batched call. Every attempt is kept, readable or not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..llm.backend import Backend
from ..llm.generate_config import GenerateConfig
from ..llm.types import Completion, Message

Parsed = TypeVar("Parsed")


@dataclass(frozen=True)
class Attempt(Generic[Parsed]):
    """One reply of a judge and what was read from it."""

    messages: list[Message]
    """The chat sent for this attempt (for a retry: the earlier turns, the reply and the reminder)."""
    completion: Completion
    """The model's reply with its usage."""
    parsed: Parsed
    """What the parser read from the reply."""


def ask(lm: Backend, prompts: Sequence[list[Message]], config: GenerateConfig,
        parse: Callable[[str], Parsed]) -> list[list[Attempt[Parsed]]]:
    """One batched call: `config.n` replies to each prompt, each parsed; result[i] belongs to prompts[i]. Only the
    text is read, so no log-probabilities are asked for."""
    if not prompts:
        return []
    replies = lm.generate(list(prompts), config.merge(logprobs=False))
    return [[Attempt(list(p), c, parse(c.text)) for c in cs] for p, cs in zip(prompts, replies, strict=True)]


def remind_until_readable(lm: Backend, first: Sequence[Attempt[Parsed]], *, parse: Callable[[str], Parsed],
                          readable: Callable[[Parsed], bool], reminder: str, max_retries: int,
                          config: Callable[[int, int], GenerateConfig]) -> list[list[Attempt[Parsed]]]:
    """The attempts of every conversation: its first reply, then, while unreadable, replies to `reminder`.

    `config(attempt, i)` is the sampling config (one sample) of retry `attempt` (1-based) of
    conversation i. Returns, per conversation, its attempts in order; the last is readable unless
    all 1 + `max_retries` attempts failed.
    """
    if max_retries < 0:
        raise ValueError(f"max_retries={max_retries}: must be >= 0")
    chains = [[a] for a in first]
    for attempt in range(1, max_retries + 1):
        groups: dict[GenerateConfig, list[int]] = {}
        for i, chain in enumerate(chains):
            if not readable(chain[-1].parsed):
                groups.setdefault(config(attempt, i), []).append(i)
        if not groups:
            break
        for cfg, todo in groups.items():
            convos = [[*chains[i][-1].messages, {"role": "assistant", "content": chains[i][-1].completion.text},
                       {"role": "user", "content": reminder}] for i in todo]
            for i, convo, (c, *_) in zip(todo, convos, lm.generate(convos, cfg.merge(logprobs=False)),
                                       strict=True):
                chains[i].append(Attempt(convo, c, parse(c.text)))
    return chains
