"""Model roles: one spec string sets which model plays a role, locally or on an OpenAI-compatible endpoint.

A role is a job a stage gives a model (`writer`, `large_writer`, `rubric_judge`, `surprisal_scorer`,
`entailment_judge`, `se_models`, `convergent_judge`, `embedder`, ...); a stage notebook names each with one
parameter of that name. Its value, the *spec*, is either

- a local model: a registry name (`qwen2.5-coder-1.5b`), a model folder or a transformers id, loaded in-process by
  transformers; or `llama.cpp:NAME`, the registry model NAME's packaged GGUF run in-process by llama.cpp
  (`llamacpp_local`: same tokenizer, chat template and row-seeded sampler, a separate cache identity); or
- `URL#MODEL`: the model a server at URL lists as MODEL (`http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B-Instruct`,
  `https://api.openai.com/v1#gpt-4o`). The key comes from the environment variable `api_key_env` names and the
  requests in flight are bounded by `max_concurrency` (both run-wide options, `endpoint_settings`, never part of
  the spec).

`llmcreativity run -p base_url URL -p model NAME` turns every language-model role of every stage into
`URL#NAME` (`with_endpoint`), except roles set by their own `-p`. Before an endpoint role is used its server is
probed for what the role needs (`ROLE_NEEDS`, see `probes`), and the role, its endpoint and the model the server
says it serves are recorded for the provenance (`role_uses`).

`get_role_backend` and `get_role_embedder` are the one way from a spec to a model: they parse it, probe an endpoint
and build its model from what the probe found, or build a local model by name (`local_models`), and hand the model
out behind the call cache (`cache_wrapping`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context import endpoint_key
from .backend import Backend
from .cache_wrapping import DEFAULT_CACHE, wrap_backend, wrap_embedder
from .cached_backend import CachedBackend
from .cached_embedder import CachedEmbedder
from .endpoint_settings import run_api_key_env, run_max_concurrency
from .local_models import get_embedder, local_backend
from .openai_embedder import OpenAIEmbedder
from .openai_http import OpenAIBackend
from .probes import EndpointError, EndpointReport, check_endpoint, missing_message
from .registry import LLAMACPP_PREFIX, check_llamacpp_model, local_model  # noqa: F401 (local_model: re-export)

SEPARATOR = "#"
"""Between an endpoint's URL and the model name in a role spec."""

_GENERATE = ("chat", "n", "logprobs")
_JUDGE = ("chat", "top_logprobs")
ROLE_NEEDS: dict[str, tuple[str, ...]] = {
    "writer": _GENERATE,
    "large_writer": _GENERATE,
    "feedback": _GENERATE,
    "se_models": _GENERATE,
    "rubric_judge": (*_GENERATE, "top_logprobs"),
    "convergent_judge": (*_GENERATE, "top_logprobs"),
    "weak_convergent_judge": (*_GENERATE, "top_logprobs"),
    "entailment_judge": _JUDGE,
    "entailment_judges": _JUDGE,
    "checklist_judges": _JUDGE,
    "novelty_judge": _JUDGE,
    "surprisal_scorer": ("echo",),
    "embedder": ("embeddings",),
    "similarity_embedder": ("embeddings",),
}
"""Role -> the endpoint capabilities it needs (a role not listed needs chat and generation log-probabilities)."""
CAPABILITY_USE = {
    "chat": "every request", "n": "several samples per request", "logprobs": "sampling with log-probabilities",
    "top_logprobs": "yes/no and digit answer probabilities", "echo": "teacher-forced scoring (surprisal)",
    "embeddings": "embedding texts",
}
"""What each capability is used for, in refusals."""


@dataclass(frozen=True)
class RoleSpec:
    """One role's model, parsed from its spec."""

    model: str
    """A local model (registry name, folder, transformers id) or the model name the server lists."""
    base_url: str = ""
    """The endpoint's URL (`http(s)://host:port/v1`); empty for a local model."""
    engine: str = "transformers"
    """The local engine: "transformers" or "llama.cpp" (`llama.cpp:NAME`); "transformers" for an endpoint."""

    @property
    def is_endpoint(self) -> bool:
        """True when the role runs on an OpenAI-compatible server."""
        return bool(self.base_url)

    @property
    def spec(self) -> str:
        """The spec string this was parsed from (`model`, `llama.cpp:model` or `base_url#model`)."""
        if self.base_url:
            return f"{self.base_url}{SEPARATOR}{self.model}"
        return f"{LLAMACPP_PREFIX}{self.model}" if self.engine == "llama.cpp" else self.model


