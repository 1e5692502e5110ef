"""What an OpenAI-compatible endpoint can do, found with one tiny request per capability before any work starts.

`check_endpoint(base_url, model, needs)` lists the server's models (`GET /models`: is it reachable, does the key
work, does it serve `model`), then sends one probe per needed capability:

- `chat`: a one-token `/chat/completions` request;
- `n`: the same with `n = 2` (a server that ignores `n` is asked concurrently instead, so this never refuses);
- `logprobs`: generation log-probabilities (`logprobs: true`), needed by every sampling role;
- `top_logprobs`: the 20 most likely first tokens, needed to read yes/no and digit probabilities;
- `echo`: prompt log-probabilities (`/completions` with `echo`), needed to score surprisal. Their alignment is
  checked on a counting sequence: a correct server gives log p(x_i | x_<i) at token i, so its most likely
  alternative at i is mostly x_i itself; llama-cpp-python without a BOS token gives the distribution after x_i
  (its top alternative is x_{i+1}). That shift is corrected by prepending the model's BOS token (tried from
  `BOS_CANDIDATES`); a shift nothing corrects is refused;
- `embeddings`: `/embeddings`, for an embedder role.

Reports are cached in `cache_dir()/endpoint_probes.json` per (endpoint, model, served model) for `PROBE_TTL`
seconds, so every stage of a run probes once; a capability found missing is probed again next time (the server
may have been restarted with it). The key is read from the environment and never written anywhere.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence, Sized
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

import requests

from ..context import endpoint_key
from ..paths import cache_dir

Capability = Literal["chat", "n", "logprobs", "top_logprobs", "echo", "embeddings"]
CAPABILITIES: tuple[Capability, ...] = ("chat", "n", "logprobs", "top_logprobs", "echo", "embeddings")
"""Every capability a probe can check, in probing order."""
OPTIONAL: frozenset[str] = frozenset({"n"})
"""Capabilities with a fallback: their absence is recorded, never refused."""
PROBE_TTL = 3600.0
"""Seconds a cached probe report stays valid."""
PROBE_TIMEOUT = 60.0
"""Seconds one probe request may take."""
COUNTING = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16"
"""A text any language model predicts well: the echo alignment check reads its top alternatives."""
BOS_CANDIDATES = ("<|im_start|>", "<|endoftext|>", "<s>", "<|begin_of_text|>", "<bos>", "<|startoftext|>")
"""BOS token texts tried when a server's prompt log-probabilities are shifted by one token."""
_CACHE_FILE = "endpoint_probes.json"

JSON = str | int | float | bool | None | Sequence["JSON"] | Mapping[str, "JSON"]
"""A JSON value as sent: a request's body."""
JSONObject = dict[str, object]
"""A JSON object as read: a server's answer, or this module's cache file (its values narrowed where used)."""


class EndpointError(RuntimeError):
    """An endpoint that cannot serve a role: unreachable, a refused key, an unknown model or a missing capability."""


@dataclass(frozen=True)
class Probe:
    """The outcome of one capability probe."""

    ok: bool
    """True when the server offers the capability (possibly after a correction)."""
    detail: str = ""
    """What was seen: why it is missing, or the correction applied."""
    score_prefix: str = ""
    """For `echo`: the text prepended to every scored prompt (a BOS token) to correct a shifted alignment."""
    dim: int = 0
    """For `embeddings`: the length of an embedding row."""


@dataclass(frozen=True)
class EndpointReport:
    """What one (endpoint, model) offers, as far as it was probed."""

    base_url: str
    """The server's URL, e.g. http://127.0.0.1:8000/v1."""
    model: str
    """The model name asked for."""
    listed: tuple[str, ...] | None
    """The model ids `GET /models` lists; None when the server does not list its models."""
    served_model: str
    """What the server says it serves: vLLM's `root` (the weights), else the chat response's `model` field, else
    the listed id."""
    probes: dict[str, Probe] = field(default_factory=dict)
    """Capability -> its probe's outcome."""

    def missing(self, needs: Iterable[str]) -> list[str]:
        """The needed capabilities the server does not offer (those with a fallback are never missing)."""
        return [c for c in needs if c not in OPTIONAL and c in self.probes and not self.probes[c].ok]


