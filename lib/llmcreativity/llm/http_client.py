"""One OpenAI-compatible server's HTTP side, shared by the chat/completions backend and the embedder.

A `requests` session carrying the key (from the environment, never stored in records), at most `max_concurrency`
requests in flight (a semaphore, however many threads share the client), and 429, 5xx, connection errors
and timeouts are retried (`_post`) up to `max_retries` times with exponential backoff and jitter,
wait_a = min(30, 0.5 * 2^a) * U(0.5, 1.5) seconds after attempt a, holding no slot while it waits. `stats` counts
requests, requests in flight, tokens and retries.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import requests

from .request_stats import RequestStats

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
"""HTTP statuses worth another try (timeouts, conflicts, rate limits, server errors)."""


def endpoint_identity(kind: str, base_url: str, model: str, served_model: str = "") -> str:
    """`KIND:URL:MODEL`, followed by `@SERVED` when the server names its weights otherwise.

    >>> endpoint_identity("openai", "http://h:1/v1", "judge", "weights-7b")
    'openai:http://h:1/v1:judge@weights-7b'
    """
    identity = f"{kind}:{base_url}:{model}"
    return f"{identity}@{served_model}" if served_model and served_model != model else identity


class HttpClient:
    """POST JSON to `base_url` + path with bounded concurrency and retries (see the module)."""

    def __init__(self, base_url: str, *, api_key: str | None = None, max_concurrency: int = 8,
                 timeout: float = 120.0, max_retries: int = 5):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url={base_url!r}: give the server's URL, e.g. http://127.0.0.1:8000/v1")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency={max_concurrency!r}: must be >= 1")
        if max_retries < 0:
            raise ValueError(f"max_retries={max_retries!r}: must be >= 0")
        self.base_url = base_url.rstrip("/")
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.stats = RequestStats()
        """Requests, requests in flight, tokens and retries (`stats.counts()`, `stats.measure()`)."""
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._session = requests.Session()
        if api_key:
            self._session.headers["Authorization"] = f"Bearer {api_key}"

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON answer of `POST base_url + path`; raises ConnectionError (unreachable after every try) or
        RuntimeError (an HTTP error that is not retried, or the last retried one) naming the URL."""
        url = f"{self.base_url}{path}"
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.stats.retried()
            try:
                r = self._send(url, body)
            except (requests.ConnectionError, requests.Timeout) as e:
                if attempt == self.max_retries:
                    self.stats.failed()
                    raise ConnectionError(f"could not reach {url} after {attempt + 1} tries ({type(e).__name__}): "
                                          "check base_url and that the server is running") from None
            else:
                if r.status_code == 200:
                    answer: dict[str, Any] = r.json()
                    return answer
                if r.status_code not in RETRY_STATUS or attempt == self.max_retries:
                    self.stats.failed()
                    raise RuntimeError(f"{url} answered HTTP {r.status_code}: {r.text[:300]}")
            time.sleep(min(30.0, 0.5 * 2**attempt) * (0.5 + random.random()))  # the backoff holds no slot
        raise AssertionError("unreachable")

    def _send(self, url: str, body: dict[str, Any]) -> requests.Response:
        """One HTTP request in one of the `max_concurrency` slots, counted in `stats`."""
        with self._slots:
            start = self.stats.started()
            ok = False
            usage: dict[str, int] = {}  # the token counts of the answer's `usage`
            try:
                r = self._session.post(url, json=body, timeout=self.timeout)
                if r.status_code == 200:
                    usage = r.json().get("usage") or {}
                    ok = True
                return r
            finally:
                self.stats.finished(start, ok=ok, prompt_tokens=int(usage.get("prompt_tokens") or 0),
                                    completion_tokens=int(usage.get("completion_tokens") or 0))
