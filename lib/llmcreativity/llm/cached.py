"""A backend wrapper that caches every call and keeps an account of its cost.

Each call is also added to the process's usage file when the runner names one (`usage_file`), so the
runner can report a stage's calls, cache hits and tokens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Literal

import pandas as pd

from .backend import Backend, answer_probs_batch, check_prompt
from .cache import ResponseCache, cache_key
from .config import GenerateConfig
from .types import AnswerDistribution, Completion, Prompt, TokenScores, Usage
from .usage_file import call_usage, record_usage


class CacheMiss(LookupError):
    """Raised in cache-only mode when a call has no stored answer."""


@dataclass
class CallRecord:
    """One backend call as seen by the caller."""

    method: Literal["generate", "score", "answer_probs"]
    """The backend method called."""
    tag: str
    """Caller-chosen label (framework, judge, stage) active when the call was made."""
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    """Seconds the model spent when the answer was computed (also reported for cache hits)."""
    cached: bool


class CachedBackend:
    """Wraps a `Backend`: answers from the cache when it can, records usage of every call.

    Keys hash the inner backend's identity, the method, the prompt, the full sampling config
    and the sample index, so n samples of one prompt are n distinct entries.
    """

    def __init__(self, inner: Backend, cache: ResponseCache | None, *, cache_only: bool = False):
        self.inner = inner
        self.cache = cache
        self.cache_only = cache_only
        self.identity = inner.identity
        self.records: list[CallRecord] = []
        self._tag = ""

    @contextlib.contextmanager
    def tagged(self, tag: str) -> Iterator[None]:
        """Label every call made inside the block with `tag` in the usage records."""
        previous, self._tag = self._tag, tag
        try:
            yield
        finally:
            self._tag = previous

    def _record(self, method: str, usage: Usage, cached: bool) -> None:
        self.records.append(
            CallRecord(method, self._tag, usage.prompt_tokens, usage.completion_tokens, usage.seconds, cached)
        )
        record_usage(call_usage(self.identity, usage, cached))

    def _lookup(self, key: str) -> dict | None:
        if self.cache is None:
            return None
        hit = self.cache.get(key)
        if hit is None and self.cache_only:
            raise CacheMiss(f"cache-only mode and no stored answer for key {key[:12]}…")
        return hit

    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """Sample `config.n` completions per prompt, computing only prompts with a missing sample."""
        for p in prompts:
            check_prompt(p)
        keys = [[cache_key(self.identity, "generate", p, config.to_dict(), i) for i in range(config.n)]
                for p in prompts]
        results: list[list[Completion] | None] = []
        for row in keys:
            hits = [self._lookup(k) for k in row]
            results.append([Completion.from_dict(h) for h in hits] if all(h is not None for h in hits) else None)
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            fresh = self.inner.generate([prompts[i] for i in todo], config)
            for i, completions in zip(todo, fresh, strict=True):
                if len(completions) != config.n:
                    raise RuntimeError(f"{self.identity} returned {len(completions)} samples, {config.n} were asked")
                for key, c in zip(keys[i], completions, strict=True):
                    if self.cache is not None:
                        self.cache.put(key, c.to_dict())
                results[i] = completions
        out: list[list[Completion]] = []
        for i, completions in enumerate(results):
            assert completions is not None
            cached = i not in todo
            for c in completions:
                c.usage.cached = cached
            total = Usage(
                prompt_tokens=completions[0].usage.prompt_tokens,
                completion_tokens=sum(c.usage.completion_tokens for c in completions),
                seconds=sum(c.usage.seconds for c in completions),
            )
            self._record("generate", total, cached)
            out.append(completions)
        return out

    def score(self, context: Prompt, continuation: str) -> TokenScores:
        """Teacher-forced scoring, cached."""
        check_prompt(context)
        if not continuation:
            raise ValueError("continuation is empty: there are no tokens to score")
        return self._single("score", (context, continuation), lambda: self.inner.score(context, continuation),
                            TokenScores.from_dict)

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        """Answer probabilities, cached."""
        check_prompt(prompt)
        if len(answers) < 2 or len(set(answers)) != len(answers) or not all(a.strip() for a in answers):
            raise ValueError(f"answers={answers!r}: give at least two distinct, non-empty answers")
        return self._single("answer_probs", (prompt, answers), lambda: self.inner.answer_probs(prompt, answers),
                            AnswerDistribution.from_dict)

    def answer_probs_batch(self, prompts: list[Prompt], answers: list[str]) -> list[AnswerDistribution]:
        """`answer_probs` of every prompt, cached per prompt; the misses go to the model in one batched call."""
        if len(answers) < 2 or len(set(answers)) != len(answers) or not all(a.strip() for a in answers):
            raise ValueError(f"answers={answers!r}: give at least two distinct, non-empty answers")
        for p in prompts:
            check_prompt(p)
        keys = [cache_key(self.identity, "answer_probs", p, answers) for p in prompts]
        hits = [self._lookup(k) for k in keys]
        todo = [i for i, h in enumerate(hits) if h is None]
        fresh = answer_probs_batch(self.inner, [prompts[i] for i in todo], answers) if todo else []
        out: list[AnswerDistribution] = []
        computed = dict(zip(todo, fresh, strict=True))
        for i, (key, hit) in enumerate(zip(keys, hits, strict=True)):
            result = AnswerDistribution.from_dict(hit) if hit is not None else computed[i]
            if hit is None and self.cache is not None:
                self.cache.put(key, result.to_dict())
            result.usage.cached = hit is not None
            self._record("answer_probs", result.usage, hit is not None)
            out.append(result)
        return out

    def _single(self, method: str, args: tuple, compute, from_dict):
        """One cached call that returns one record (score, answer_probs)."""
        key = cache_key(self.identity, method, *args)
        hit = self._lookup(key)
        result = from_dict(hit) if hit is not None else compute()
        if hit is None and self.cache is not None:
            self.cache.put(key, result.to_dict())
        result.usage.cached = hit is not None
        self._record(method, result.usage, hit is not None)
        return result

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def usage_summary(self) -> pd.DataFrame:
        """Calls, tokens, seconds and cache hits per tag and method."""
        if not self.records:
            return pd.DataFrame(columns=["tag", "method", "calls", "cache_hits", "prompt_tokens", "completion_tokens",
                                         "seconds"])
        df = pd.DataFrame([asdict(r) for r in self.records])
        return (
            df.groupby(["tag", "method"])
            .agg(
                calls=("method", "size"),
                cache_hits=("cached", "sum"),
                prompt_tokens=("prompt_tokens", "sum"),
                completion_tokens=("completion_tokens", "sum"),
                seconds=("seconds", "sum"),
            )
            .reset_index()
        )