def _session(api_key_env: str) -> requests.Session:
    s = requests.Session()
    key = endpoint_key(api_key_env)
    if key:
        s.headers["Authorization"] = f"Bearer {key}"
    return s


def _where(base_url: str, model: str) -> str:
    return f"{base_url} (model {model!r})"


def _call(session: requests.Session, method: str, url: str, api_key_env: str, body: Mapping[str, JSON] | None = None
          ) -> requests.Response:
    """One request; unreachable servers and refused keys raise EndpointError (the key's value is never shown)."""
    try:
        r = session.request(method, url, json=body, timeout=PROBE_TIMEOUT)
    except (requests.ConnectionError, requests.Timeout) as e:
        raise EndpointError(f"{url} is unreachable ({type(e).__name__}): start the server or fix the URL") from None
    if r.status_code in (401, 403):
        has_key = endpoint_key(api_key_env) is not None
        why = (f"the key in ${api_key_env} was refused" if has_key
               else f"no key was sent (${api_key_env} is not set)")
        raise EndpointError(f"{url} answered HTTP {r.status_code}: {why}; put the server's key in ${api_key_env} "
                            "or name another variable with -p api_key_env NAME")
    return r


def list_models(base_url: str, api_key_env: str) -> tuple[tuple[str, ...] | None, dict[str, JSONObject]]:
    """(model ids, id -> its entry) from `GET /models`; (None, {}) when the server does not list models."""
    r = _call(_session(api_key_env), "GET", f"{base_url}/models", api_key_env)
    if r.status_code != 200:
        return None, {}
    try:
        entries = {str(d["id"]): d for d in r.json().get("data", [])}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, {}
    return tuple(entries), entries


def _post(session: requests.Session, base_url: str, path: str, body: Mapping[str, JSON], api_key_env: str
          ) -> tuple[JSONObject | None, str]:
    """(JSON answer, "") on HTTP 200, else (None, what the server said)."""
    r = _call(session, "POST", f"{base_url}{path}", api_key_env, body)
    if r.status_code != 200:
        return None, f"{path} answered HTTP {r.status_code}: {r.text[:200]}"
    try:
        return r.json(), ""
    except ValueError:
        return None, f"{path} answered with something that is not JSON: {r.text[:200]}"


def _at(value: object, *path: str | int) -> object:
    """value[path[0]][path[1]]...: each step a key of an object or an index of a list; None once a step is missing
    (a server's answer without the part asked for)."""
    for step in path:
        if isinstance(step, str):
            value = value.get(step) if isinstance(value, dict) else None
        else:
            value = value[step] if isinstance(value, list) and step < len(value) else None
    return value


def _count(value: object) -> int:
    """How many items `value` holds; 0 when it holds none or is missing."""
    return len(value) if isinstance(value, Sized) else 0


_ASK = [{"role": "user", "content": "Say OK."}]


def _probe_chat(s: requests.Session, base_url: str, model: str, key_env: str) -> tuple[Probe, str]:
    data, err = _post(s, base_url, "/chat/completions", {"model": model, "messages": _ASK, "max_tokens": 1,
                                                          "temperature": 0}, key_env)
    if data is None or not _at(data, "choices", 0, "message"):
        return Probe(False, err or "no message in the answer"), ""
    return Probe(True), str(data.get("model") or "")


def _probe_n(s: requests.Session, base_url: str, model: str, key_env: str) -> Probe:
    data, err = _post(s, base_url, "/chat/completions", {"model": model, "messages": _ASK, "max_tokens": 1,
                                                          "temperature": 1.0, "seed": 0, "n": 2}, key_env)
    got = _count(_at(data, "choices"))
    return Probe(got == 2, err or ("" if got == 2 else f"asked n=2, got {got} choice(s): samples are asked "
                                                        "for one by one, concurrently"))


