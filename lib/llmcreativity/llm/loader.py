"""`get_backend` and `get_embedder`: from a name to a ready, cached model; `loaded_models`: what they handed out."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..paths import cache_dir
from .cache import ResponseCache
from .cached import CachedBackend
from .cached_embedder import CachedEmbedder
from .registry import MODELS, check_model_name, get_spec, llamacpp_identity, local_identity, materialize, resolve_dtype

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


_loaded: list[LoadedModel] = []


def _register(model: CachedBackend | CachedEmbedder) -> None:
    # Only the identity and the records list are kept, so the register never keeps weights in memory.
    _loaded.append(LoadedModel(model.identity, type(model).__name__, getattr(model, "records", None)))


def loaded_models() -> tuple[LoadedModel, ...]:
    """Every backend and embedder handed out by `get_backend` / `get_embedder` in this process, oldest first."""
    return tuple(_loaded)


def _cache(cache: str | Path | None) -> ResponseCache | None:
    if cache is None:
        return None
    return ResponseCache(cache_dir() / "calls.sqlite" if cache == DEFAULT_CACHE else Path(cache))


@functools.lru_cache(maxsize=4)
def _local_backend(model: str, dtype: str, batch_size: int):
    from .transformers_local import TransformersBackend, convert_gguf

    if model in MODELS:
        spec = get_spec(model)
        path = convert_gguf(model, materialize(model))
        return TransformersBackend(path, name=model, chat=spec.chat, dtype=dtype, batch_size=batch_size)
    return TransformersBackend(model, name=model, chat=True, dtype=dtype, batch_size=batch_size)


class DeferredLocalBackend:
    """A local transformers backend whose weights load on its first real call.

    Its identity is known up front (`local_identity`, as TransformersBackend's), so a run that the
    cache answers completely never imports torch or reads the weights.
    """

    def __init__(self, model: str, dtype: str, batch_size: int):
        check_model_name(model, "causal-lm")
        dtype = resolve_dtype(dtype)
        self.identity = local_identity(model, dtype)
        self._args = (model, dtype, batch_size)

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
    """A registry model on llama.cpp (`LlamaCppBackend`), loaded on its first real call like DeferredLocalBackend."""

    def __init__(self, model: str):
        if model not in MODELS or MODELS[model].kind != "causal-lm":
            known = sorted(n for n, s in MODELS.items() if s.kind == "causal-lm")
            raise ValueError(f"model {model!r}: engine='llama.cpp' runs the registry's GGUF language models {known}; "
                             "for another model use engine='transformers'")
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
    dtype: str = "auto",
    batch_size: int = 4,
    cache: str | Path | None = DEFAULT_CACHE,
    cache_only: bool = False,
    engine: str = "transformers",
) -> CachedBackend:
    """A cached backend for `model`.

    Args:
        model: a registry name (`smollm2-135m`, `gemma3-270m`, `qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`), a
            transformers model folder, or with `base_url` the model name the server knows.
        base_url: an OpenAI-compatible server (`http://host:port/v1`); the key is read from `$api_key_env`.
        max_concurrency: most requests in flight at once to that server.
        dtype: the local model's weights and arithmetic: "auto" (default: "bfloat16" on a CPU with native
            bfloat16 such as AMX, where it is 1.8x-4.3x faster; "float32" elsewhere, where bfloat16 is emulated and
            slower), "bfloat16" or "float32" (exact: use it where generation log-probabilities must match
            teacher-forced scores to 1e-3). The resolved dtype is part of the identity, so of every cache key
            and of the provenance.
        batch_size: most prompts the local model samples in one batch.
        cache: "default" (`cache_dir()/calls.sqlite`), a path to another SQLite file, or None to switch caching off.
        cache_only: raise `CacheMiss` instead of calling the model (reproducible rebuilds).
        engine: the local engine: "transformers" (default; the GGUF dequantized, computed in `dtype`) or
            "llama.cpp" (the registry model's GGUF run natively by llama.cpp, same tokenizer and row-seeded
            sampler; `dtype` and `batch_size` do not apply; a separate cache identity, `llamacpp_identity`).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r}: choose one of {list(ENGINES)}")
    if base_url is not None:
        from .openai_http import OpenAIBackend

        inner = OpenAIBackend(base_url, model, api_key=os.environ.get(api_key_env), max_concurrency=max_concurrency)
    elif engine == "llama.cpp":
        inner = DeferredLlamaCppBackend(model)
    else:
        inner = DeferredLocalBackend(model, dtype, batch_size)
    backend = CachedBackend(inner, _cache(cache), cache_only=cache_only)
    _register(backend)
    return backend


class Embedder:
    """A sentence-transformers model, loaded on the first `encode`; `encode` returns L2-normalized float32 rows."""

    def __init__(self, name: str, path: Path):
        self.identity = name
        self.path = path
        self.dim = _embedding_dim(path)

    @functools.cached_property
    def model(self):
        """The loaded SentenceTransformer."""
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(self.path), device="cpu")
        if model.get_embedding_dimension() != self.dim:
            raise ValueError(f"{self.path}: the model gives {model.get_embedding_dimension()}-dim rows, "
                             f"its pooling config says {self.dim}")
        return model

    def encode(self, texts: list[str], *, batch_size: int = 32, show_progress: bool = False) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dim), unit-norm rows."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(list(texts), batch_size=batch_size, show_progress_bar=show_progress,
                                 convert_to_numpy=True, normalize_embeddings=True)
        return vecs.astype(np.float32)


def _embedding_dim(path: Path) -> int:
    """Row size of a sentence-transformers folder, from its pooling config (read without loading the model)."""
    config = Path(path) / "1_Pooling" / "config.json"
    if not config.exists():
        raise FileNotFoundError(f"{config} not found: {path} is not a sentence-transformers model folder")
    return int(json.loads(config.read_text())["word_embedding_dimension"])


@functools.lru_cache(maxsize=4)
def get_embedder(name: str = "all-mpnet-base-v2", *, cache: str | Path | None = DEFAULT_CACHE) -> CachedEmbedder:
    """A registry embedder (`all-mpnet-base-v2`, `all-minilm-l6-v2`) or a sentence-transformers folder.

    Embeddings are cached per text like backend calls (`cache`: "default", another SQLite path, or None).
    """
    check_model_name(name, "embedder")
    path = materialize(name) if name in MODELS else Path(name)
    embedder = CachedEmbedder(Embedder(name, path), _cache(cache))
    _register(embedder)
    return embedder
