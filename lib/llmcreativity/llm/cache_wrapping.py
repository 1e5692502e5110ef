"""How a model is handed out: behind the call cache, and registered for the provenance (`loaded_models`).

Every backend and embedder that `get_backend`, `get_embedder`, `get_role_backend` and `get_role_embedder` hand out
passes through `wrap_backend` or `wrap_embedder` here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..paths import cache_dir
from .backend import Backend, TextEmbedder
from .cached_backend import CachedBackend, CallRecord
from .cached_embedder import CachedEmbedder
from .call_log import calls_path
from .call_policy import CallPolicy
from .request_stats import RequestStats, request_stats
from .response_cache import ResponseCache

DEFAULT_CACHE = "default"
"""The `cache` argument that means the run's call cache (`open_call_cache`)."""


@dataclass(frozen=True)
class LoadedModel:
    """A backend or embedder handed out in this process."""

    identity: str
    """The object's identity string (model and every output-changing setting)."""
    kind: str
    """Class name of the object handed out."""
    records: list[CallRecord] | None
    """The object's own usage records (the live list, one per call), None when it keeps no account."""
    device: str = ""
    """Where a local model runs ("cpu", "cuda:0"); empty for an endpoint."""
    requests: RequestStats | None = None
    """An endpoint's live traffic counters (requests, in flight, tokens, retries); None for a local model."""
    policy: CallPolicy | None = None
    """How the object answers and reports its calls (`CallPolicy`), for the provenance; never part of an identity."""


_loaded: list[LoadedModel] = []


def _register(model: CachedBackend | CachedEmbedder) -> None:
    # Only the identity, the records list and the counters are kept, so the register never keeps weights in memory.
    _loaded.append(LoadedModel(model.identity, type(model).__name__, getattr(model, "records", None),
                               str(getattr(model.inner, "device", "")), request_stats(model), model.policy))


def loaded_models() -> tuple[LoadedModel, ...]:
    """Every backend and embedder handed out in this process, oldest first."""
    return tuple(_loaded)


def open_call_cache(cache: str | Path | None) -> ResponseCache | None:
    """The call cache: "default" is the context's `calls` (a replay's imported record) or `cache_dir()/calls.sqlite`;
    another path is that SQLite file; None is no cache."""
    if cache is None:
        return None
    return ResponseCache(calls_path(cache_dir() / "calls.sqlite") if cache == DEFAULT_CACHE else Path(cache))


def wrap_backend(inner: Backend, *, cache: str | Path | None = DEFAULT_CACHE, cache_only: bool | None = None,
                 role: str = "", policy: CallPolicy | None = None) -> CachedBackend:
    """`inner` behind the call cache, playing `role`, registered (`policy`, `cache_only`: see `CachedBackend`; the
    run's policy by default)."""
    backend = CachedBackend(inner, open_call_cache(cache), policy=policy, cache_only=cache_only, role=role)
    _register(backend)
    return backend


def wrap_embedder(inner: TextEmbedder, *, cache: str | Path | None = DEFAULT_CACHE,
                  policy: CallPolicy | None = None) -> CachedEmbedder:
    """`inner` behind the call cache, registered (`policy`: see `CachedEmbedder`; the run's by default)."""
    embedder = CachedEmbedder(inner, open_call_cache(cache), policy=policy)
    _register(embedder)
    return embedder