def _probe_logprobs(s: requests.Session, base_url: str, model: str, key_env: str, top: int) -> Probe:
    data, err = _post(s, base_url, "/chat/completions", {"model": model, "messages": _ASK, "max_tokens": 1,
                                                          "temperature": 0, "logprobs": True, "top_logprobs": top},
                      key_env)
    if data is None:
        return Probe(False, err)
    first = _at(data, "choices", 0, "logprobs", "content", 0)  # the first generated token's entry
    if not isinstance(_at(first, "logprob"), (int, float)):
        return Probe(False, "the answer carries no token log-probabilities")
    if top > 1 and _count(_at(first, "top_logprobs")) < 2:
        return Probe(False, f"asked for the top {top} alternatives, got {_count(_at(first, 'top_logprobs'))}")
    return Probe(True)


def echo_shift(tokens: list[str], tops: list[dict[str, float] | None]) -> int | None:
    """0 when token i's listed alternatives are the distribution that predicts token i, 1 when they predict token
    i+1 (llama-cpp-python without BOS), None when the answer shows neither.

    Counted over the positions with alternatives: how often the most likely alternative at i is x_i, and how
    often it is x_{i+1}; the larger count wins.
    """
    at, after = 0, 0
    for i, top in enumerate(tops):
        if not top:
            continue
        best = max(top, key=lambda t: top[t])
        at += best == tokens[i]
        after += i + 1 < len(tokens) and best == tokens[i + 1]
    if at == after:
        return None
    return 0 if at > after else 1


def _echo(s: requests.Session, base_url: str, model: str, key_env: str, prefix: str) -> tuple[JSONObject | None, str]:
    data, err = _post(s, base_url, "/completions", {"model": model, "prompt": prefix + COUNTING, "echo": True,
                                                     "max_tokens": 1, "logprobs": 1, "temperature": 0}, key_env)
    if data is None:
        return None, err
    lp = _at(data, "choices", 0, "logprobs")
    if not isinstance(lp, dict) or not lp.get("tokens") or not lp.get("text_offset") or not lp.get("token_logprobs"):
        return None, "/completions with echo returned no prompt log-probabilities"
    return lp, ""


def _echoed_tokens(lp: JSONObject) -> list[str]:
    """The tokens of an echo answer's log-probabilities."""
    tokens = lp["tokens"]
    return [str(t) for t in tokens] if isinstance(tokens, list) else []


def _echo_shift(lp: JSONObject) -> int | None:
    """`echo_shift` of an echo answer's log-probabilities: its tokens and their listed alternatives."""
    tops = lp.get("top_logprobs") or []
    return echo_shift(_echoed_tokens(lp), [t if isinstance(t, dict) else None for t in tops]
                      if isinstance(tops, list) else [])


def _probe_echo(s: requests.Session, base_url: str, model: str, key_env: str) -> Probe:
    lp, err = _echo(s, base_url, model, key_env, "")
    if lp is None:
        return Probe(False, err)
    shift = _echo_shift(lp)
    if shift != 1:
        return Probe(True, "" if shift == 0 else "alignment not checkable (no alternatives returned)")
    for bos in BOS_CANDIDATES:
        fixed, _ = _echo(s, base_url, model, key_env, bos)
        if fixed and not "".join(_echoed_tokens(fixed)).startswith(bos) and _echo_shift(fixed) == 0:
            return Probe(True, f"prompt log-probabilities are shifted by one token without a BOS token; corrected "
                               f"by prepending {bos!r} to every scored text", score_prefix=bos)
    return Probe(False, "prompt log-probabilities are shifted by one token and no BOS token "
                        f"({', '.join(BOS_CANDIDATES)}) corrects it")


