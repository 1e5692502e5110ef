"""`get_backend` and `get_embedder`: from a name to a ready, cached model; `loaded_models`: what they handed out."""

from __future__ import annotations

import functools
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..paths import cache_dir
from .cache import ResponseCache
from .cached import CachedBackend
from .cached_embedder import CachedEmbedder
from .call_log import calls_path
from .device import (
    EMBED_BATCH,
    device_kind,
    local_batch_size,
    resolve_device,
    resolve_device_dtype,
    run_device,
    run_dtype,
)
from .registry import (
    MODELS,
    check_llamacpp_model,
    check_model_name,
    get_spec,
    llamacpp_identity,
    local_identity,
    materialize,
)
from .request_stats import RequestStats, request_stats
from .roles import refuse_local_lm

DEFAULT_CACHE = "default"


@dataclass(frozen=True)
class LoadedModel:
    """A backend or embedder that `get_backend` or `get_embedder` handed out in this process."""

    identity: str
    """The object's identity string (model and every output-changing setting)."""
    kind: str
    """Class name of the object handed out."""
    records: list | None
    """The object's own usage records (the live list, one per call), None when it keeps no account."""
    device: str = ""
    """Where a local model runs ("cpu", "cuda:0"); empty for an endpoint."""
    requests: RequestStats | None = None
    """An endpoint's live traffic counters (requests, in flight, tokens, retries); None for a local model."""


_loaded: list[LoadedModel] = []


def _register(model: CachedBackend | CachedEmbedder) -> None:
    # Only the identity, the records list and the counters are kept, so the register never keeps weights in memory.
    _loaded.append(LoadedModel(model.identity, type(model).__name__, getattr(model, "records", None),
                               _device_of(model), request_stats(model)))


def _device_of(model: CachedBackend | CachedEmbedder) -> str:
    """The resolved device of the local model under a caching wrapper; "" for an endpoint."""
    return str(getattr(model.inner, "device", ""))


def loaded_models() -> tuple[LoadedModel, ...]:
    """Every backend and embedder handed out by `get_backend` / `get_embedder` in this process, oldest first."""
    return tuple(_loaded)


def open_call_cache(cache: str | Path | None) -> ResponseCache | None:
    """The call cache: "default" is $LLMCREATIVITY_CALLS (a replay's imported record) or `cache_dir()/calls.sqlite`."""
    if cache is None:
        return None
    return ResponseCache(calls_path(cache_dir() / "calls.sqlite") if cache == DEFAULT_CACHE else Path(cache))


@functools.lru_cache(maxsize=4)
def _local_backend(model: str, dtype: str, batch_size: int, device: str = "cpu"):
    from .transformers_local import TransformersBackend, convert_gguf

    if model in MODELS:
        spec = get_spec(model)
        path = convert_gguf(model, materialize(model))
        return TransformersBackend(path, name=model, chat=spec.chat, dtype=dtype, batch_size=batch_size,
                                   device=device)
    return TransformersBackend(model, name=model, chat=True, dtype=dtype, batch_size=batch_size, device=device)


class DeferredLocalBackend:
    """A local transformers backend whose weights load on its first real call.

    Its identity is known up front (`local_identity`, as TransformersBackend's), so a run that the
    cache answers completely never reads the weights (nor imports torch on a machine without a GPU driver).
    """

    def __init__(self, model: str, dtype: str, batch_size: int | None, device: str = "auto"):
        refuse_local_lm(model)
        check_model_name(model, "causal-lm")
        self.device = resolve_device(device)
        dtype = resolve_device_dtype(dtype, self.device)
        self.identity = local_identity(model, dtype, device_kind(self.device))
        self._args = (model, dtype, local_batch_size(self.device, batch_size), self.device)

    @functools.cached_property
    def backend(self):
        """The loaded TransformersBackend."""
        return _local_backend(*self._args)

    def generate(self, prompts, config):
        return self.backend.generate(prompts, config)

    def score(self, context, continuation):
        return self.backend.score(context, continuation)

    def answer_probs(self, prompt, answers):
        return self.backend.answer_probs(prompt, answers)

    def answer_probs_batch(self, prompts, answers):
        return self.backend.answer_probs_batch(prompts, answers)

    def count_tokens(self, text: str) -> int:
        return self.backend.count_tokens(text)