@dataclass(frozen=True)
class RoleUse:
    """A role the kernel filled, for the provenance."""

    role: str
    """The role (the stage parameter's name)."""
    spec: str
    """Its spec."""
    identity: str
    """The backend's or embedder's identity (the cache key and the claims' `models` carry it)."""
    endpoint: str
    """The endpoint's URL; empty for a local model."""
    served_model: str
    """What the endpoint says it serves; for a local model, the model itself."""
    notes: str = ""
    """Corrections applied and optional capabilities absent (e.g. no `n`: samples are asked concurrently)."""


_uses: list[RoleUse] = []


def role_uses() -> tuple[RoleUse, ...]:
    """Every role filled in this process, oldest first."""
    return tuple(_uses)


def is_endpoint_spec(spec: str) -> bool:
    """True for `URL#MODEL`."""
    return spec.startswith(("http://", "https://"))


def parse_role(spec: str, role: str = "role") -> RoleSpec:
    """The RoleSpec of `spec`; a malformed endpoint spec raises a ValueError naming the role and the fix.

    >>> parse_role("http://127.0.0.1:8000/v1#qwen").base_url
    'http://127.0.0.1:8000/v1'
    >>> parse_role("smollm2-135m").is_endpoint
    False
    >>> parse_role("llama.cpp:qwen2.5-coder-0.5b").engine
    'llama.cpp'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"{role}={spec!r}: give a local model name, llama.cpp:NAME or URL#MODEL")
    if spec.startswith(LLAMACPP_PREFIX):
        name = spec.removeprefix(LLAMACPP_PREFIX)
        try:
            check_llamacpp_model(name)
        except ValueError as e:
            raise ValueError(f"{role}={spec!r}: {e}") from None
        return RoleSpec(name, engine="llama.cpp")
    if not is_endpoint_spec(spec):
        return RoleSpec(spec)
    url, sep, model = spec.partition(SEPARATOR)
    if not sep or not model.strip() or "://" not in url or not url.split("://", 1)[1].strip("/"):
        raise ValueError(f"{role}={spec!r}: an endpoint spec is URL#MODEL, e.g. http://127.0.0.1:8000/v1#NAME "
                         "(MODEL is a name the server lists at URL/models)")
    return RoleSpec(model.strip(), url.rstrip("/"))


def with_endpoint(spec: Any, base_url: str, model: str) -> Any:
    """The spec a role takes under a run-wide `base_url` and `model`: `base_url#model`, or `model` locally.

    An empty spec (an optional role switched off) stays empty; a list (e.g. `se_models`) becomes one entry.
    """
    target = f"{base_url.rstrip('/')}{SEPARATOR}{model}" if base_url else model
    if isinstance(spec, list):
        return [target] if any(s for s in spec) else spec
    return target if spec else spec


def needs_of(role: str) -> tuple[str, ...]:
    """The capabilities `role` needs of an endpoint (`ROLE_NEEDS`, chat and log-probabilities by default)."""
    return ROLE_NEEDS.get(role, _GENERATE)


def check_role(role: str, spec: RoleSpec, *, api_key_env: str = "OPENAI_API_KEY") -> EndpointReport:
    """Probe `spec`'s endpoint for what `role` needs; raise EndpointError naming role, endpoint and capability."""
    try:
        report = check_endpoint(spec.base_url, spec.model, needs_of(role), api_key_env=api_key_env)
    except EndpointError as e:
        raise EndpointError(f"role {role}: {e}") from None
    missing = report.missing(needs_of(role))
    if missing:
        raise EndpointError("; ".join(missing_message(role, report, c, CAPABILITY_USE[c]) for c in missing))
    return report


def _notes(report: EndpointReport, role: str) -> str:
    """The corrections and fallbacks that apply to `role` (those of the capabilities it needs)."""
    probes = [(c, report.probes[c]) for c in needs_of(role) if c in report.probes]
    notes = [p.detail for c, p in probes if p.ok and p.detail]
    notes += [f"no {c}: {p.detail}" for c, p in probes if not p.ok and c == "n"]
    return "; ".join(notes)


