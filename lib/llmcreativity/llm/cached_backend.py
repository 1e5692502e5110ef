"""A backend wrapper that caches every call and keeps an account of its cost.

The wrapper follows one call policy (`call_policy.CallPolicy`), fixed when it is made: each call is added to the
policy's usage file when it names one (`usage_file`), so the runner can report a stage's calls, cache hits and
tokens, and to its call log (`call_log`), so the run can be recorded. In replay-only mode (a replay of a record) a
miss raises `CacheMiss` naming the stage, role, method and prompt, and a few answered calls are computed again and
filed in the policy's spot-check file (`spot_check`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Literal, TypeVar

import pandas as pd

from ..dataclass_json import from_json, to_json
from . import spot_check
from .backend import Backend, answer_probs_batch, check_prompt
from .call_log import CacheMiss, LoggedCall, log_call, miss_message
from .call_policy import CallPolicy
from .generate_config import GenerateConfig
from .response_cache import ResponseCache, cache_key
from .types import AnswerDistribution, Completion, Prompt, TokenScores, Usage
from .usage_file import call_usage, record_usage

__all__ = ["CacheMiss", "CachedBackend", "CallRecord"]

Method = Literal["generate", "score", "answer_probs"]
"""A backend method that the wrapper caches."""
Stored = dict[str, object]
"""A cached answer: the JSON form of a Completion, TokenScores or AnswerDistribution (their `to_dict`)."""
T = TypeVar("T")
Single = TypeVar("Single", TokenScores, AnswerDistribution)


@dataclass
class CallRecord:
    """One backend call as seen by the caller."""

    method: Method
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

    def __init__(self, inner: Backend, cache: ResponseCache | None, *, policy: CallPolicy | None = None,
                 cache_only: bool | None = None, role: str = ""):
        self.inner = inner
        self.cache = cache
        run_policy = CallPolicy.from_context() if policy is None else policy
        self.policy = run_policy.for_wrapper(cache is not None, cache_only)
        """How this wrapper answers and reports its calls, fixed here (`CallPolicy.for_wrapper`): `policy`, or the
        run's (`CallPolicy.from_context`) when None; `cache_only`, when given, sets its mode."""
        self.identity = inner.identity
        self.role = role
        """The model role this backend plays (named in the call log and in replay misses)."""
        self.records: list[CallRecord] = []
        self._tag = ""

    @property
    def cache_only(self) -> bool:
        """Whether a miss raises `CacheMiss` instead of being computed (the policy is `replay-only`)."""
        return self.policy.cache_only

    def __repr__(self) -> str:
        return f"CachedBackend(identity={self.identity!r}, role={self.role!r}, policy={self.policy!r})"

    @contextlib.contextmanager
    def tagged(self, tag: str) -> Iterator[None]:
        """Label every call made inside the block with `tag` in the usage records."""
        previous, self._tag = self._tag, tag
        try:
            yield
        finally:
            self._tag = previous

    def _record(self, method: Method, usage: Usage, cached: bool) -> None:
        self.records.append(
            CallRecord(method, self._tag, usage.prompt_tokens, usage.completion_tokens, usage.seconds, cached)
        )
        record_usage(self.policy.usage_file, call_usage(self.identity, usage, cached))

    def _call(self, method: Method, keys: list[str], inputs: dict[str, object]) -> LoggedCall:
        """The call as the call log and a replay miss describe it; logged at once."""
        call = LoggedCall("lm", self.identity, method, keys, inputs, self.role, self.policy.stage)
        log_call(self.policy.call_log, call, batched=self.policy.cache_only)
        return call

    def _lookup(self, call: LoggedCall) -> list[Stored | None]:
        """The stored answers of the call's keys (None for a miss); in cache-only mode a miss raises `CacheMiss`."""
        if self.cache is None:
            return [None] * len(call.keys)
        hits = [self.cache.get(k) for k in call.keys]
        if self.policy.cache_only and any(h is None for h in hits):
            raise CacheMiss(miss_message(call))
        return hits

    def _spot_check(self, call: LoggedCall, check: Callable[[Backend, LoggedCall, T], spot_check.SpotResult],
                    recorded: T) -> None:
        """In a replay, compute `call` again when the seeded draw picks it, and file the comparison (or, where the
        runner asks, file the call for the spot-check worker: `SpotChecker.check`)."""
        checker = spot_check.checker_of(self.policy.spot_check) if self.policy.spot_checked else None
        if checker is not None and checker.wants(call):
            checker.check(self.inner, call, check, recorded, self.policy.spot_check_later)

    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """Sample `config.n` completions per prompt, computing only prompts with a missing sample.

        A prompt with some samples stored and others missing is computed again, but only its missing samples are
        stored and returned from that computation: a stored sample is never rewritten.
        """
        for p in prompts:
            check_prompt(p)
        calls = [self._call("generate", [cache_key(self.identity, "generate", p, config.to_dict(), i)
                                         for i in range(config.n)], {"prompt": p, "config": config.to_dict()})
                 for p in prompts]
        stored = [self._lookup(call) for call in calls]
        results: list[list[Completion] | None] = [
            [from_json(Completion, h) for h in hits if h is not None] if all(h is not None for h in hits) else None
            for hits in stored]
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            fresh = self.inner.generate([prompts[i] for i in todo], config)
            for i, samples in zip(todo, fresh, strict=True):
                if len(samples) != config.n:
                    raise RuntimeError(f"{self.identity} returned {len(samples)} samples, {config.n} were asked")
                kept = []
                for key, hit, c in zip(calls[i].keys, stored[i], samples, strict=True):
                    if hit is None and self.cache is not None:
                        self.cache.put(key, to_json(c))
                    kept.append(c if hit is None else from_json(Completion, hit))
                results[i] = kept
        for i, (call, recorded) in enumerate(zip(calls, results, strict=True)):
            if i not in todo and recorded is not None:
                self._spot_check(call, spot_check.check_generate, recorded)
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
        return self._single("score", (context, continuation), {"context": context, "continuation": continuation},
                            lambda: self.inner.score(context, continuation), TokenScores,
                            spot_check.check_score)

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        """Answer probabilities, cached."""
        check_prompt(prompt)
        if len(answers) < 2 or len(set(answers)) != len(answers) or not all(a.strip() for a in answers):
            raise ValueError(f"answers={answers!r}: give at least two distinct, non-empty answers")
        return self._single("answer_probs", (prompt, answers), {"prompt": prompt, "answers": answers},
                            lambda: self.inner.answer_probs(prompt, answers), AnswerDistribution,
                            spot_check.check_answer_probs)

    def answer_probs_batch(self, prompts: list[Prompt], answers: list[str]) -> list[AnswerDistribution]:
        """`answer_probs` of every prompt, cached per prompt; the misses go to the model in one batched call."""
        if len(answers) < 2 or len(set(answers)) != len(answers) or not all(a.strip() for a in answers):
            raise ValueError(f"answers={answers!r}: give at least two distinct, non-empty answers")
        for p in prompts:
            check_prompt(p)
        calls = [self._call("answer_probs", [cache_key(self.identity, "answer_probs", p, answers)],
                            {"prompt": p, "answers": answers}) for p in prompts]
        hits = [self._lookup(call)[0] for call in calls]
        todo = [i for i, h in enumerate(hits) if h is None]
        fresh = answer_probs_batch(self.inner, [prompts[i] for i in todo], answers) if todo else []
        out: list[AnswerDistribution] = []
        computed = dict(zip(todo, fresh, strict=True))
        for i, (call, hit) in enumerate(zip(calls, hits, strict=True)):
            result = from_json(AnswerDistribution, hit) if hit is not None else computed[i]
            if hit is None and self.cache is not None:
                self.cache.put(call.keys[0], to_json(result))
            if hit is not None:
                self._spot_check(call, spot_check.check_answer_probs, result)
            result.usage.cached = hit is not None
            self._record("answer_probs", result.usage, hit is not None)
            out.append(result)
        return out

    def _single(self, method: Method, args: tuple[object, ...], inputs: dict[str, object],
                compute: Callable[[], Single], kind: type[Single],
                check: Callable[[Backend, LoggedCall, Single], spot_check.SpotResult]) -> Single:
        """One cached call that returns one record (score, answer_probs)."""
        call = self._call(method, [cache_key(self.identity, method, *args)], inputs)
        (hit,) = self._lookup(call)
        result = from_json(kind, hit) if hit is not None else compute()
        if hit is None and self.cache is not None:
            self.cache.put(call.keys[0], to_json(result))
        if hit is not None:
            self._spot_check(call, check, result)
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
