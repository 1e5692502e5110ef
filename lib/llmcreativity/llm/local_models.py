"""Local models by name: `get_backend` and `get_embedder` hand out a ready, cached model whose weights load on its
first real call (`DeferredLocalBackend`, `DeferredLlamaCppBackend`), so a run the call cache answers never loads them.

A role's spec (`llama.cpp:NAME`, `URL#MODEL`) is not a name: it becomes a model through `roles.get_role_backend`,
which builds its local models with `local_backend` here.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from .cache_wrapping import DEFAULT_CACHE, wrap_backend, wrap_embedder
from .cached_backend import CachedBackend
from .cached_embedder import CachedEmbedder
from .device import device_kind, local_batch_size, resolve_device, resolve_device_dtype, run_device, run_dtype
from .generate_config import GenerateConfig
from .local_engine import refuse_local_lm
from .registry import (
    MODELS,
    check_llamacpp_model,
    check_model_name,
    get_spec,
    llamacpp_identity,
    local_identity,
    local_model,
    materialize,
)
from .sentence_transformers_local import SentenceTransformersEmbedder
from .types import AnswerDistribution, Completion, Prompt, TokenScores

if TYPE_CHECKING:
    from .llamacpp_local import LlamaCppBackend
    from .transformers_local import TransformersBackend

ENGINES = ("transformers", "llama.cpp")
"""The local engines a registry language model runs on."""

Recipe = dict[str, str | int]
"""How a local model is built (`recipe` of a deferred backend or a sentence embedder; `from_recipe`): its engine
("transformers", "llama.cpp" or "sentence-transformers"), its name, and the settings its identity depends on."""


@functools.lru_cache(maxsize=4)
def _transformers_backend(model: str, dtype: str, batch_size: int, device: str = "cpu") -> TransformersBackend:
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

    @property
    def recipe(self) -> Recipe:
        """How another process builds this model again (`from_recipe`): the spot-check worker's."""
        model, dtype, batch_size, device = self._args
        return {"engine": "transformers", "model": model, "dtype": dtype, "batch_size": batch_size, "device": device}

    @functools.cached_property
    def backend(self) -> TransformersBackend | LlamaCppBackend:
        """The loaded TransformersBackend."""
        return _transformers_backend(*self._args)

    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        return self.backend.generate(prompts, config)

    def score(self, context: Prompt, continuation: str) -> TokenScores:
        return self.backend.score(context, continuation)

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        return self.backend.answer_probs(prompt, answers)

    def answer_probs_batch(self, prompts: list[Prompt], answers: list[str]) -> list[AnswerDistribution]:
        return self.backend.answer_probs_batch(prompts, answers)

    def count_tokens(self, text: str) -> int:
        return self.backend.count_tokens(text)


@functools.lru_cache(maxsize=4)
def _llamacpp_backend(model: str) -> LlamaCppBackend:
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

    @property
    def recipe(self) -> Recipe:
        """How another process builds this model again (`from_recipe`)."""
        return {"engine": "llama.cpp", "model": self._model}

    @functools.cached_property
    def backend(self) -> LlamaCppBackend:
        """The loaded LlamaCppBackend."""
        return _llamacpp_backend(self._model)


def local_backend(model: str, *, engine: str = "transformers", dtype: str | None = None,
                  batch_size: int | None = None, device: str | None = None) -> DeferredLocalBackend:
    """The deferred local backend of `model` on `engine` (see `get_backend`), not yet behind the call cache."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r}: choose one of {list(ENGINES)}")
    if local_model(model) != model:
        raise ValueError(f"{model!r} is a role's spec, not a model name: get_role_backend(role, {model!r}) builds "
                         "its model")
    if engine == "llama.cpp":
        return DeferredLlamaCppBackend(model)
    return DeferredLocalBackend(model, run_dtype() if dtype is None else dtype, batch_size,
                                run_device() if device is None else device)


def get_backend(
    model: str,
    *,
    engine: str = "transformers",
    dtype: str | None = None,
    batch_size: int | None = None,
    device: str | None = None,
    cache: str | Path | None = DEFAULT_CACHE,
    cache_only: bool | None = None,
) -> CachedBackend:
    """A cached local backend for `model`; a model on an OpenAI-compatible server is a role's: `get_role_backend`.

    Args:
        model: a registry name (`smollm2-135m`, `gemma3-270m`, `qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`) or a
            transformers model folder or id.
        engine: the local engine: "transformers" (default; the GGUF dequantized, computed in `dtype`) or
            "llama.cpp" (the registry model's GGUF run natively by llama.cpp on the CPU, same tokenizer and
            row-seeded sampler; `dtype`, `batch_size` and `device` do not apply; a separate cache identity,
            `llamacpp_identity`).
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
        cache_only: raise `CacheMiss` instead of calling the model (reproducible rebuilds); None: as the kernel
            context says (its `cache_only`, set by a replay).
    """
    inner = local_backend(model, engine=engine, dtype=dtype, batch_size=batch_size, device=device)
    return wrap_backend(inner, cache=cache, cache_only=cache_only)


def get_embedder(name: str = "all-mpnet-base-v2", *, cache: str | Path | None = DEFAULT_CACHE,
                 device: str | None = None) -> CachedEmbedder:
    """A registry embedder (`all-mpnet-base-v2`, `all-minilm-l6-v2`) or a sentence-transformers folder.

    Embeddings are cached per text like backend calls (`cache`: "default", another SQLite path, or None).
    `device`: "auto" (CUDA when torch sees a GPU, else the CPU), "cpu", "cuda" or "cuda:N"; None (default): the
    run's setting, `$LLMCREATIVITY_DEVICE` ("cpu" in the recorded profiles), "auto" where unset. The identity is
    the model's name on every device (see `SentenceTransformersEmbedder`). One object per (name, cache, device):
    every role it plays shares it.
    """
    return _embedder(name, cache, resolve_device(run_device() if device is None else device))


@functools.lru_cache(maxsize=4)
def _embedder(name: str, cache: str | Path | None, device: str) -> CachedEmbedder:
    """One `get_embedder` object per (name, cache, resolved device)."""
    check_model_name(name, "embedder")
    path = materialize(name) if name in MODELS else Path(name)
    return wrap_embedder(SentenceTransformersEmbedder(name, path, device), cache=cache)


def from_recipe(recipe: Recipe) -> DeferredLocalBackend | SentenceTransformersEmbedder:
    """The uncached local model a `recipe` describes, its weights not yet loaded: what a spot check computes with in a
    process other than the stage's (`llm.spot_worker`).

    >>> from_recipe({"engine": "onnx", "model": "m"})
    Traceback (most recent call last):
    ...
    ValueError: recipe engine 'onnx': choose one of ['transformers', 'llama.cpp', 'sentence-transformers']
    """
    engine, model = recipe.get("engine"), str(recipe.get("model"))
    if engine == "llama.cpp":
        return DeferredLlamaCppBackend(model)
    if engine == "transformers":
        return DeferredLocalBackend(model, str(recipe["dtype"]), int(recipe["batch_size"]), str(recipe["device"]))
    if engine == "sentence-transformers":
        embedder = _embedder(model, None, str(recipe["device"])).inner
        assert isinstance(embedder, SentenceTransformersEmbedder)
        return embedder
    raise ValueError(f"recipe engine {engine!r}: choose one of {[*ENGINES, 'sentence-transformers']}")