ENGINES = ("transformers", "llama.cpp")
"""The local engines `get_backend` can run a registry model on."""


@functools.lru_cache(maxsize=4)
def _llamacpp_backend(model: str):
    from .llamacpp_local import LlamaCppBackend

    return LlamaCppBackend.from_registry(model)


class DeferredLlamaCppBackend(DeferredLocalBackend):
    """A registry model on llama.cpp (`LlamaCppBackend`), loaded on its first real call like DeferredLocalBackend.

    Its identity (`llamacpp_identity`: the GGUF's digest and the llama-cpp-python version) is known without loading
    the weights: the GGUF is assembled and hashed once per machine, never loaded, and llama_cpp is not imported.
    """

    def __init__(self, model: str):
        refuse_local_lm(model)
        check_llamacpp_model(model)
        self.identity = llamacpp_identity(model)
        self._model = model

    @functools.cached_property
    def backend(self):
        """The loaded LlamaCppBackend."""
        return _llamacpp_backend(self._model)


def get_backend(
    model: str,
    *,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    max_concurrency: int = 8,
    dtype: str | None = None,
    batch_size: int | None = None,
    device: str | None = None,
    cache: str | Path | None = DEFAULT_CACHE,
    cache_only: bool | None = None,
    engine: str = "transformers",
) -> CachedBackend:
    """A cached backend for `model`.

    Args:
        model: a registry name (`smollm2-135m`, `gemma3-270m`, `qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`), a
            transformers model folder, or with `base_url` the model name the server knows.
        base_url: an OpenAI-compatible server (`http://host:port/v1`); the key is read from `$api_key_env`.
        max_concurrency: most requests in flight at once to that server.
        dtype: the local model's weights and arithmetic: "auto" ("bfloat16" on a CPU with native bfloat16 such as
            AMX, where it is 1.8x-4.3x faster; "float32" elsewhere, where bfloat16 is emulated and slower),
            "bfloat16" or "float32" (exact: use it where generation log-probabilities must match teacher-forced
            scores to 1e-3). On CUDA "auto" is "bfloat16" (where the GPU supports it). None (default): the run's
            setting, `$LLMCREATIVITY_DTYPE` (`llmcreativity run -p dtype`; "float32" in the recorded profiles),
            "auto" where unset. The resolved dtype is part of the identity, so of every cache key and of the
            provenance: "auto" gives a machine-dependent identity.
        batch_size: most prompts the local model samples in one batch; None: the device's default (4 on the
            CPU, 32 on CUDA).
        device: where the local model runs: "auto" (CUDA when torch sees a GPU, else the CPU), "cpu", "cuda" or
            "cuda:N"; None (default): the run's setting, `$LLMCREATIVITY_DEVICE` (`llmcreativity run -p device`;
            "cpu" in the recorded profiles), "auto" where unset. Off the CPU the identity ends in ":cuda".
        cache: "default" (`cache_dir()/calls.sqlite`), a path to another SQLite file, or None to switch caching off.
        cache_only: raise `CacheMiss` instead of calling the model (reproducible rebuilds); None: as the environment
            says (`call_log.CACHE_ONLY_ENV`, set by a replay).
        engine: the local engine: "transformers" (default; the GGUF dequantized, computed in `dtype`) or
            "llama.cpp" (the registry model's GGUF run natively by llama.cpp on the CPU, same tokenizer and
            row-seeded sampler; `dtype`, `batch_size` and `device` do not apply; a separate cache identity,
            `llamacpp_identity`).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r}: choose one of {list(ENGINES)}")
    if base_url is not None:
        from .openai_http import OpenAIBackend

        inner = OpenAIBackend(base_url, model, api_key=os.environ.get(api_key_env), max_concurrency=max_concurrency)
    elif engine == "llama.cpp":
        inner = DeferredLlamaCppBackend(model)
    else:
        inner = DeferredLocalBackend(model, run_dtype() if dtype is None else dtype, batch_size,
                                     run_device() if device is None else device)
    return wrap_backend(inner, cache=cache, cache_only=cache_only)


def wrap_backend(inner, *, cache: str | Path | None = DEFAULT_CACHE, cache_only: bool | None = None) -> CachedBackend:
    """`inner` behind the call cache, registered in `loaded_models` (what `get_backend` returns)."""
    backend = CachedBackend(inner, open_call_cache(cache), cache_only=cache_only)
    _register(backend)
    return backend


def wrap_embedder(inner, *, cache: str | Path | None = DEFAULT_CACHE) -> CachedEmbedder:
    """`inner` behind the call cache, registered in `loaded_models` (what `get_embedder` returns)."""
    embedder = CachedEmbedder(inner, open_call_cache(cache))
    _register(embedder)
    return embedder


class Embedder:
    """A sentence-transformers model, loaded on the first `encode`; `encode` returns L2-normalized float32 rows.

    It runs in float32 on every device (`device`: "cpu" or "cuda:N"), where GPU and CPU rows differ only by the
    rounding of a different summation order, far below any similarity threshold in use; so the identity stays the
    model's name and cached rows serve every device (the provenance names the device). Calls are serialised by a
    lock (threads may share it).
    """

    def __init__(self, name: str, path: Path, device: str = "cpu"):
        self.identity = name
        self.path = path
        self.dim = _embedding_dim(path)
        self.device = device
        self._lock = threading.Lock()

    @functools.cached_property
    def model(self):
        """The loaded SentenceTransformer."""
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(self.path), device=self.device)
        if model.get_embedding_dimension() != self.dim:
            raise ValueError(f"{self.path}: the model gives {model.get_embedding_dimension()}-dim rows, "
                             f"its pooling config says {self.dim}")
        return model

    def encode(self, texts: list[str], *, batch_size: int | None = None, show_progress: bool = False) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dim), unit-norm rows (`batch_size` None: the device's default,
        `device.EMBED_BATCH`)."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs = self.model.encode(list(texts), batch_size=batch_size or EMBED_BATCH[device_kind(self.device)],
                                     show_progress_bar=show_progress, convert_to_numpy=True,
                                     normalize_embeddings=True)
        return vecs.astype(np.float32)


def _embedding_dim(path: Path) -> int:
    """Row size of a sentence-transformers folder, from its pooling config (read without loading the model)."""
    config = Path(path) / "1_Pooling" / "config.json"
    if not config.exists():
        raise FileNotFoundError(f"{config} not found: {path} is not a sentence-transformers model folder")
    return int(json.loads(config.read_text())["word_embedding_dimension"])


def get_embedder(name: str = "all-mpnet-base-v2", *, cache: str | Path | None = DEFAULT_CACHE,
                 device: str | None = None) -> CachedEmbedder:
    """A registry embedder (`all-mpnet-base-v2`, `all-minilm-l6-v2`) or a sentence-transformers folder.

    Embeddings are cached per text like backend calls (`cache`: "default", another SQLite path, or None).
    `device`: "auto" (CUDA when torch sees a GPU, else the CPU), "cpu", "cuda" or "cuda:N"; None (default): the
    run's setting, `$LLMCREATIVITY_DEVICE` ("cpu" in the recorded profiles), "auto" where unset. The identity is
    the model's name on every device (see `Embedder`).
    """
    return _embedder(name, cache, resolve_device(run_device() if device is None else device))


@functools.lru_cache(maxsize=4)
def _embedder(name: str, cache: str | Path | None, device: str) -> CachedEmbedder:
    """One `get_embedder` object per (name, cache, resolved device)."""
    check_model_name(name, "embedder")
    path = materialize(name) if name in MODELS else Path(name)
    embedder = CachedEmbedder(Embedder(name, path, device), open_call_cache(cache))
    _register(embedder)
    return embedder
