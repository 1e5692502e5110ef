"""Any OpenAI-compatible HTTP server: OpenAI, vLLM, llama.cpp, a rate-limited API.

The key comes only from the environment (see `get_role_backend(api_key_env=...)`) and is never
stored in records. Independent requests run concurrently up to `max_concurrency`: a semaphore caps the
requests in flight at that number however many threads share the backend (the items of a stage run
concurrently as well, `resume.run_resumable(workers=...)`). 429, 5xx, connection errors and timeouts are
retried with exponential backoff (`http_client.HttpClient`, shared with the embedder). `stats` counts requests,
requests in flight, tokens and retries.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from tqdm.auto import tqdm

from .backend import check_prompt
from .generate_config import DECODING_CONTROLS, GenerateConfig
from .http_client import HttpClient, endpoint_identity
from .types import AnswerDistribution, Completion, FinishReason, Prompt, TokenScores, Usage

Item = TypeVar("Item")
Result = TypeVar("Result")

TOP_LOGPROBS = 20
"""How many alternatives are requested per token when reading answer probabilities."""


class FeatureMissing(RuntimeError):
    """The server does not offer something the caller needs (log-probabilities, echo)."""


class OpenAIBackend(HttpClient):
    """Chat (`/chat/completions`) for message prompts, `/completions` for plain-text prompts.

    Built from what the endpoint's probe found (`probes.check_endpoint`, through `roles.get_role_backend`):

    Args:
        base_url: the server's URL (`http(s)://host:port/v1`).
        model: the model name the server lists.
        served_model: what the server says it serves (vLLM's `root`, a hosted API's dated snapshot); where it is
            not `model`, the identity ends in `@served_model`, so cached answers never outlive a change of weights.
        n_supported: whether the server honours `n` (None: learnt from the first sampling call); where it does
            not, the samples of a prompt are asked one by one, concurrently.
        score_prefix: text put before every scored prompt: a BOS token where the server's echo log-probabilities
            are shifted by one token without one.
        api_key: the key (read from the environment by the caller, never stored in records).
        max_concurrency: most requests in flight at once.
    """

    def __init__(self, base_url: str, model: str, *, served_model: str = "", n_supported: bool | None = None,
                 score_prefix: str = "", api_key: str | None = None, max_concurrency: int = 8,
                 timeout: float = 120.0, max_retries: int = 5):
        super().__init__(base_url, api_key=api_key, max_concurrency=max_concurrency, timeout=timeout,
                         max_retries=max_retries)
        self.model = model
        self.identity = endpoint_identity("openai", self.base_url, model, served_model)
        self.n_supported = n_supported
        """Whether the server honours `n`; learnt from the first sampling call where the probe did not say."""
        self.score_prefix = score_prefix
        """Text put before every scored prompt (a BOS token correcting shifted echo log-probabilities)."""

    # -- transport ---------------------------------------------------------------------
    def _map(self, fn: Callable[[Item], Result], items: list[Item]) -> list[Result]:
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            return list(tqdm(pool.map(fn, items), total=len(items), desc=f"{self.model} requests",
                             disable=len(items) < 2, leave=False))

    # -- sampling ----------------------------------------------------------------------
    def _request(self, prompt: Prompt, config: GenerateConfig, n: int, seed: int) -> list[Completion]:
        body: dict[str, Any] = {"model": self.model, "n": n, "temperature": config.temperature, "top_p": config.top_p,
                                "max_tokens": config.max_tokens, "seed": seed}
        if config.stop:
            body["stop"] = list(config.stop)
        t0 = time.perf_counter()
        if isinstance(prompt, list):
            asked = {"logprobs": True, "top_logprobs": 1} if config.logprobs else {}
            data = self._post("/chat/completions", {**body, "messages": prompt, **asked})
        else:
            asked = {"logprobs": 1} if config.logprobs else {}
            data = self._post("/completions", {**body, "prompt": prompt, **asked})
        seconds = time.perf_counter() - t0
        usage = data.get("usage") or {}
        choices = data.get("choices") or []
        out = []
        for ch in choices:
            tokens, logprobs = self._choice_logprobs(ch) if config.logprobs else ([], [])
            text = ch["message"]["content"] if "message" in ch else ch.get("text", "")
            finish: FinishReason = "length" if ch.get("finish_reason") == "length" else "stop"
            made = len(tokens) if config.logprobs else usage.get("completion_tokens", 0) // max(1, len(choices))
            out.append(Completion(text or "", tokens, logprobs, finish,
                                  Usage(usage.get("prompt_tokens", 0), made, seconds / max(1, len(choices)))))
        return out

    def _choice_logprobs(self, choice: dict[str, Any]) -> tuple[list[str], list[float]]:
        lp = choice.get("logprobs")
        if not lp:
            raise FeatureMissing(f"{self.base_url} returned no log-probabilities for model {self.model!r}; "
                                 "this project needs them (semantic entropy, surprisal): use a server that returns "
                                 "logprobs")
        if "content" in lp:  # chat format
            items = lp["content"] or []
            return [t["token"] for t in items], [float(t["logprob"]) for t in items]
        return list(lp["tokens"]), [float(x) for x in lp["token_logprobs"]]

    def _sample(self, job: tuple[Prompt, GenerateConfig]) -> list[Completion]:
        prompt, config = job
        if self.n_supported is not False:
            got = self._request(prompt, config, config.n, config.seed)
            if len(got) == config.n:
                self.n_supported = True
                return got
            self.n_supported = False
        # The server ignores n: ask n times with distinct seeds, concurrently.
        singles = [(prompt, config.merge(n=1, seed=config.seed + i)) for i in range(config.n)]
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            got = [c for part in pool.map(lambda j: self._request(j[0], j[1], 1, j[1].seed), singles) for c in part]
        if len(got) != config.n:
            raise RuntimeError(f"{self.base_url} returned {len(got)} samples, {config.n} were asked")
        return got

    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """n completions per prompt; prompts are sent concurrently.

        The decoding controls against repetition (`GenerateConfig.repetition_penalty` and the others) are the local
        sampler's (`row_sampling`): a server's own penalties count other tokens (its prompt's among them) in its own
        order, so a config that sets one is refused rather than silently sampled without it.
        """
        if config.controls_repetition:
            on = {k: v for k, v in config.to_dict().items() if k in DECODING_CONTROLS}
            raise FeatureMissing(f"{self.base_url}: decoding controls {on} are applied by the local engines' sampler "
                                 "only; sample without them here, or use a local model (llama.cpp:NAME or NAME)")
        for p in prompts:
            check_prompt(p)
        return self._map(self._sample, [(p, config) for p in prompts])

    # -- scoring -------------------------------------------------------------------------
    def score(self, context: Prompt, continuation: str) -> TokenScores:
        """Prompt log-probabilities via `/completions` with `echo`; needs a plain-text context."""
        if not isinstance(context, str):
            raise FeatureMissing("score() over HTTP takes a plain-text context (chat templates are applied by the "
                                 "server and cannot be echoed); render the context yourself or use a local model")
        check_prompt(context)
        t0 = time.perf_counter()
        data = self._post("/completions", {"model": self.model, "prompt": self.score_prefix + context + continuation,
                                           "echo": True, "max_tokens": 1, "logprobs": 0, "temperature": 0})
        lp = data["choices"][0].get("logprobs")
        if not lp or not lp.get("text_offset"):
            raise FeatureMissing(f"{self.base_url} does not echo prompt log-probabilities (needed for score())")
        start = len(context) + _echoed_prefix(lp["tokens"], self.score_prefix)
        keep = [i for i, off in enumerate(lp["text_offset"]) if start <= off < start + len(continuation)]
        tokens = [lp["tokens"][i] for i in keep]
        logprobs = [float(lp["token_logprobs"][i]) for i in keep]
        return TokenScores(tokens, logprobs, Usage(len(lp["tokens"]), 0, time.perf_counter() - t0))

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        """Reads the first generated token's top alternatives; an answer is matched by its text.

        Exact for answers that are single tokens (yes/no, digits). An answer absent from the top
        alternatives gets the smallest listed log-probability as an upper bound.
        """
        check_prompt(prompt)
        body = {"model": self.model, "max_tokens": 1, "temperature": 0, "seed": 0}
        t0 = time.perf_counter()
        if isinstance(prompt, list):
            data = self._post("/chat/completions", {**body, "messages": prompt, "logprobs": True,
                                                    "top_logprobs": TOP_LOGPROBS})
            items = (data["choices"][0].get("logprobs") or {}).get("content") or []
            top = {t["token"]: t["logprob"] for t in items[0]["top_logprobs"]} if items else {}
        else:
            data = self._post("/completions", {**body, "prompt": prompt, "logprobs": TOP_LOGPROBS})
            tops = (data["choices"][0].get("logprobs") or {}).get("top_logprobs") or []
            top = dict(tops[0]) if tops else {}
        if not top:
            raise FeatureMissing(f"{self.base_url} returned no top log-probabilities (needed for answer_probs())")
        floor = min(top.values())
        raw = {}
        for a in answers:
            matches = [lp for tok, lp in top.items() if tok.strip() == a.strip()]
            raw[a] = math.log(sum(math.exp(x) for x in matches)) if matches else floor
        z = math.log(sum(math.exp(v) for v in raw.values()))
        usage = Usage((data.get("usage") or {}).get("prompt_tokens", 0), 1, time.perf_counter() - t0)
        return AnswerDistribution({a: math.exp(v - z) for a, v in raw.items()}, raw, usage)

    def answer_probs_batch(self, prompts: list[Prompt], answers: list[str]) -> list[AnswerDistribution]:
        """`answer_probs` of every prompt, the requests sent concurrently (the rubric's dimensions of one story)."""
        return self._map(lambda p: self.answer_probs(p, answers), list(prompts))

    def count_tokens(self, text: str) -> int:
        """An estimate (4 characters a token): the server's tokenizer is not reachable in general."""
        return max(1, math.ceil(len(text) / 4)) if text else 0


def _echoed_prefix(tokens: list[str], prefix: str) -> int:
    """Characters of `prefix` the echoed text starts with: 0 where the server drops the BOS token it reads."""
    return len(prefix) if prefix and "".join(tokens).startswith(prefix) else 0