def _probe_embeddings(s: requests.Session, base_url: str, model: str, key_env: str) -> Probe:
    data, err = _post(s, base_url, "/embeddings", {"model": model, "input": ["probe"]}, key_env)
    vec = _at(data, "data", 0, "embedding")
    if not isinstance(vec, list) or not vec:
        return Probe(False, err or "no embedding in the answer")
    return Probe(True, dim=len(vec))


def _cache_path() -> Path:
    return cache_dir() / _CACHE_FILE


def _read_cache() -> JSONObject:
    try:
        entries: JSONObject = json.loads(_cache_path().read_text())
    except (OSError, ValueError):
        return {}
    return entries


def _write_cache(key: str, report: EndpointReport) -> None:
    entries = _read_cache()
    entries[key] = {"checked_at": time.time(), "report": asdict(report)}
    path = _cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(entries, indent=1, sort_keys=True))
    os.replace(tmp, path)


def _cached(key: str) -> EndpointReport | None:
    entry = _read_cache().get(key)
    if not isinstance(entry, dict) or time.time() - entry.get("checked_at", 0) > PROBE_TTL:
        return None
    r = entry["report"]
    return EndpointReport(r["base_url"], r["model"], None if r["listed"] is None else tuple(r["listed"]),
                          r["served_model"], {c: Probe(**p) for c, p in r["probes"].items()})


def check_endpoint(base_url: str, model: str, needs: Iterable[str], *, api_key_env: str = "OPENAI_API_KEY"
                   ) -> EndpointReport:
    """The report of `model` on `base_url` with every capability in `needs` probed (cached ones reused).

    Raises EndpointError when the server is unreachable, refuses the key (HTTP 401/403) or lists its models
    without `model`. Missing capabilities are reported, not raised (`EndpointReport.missing`).
    """
    base_url = base_url.rstrip("/")
    unknown = set(needs) - set(CAPABILITIES)
    if unknown:
        raise ValueError(f"unknown capabilities {sorted(unknown)}: use {list(CAPABILITIES)}")
    needs = [c for c in CAPABILITIES if c in set(needs)]
    listed, entries = list_models(base_url, api_key_env)
    if listed is not None and model not in listed:
        raise EndpointError(f"{base_url} does not serve a model named {model!r}; it lists {list(listed)}: pass one "
                            "of those (-p model NAME, or -p ROLE URL#NAME; a llama.cpp server lists its model path "
                            "unless started with --model_alias NAME)")
    root = str((entries.get(model) or {}).get("root") or "")
    key = f"{base_url}#{model}@{root or model}"
    report = _cached(key)
    probes = {c: p for c, p in report.probes.items() if p.ok} if report else {}  # a failure is probed again
    served = report.served_model if report else root
    todo = [c for c in needs if c not in probes]
    if not todo and report and len(probes) == len(report.probes):
        return report
    s = _session(api_key_env)
    if "chat" not in probes and any(c != "embeddings" for c in needs):
        probes["chat"], said = _probe_chat(s, base_url, model, api_key_env)
        served = served or said
    for c in todo:
        if c in probes:
            continue
        if c == "n":
            probes[c] = _probe_n(s, base_url, model, api_key_env)
        elif c in ("logprobs", "top_logprobs"):
            probes[c] = _probe_logprobs(s, base_url, model, api_key_env, 1 if c == "logprobs" else 20)
        elif c == "echo":
            probes[c] = _probe_echo(s, base_url, model, api_key_env)
        elif c == "embeddings":
            probes[c] = _probe_embeddings(s, base_url, model, api_key_env)
    report = EndpointReport(base_url, model, listed, served or model, probes)
    _write_cache(key, report)
    return report


def missing_message(role: str, report: EndpointReport, capability: str, use: str) -> str:
    """The refusal of one role on one endpoint: the role, the endpoint, the capability, why and what to do."""
    probe = report.probes[capability]
    return (f"role {role} on {_where(report.base_url, report.model)}: the server does not offer {capability} "
            f"({probe.detail}), which {role} needs for {use}; use a server that offers it (vLLM offers all of them) "
            f"or set {role} to a local model")
