"""An embedder wrapper that stores each text's embedding in the call cache, so re-runs skip the encoder.

Like `CachedBackend` it follows one call policy (`call_policy.CallPolicy`), fixed when it is made: where its texts are
logged and counted, whether a miss raises `CacheMiss` (a replay) and whether a few answered texts are encoded again.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import spot_check
from .backend import TextEmbedder
from .call_log import CacheMiss, LoggedCall, log_call, miss_message
from .call_policy import CallPolicy
from .response_cache import ResponseCache, cache_key
from .usage_file import ModelUsage, record_usage


class CachedEmbedder:
    """Wraps an embedder (`identity`, `dim`, `encode(texts) -> unit-norm float32 rows`).

    Each text's row is stored under hash(identity, "encode", text) as base64 float32 bytes (exact
    round trip); only texts missing from the cache reach the encoder, in one batch. Every text is logged to the
    call log of its policy (`CallPolicy.call_log`); in replay-only mode a missing text raises `CacheMiss` and a few
    answered texts are encoded again and compared (`spot_check`).
    """

    def __init__(self, inner: TextEmbedder, cache: ResponseCache | None, *, policy: CallPolicy | None = None,
                 cache_only: bool | None = None):
        self.inner = inner
        self.cache = cache
        run_policy = CallPolicy.from_context() if policy is None else policy
        self.policy = run_policy.for_wrapper(cache is not None, cache_only)
        """How this wrapper answers and reports its calls, fixed here (`CallPolicy.for_wrapper`): `policy`, or the
        run's (`CallPolicy.from_context`) when None; `cache_only`, when given, sets its mode."""
        self.identity: str = inner.identity
        self.dim: int = inner.dim
        self.roles: set[str] = set()
        """The roles this embedder played in this process (one object may serve several)."""
        self.hits = 0
        """Texts answered from the cache since this object was made."""

    @property
    def cache_only(self) -> bool:
        """Whether a missing text raises `CacheMiss` instead of being encoded (the policy is `replay-only`)."""
        return self.policy.cache_only

    def __repr__(self) -> str:
        return (f"CachedEmbedder(identity={self.identity!r}, roles={sorted(self.roles)!r}, "
                f"policy={self.policy!r})")

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dim); cached rows are returned bit for bit as stored."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not one string")
        if self.cache is None:
            out = self.inner.encode(list(texts), **kwargs)
            record_usage(self.policy.usage_file, ModelUsage(self.identity, "embedder", calls=len(texts)))
            return out
        keys = [cache_key(self.identity, "encode", t) for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        hits = 0
        role = "/".join(sorted(self.roles))
        checker = spot_check.checker_of(self.policy.spot_check) if self.policy.spot_checked else None
        for i, (t, k) in enumerate(zip(texts, keys, strict=True)):
            call = LoggedCall("embedder", self.identity, "encode", [k], {"text": t}, role, self.policy.stage)
            log_call(self.policy.call_log, call, batched=self.policy.cache_only)
            hit = self.cache.get(k)
            if hit is None:
                if self.policy.cache_only:
                    raise CacheMiss(miss_message(call))
                todo.setdefault(t, []).append(i)
            else:
                out[i] = np.frombuffer(base64.b64decode(hit), dtype=np.float32)
                hits += 1
                if checker is not None and checker.wants(call):
                    checker.check(self.inner, call, spot_check.check_encode, out[i].copy(),
                                  self.policy.spot_check_later)
        self.hits += hits
        if todo:
            fresh = np.asarray(self.inner.encode(list(todo), **kwargs), dtype=np.float32)
            for rows, v in zip(todo.values(), fresh, strict=True):
                out[rows] = v
                self.cache.put(keys[rows[0]], base64.b64encode(v.tobytes()).decode("ascii"))
        record_usage(self.policy.usage_file, ModelUsage(self.identity, "embedder", calls=len(texts), cache_hits=hits))
        return out


def uncached(embedder: TextEmbedder) -> TextEmbedder:
    """The model under a `CachedEmbedder` (`embedder` itself when it is not one): it encodes every text afresh,
    unlogged and uncounted, in a replay too.

    For an analysis that only displays something about texts already recorded (the writing chapters' sentence
    similarities, `writing.degeneracy`): its encodings are no call that a stage's outputs depend on, so a live run
    does not record them and a replay does not look them up (which would be a miss); both compute them alike.
    """
    return embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