def get_role_backend(role: str, spec: str, *, api_key_env: str | None = None, max_concurrency: int | None = None,
                     dtype: str | None = None, batch_size: int | None = None, device: str | None = None,
                     cache: str | Path | None = DEFAULT_CACHE, cache_only: bool | None = None) -> CachedBackend:
    """The cached backend that plays `role` (see `parse_role`): the only way from a role's spec to a backend.

    A local spec is the model `get_backend(spec, dtype=, batch_size=, device=)` gives (same identity, so the same
    cache entries); `llama.cpp:NAME` is `get_backend(NAME, engine="llama.cpp")`'s. An endpoint is probed for what
    the role needs first (`check_role`), and its backend is built from what the probe found: its identity is
    `openai:URL:MODEL`, followed by `@SERVED` when the server names its weights otherwise (vLLM's `root`, a hosted
    API's dated snapshot), so cached answers never outlive a change of weights. `api_key_env` and `max_concurrency`
    apply to an endpoint only and default to the run's (`endpoint_settings`); `dtype`, `batch_size` and `device`
    to a local model only.
    """
    parsed = parse_role(spec, role)
    if parsed.is_endpoint:
        api_key_env = run_api_key_env() if api_key_env is None else api_key_env
        max_concurrency = run_max_concurrency() if max_concurrency is None else max_concurrency
        report = check_role(role, parsed, api_key_env=api_key_env)
        echo, n = report.probes.get("echo"), report.probes.get("n")
        inner: Backend = OpenAIBackend(parsed.base_url, parsed.model, served_model=report.served_model,
                              n_supported=None if n is None else n.ok,
                              score_prefix=echo.score_prefix if echo is not None and echo.ok else "",
                              api_key=endpoint_key(api_key_env), max_concurrency=max_concurrency)
        use = RoleUse(role, spec, inner.identity, parsed.base_url, report.served_model, _notes(report, role))
    else:
        inner = local_backend(parsed.model, engine=parsed.engine, dtype=dtype, batch_size=batch_size, device=device)
        use = RoleUse(role, spec, inner.identity, "", parsed.model)
    backend = wrap_backend(inner, cache=cache, cache_only=cache_only, role=role)
    _uses.append(use)
    return backend


def get_role_embedder(role: str, spec: str, *, api_key_env: str | None = None, max_concurrency: int | None = None,
                      cache: str | Path | None = DEFAULT_CACHE) -> CachedEmbedder:
    """The cached embedder that plays `role`: `get_embedder(spec)` locally (one object for every role it plays),
    `/embeddings` on an endpoint, probed first; its identity is `openai-embed:URL:MODEL` (and `@SERVED`). An
    endpoint's key variable and requests in flight default to the run's (`endpoint_settings`)."""
    parsed = parse_role(spec, role)
    if parsed.is_endpoint:
        api_key_env = run_api_key_env() if api_key_env is None else api_key_env
        max_concurrency = run_max_concurrency() if max_concurrency is None else max_concurrency
        report = check_role(role, parsed, api_key_env=api_key_env)
        embedder = wrap_embedder(OpenAIEmbedder(parsed.base_url, parsed.model, dim=report.probes["embeddings"].dim,
                                                served_model=report.served_model,
                                                api_key=endpoint_key(api_key_env),
                                                max_concurrency=max_concurrency), cache=cache)
        use = RoleUse(role, spec, embedder.identity, parsed.base_url, report.served_model, _notes(report, role))
    else:
        embedder = get_embedder(parsed.model, cache=cache)
        use = RoleUse(role, spec, embedder.identity, "", parsed.model)
    embedder.roles.add(role)
    _uses.append(use)
    return embedder


def role_label(spec: str) -> str:
    """A file-name-safe label of a spec: a local name unchanged, `llama.cpp:NAME` as `NAME@llama.cpp`, `URL#MODEL`
    as `MODEL@host_port_path`.

    >>> role_label("http://127.0.0.1:8000/v1#org/m"), role_label("llama.cpp:smollm2-135m")
    ('org_m@127.0.0.1_8000_v1', 'smollm2-135m@llama.cpp')
    """
    parsed = parse_role(spec)
    if not parsed.is_endpoint:
        return f"{parsed.model}@llama.cpp" if parsed.engine == "llama.cpp" else spec
    where = parsed.base_url.split("://", 1)[1]
    return "@".join(re.sub(r"[^\w.-]+", "_", part).strip("_") for part in (parsed.model, where))
