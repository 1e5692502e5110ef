"""Traffic counters of an HTTP backend: requests, requests in flight, tokens per second and retries.

An `OpenAIBackend` counts every HTTP request it makes in its `stats` (a `RequestStats`, safe for threads).
`counts()` reads the totals; `measure()` counts one block of work (a stage, a phase) on its own, including
the most requests that were in flight at once during that block. Throughput is read per busy second:

    tokens/s = completion tokens / B,    mean in flight = (sum of request seconds) / B,

where B is the wall time during which at least one request was in flight (idle gaps between phases do not
dilute it). A mean in flight above 1 shows that requests really overlapped.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class RequestCounts:
    """An HTTP backend's traffic over some span of time."""

    requests: int = 0
    """HTTP requests answered with status 200."""
    retries: int = 0
    """Requests sent again after a retryable failure (429, 5xx, connection error, timeout)."""
    failures: int = 0
    """Requests given up (a non-retryable status, or retries exhausted)."""
    max_in_flight: int = 0
    """The most requests that were waiting for the server at one moment."""
    prompt_tokens: int = 0
    """Prompt tokens the server reported (`usage.prompt_tokens`), summed."""
    completion_tokens: int = 0
    """Generated tokens the server reported (`usage.completion_tokens`), summed."""
    request_seconds: float = 0.0
    """Wall time of the requests, summed over requests (overlapping requests each count)."""
    busy_seconds: float = 0.0
    """B: wall time during which at least one request was in flight."""

    @property
    def tokens_per_second(self) -> float:
        """Completion tokens per busy second (0 when nothing ran)."""
        return self.completion_tokens / self.busy_seconds if self.busy_seconds > 0 else 0.0

    @property
    def mean_in_flight(self) -> float:
        """Requests in flight on average while busy: request seconds / busy seconds (0 when nothing ran)."""
        return self.request_seconds / self.busy_seconds if self.busy_seconds > 0 else 0.0

    def summary(self) -> str:
        """One line for a report, e.g. "12 requests, at most 8 in flight (mean 5.9), 153.2 tokens/s, 0 retries"."""
        return (f"{self.requests} requests, at most {self.max_in_flight} in flight (mean {self.mean_in_flight:.1f}), "
                f"{self.tokens_per_second:.1f} tokens/s, {self.retries} retries"
                + (f", {self.failures} failed" if self.failures else ""))


class _Window:
    """The mutable counts of one span (the totals, or one `measure` block)."""

    def __init__(self) -> None:
        self.values = {f.name: 0 for f in fields(RequestCounts) if f.name not in ("request_seconds", "busy_seconds")}
        """The whole-number counts (requests, retries, failures, max_in_flight, tokens)."""
        self.request_seconds = 0.0
        self.busy_seconds = 0.0
        self.busy_since: float | None = None

    def freeze(self, now: float, in_flight: int) -> RequestCounts:
        busy_seconds = self.busy_seconds
        if self.busy_since is not None and in_flight:
            busy_seconds += now - self.busy_since
        return RequestCounts(**self.values, request_seconds=self.request_seconds, busy_seconds=busy_seconds)


class RequestStats:
    """Thread-safe traffic counters; the backend calls `started` / `finished` / `retried` around each request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._windows: list[_Window] = [_Window()]  # [0]: the totals since creation

    @property
    def in_flight(self) -> int:
        """Requests waiting for the server now."""
        return self._in_flight

    def started(self) -> float:
        """Note a request sent; returns its start time (pass it to `finished`)."""
        now = time.perf_counter()
        with self._lock:
            self._in_flight += 1
            for w in self._windows:
                if self._in_flight == 1:
                    w.busy_since = now
                w.values["max_in_flight"] = max(w.values["max_in_flight"], self._in_flight)
        return now

    def finished(self, start: float, *, ok: bool, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Note a request answered (`ok`: status 200, else a failure that may be retried)."""
        now = time.perf_counter()
        with self._lock:
            self._in_flight -= 1
            for w in self._windows:
                v = w.values
                w.request_seconds += now - start
                if ok:
                    v["requests"] += 1
                    v["prompt_tokens"] += prompt_tokens
                    v["completion_tokens"] += completion_tokens
                if self._in_flight == 0 and w.busy_since is not None:
                    w.busy_seconds += now - w.busy_since
                    w.busy_since = None

    def retried(self) -> None:
        """Note that a failed request is about to be sent again."""
        self._add("retries")

    def failed(self) -> None:
        """Note a request given up."""
        self._add("failures")

    def _add(self, name: str) -> None:
        with self._lock:
            for w in self._windows:
                w.values[name] += 1

    def counts(self) -> RequestCounts:
        """The totals since the backend was made."""
        with self._lock:
            return self._windows[0].freeze(time.perf_counter(), self._in_flight)

    @contextlib.contextmanager
    def measure(self) -> Iterator[Callable[[], RequestCounts]]:
        """Count the traffic of a block on its own: `with stats.measure() as got: ...`, then `got()`.

        `got()` gives the block's counts (its own most-in-flight included), also while the block still runs.
        """
        window = _Window()
        with self._lock:
            if self._in_flight:
                window.busy_since = time.perf_counter()
            self._windows.append(window)
        frozen: list[RequestCounts] = []

        def got() -> RequestCounts:
            if frozen:
                return frozen[0]
            with self._lock:
                return window.freeze(time.perf_counter(), self._in_flight)

        try:
            yield got
        finally:
            with self._lock:
                frozen.append(window.freeze(time.perf_counter(), self._in_flight))
                self._windows.remove(window)



def combine_counts(parts: list[RequestCounts]) -> RequestCounts:
    """The traffic of several backends of one endpoint: counts and seconds summed, the largest peak in flight.

    Busy seconds are summed too, so backends that ran at the same time understate the combined rate.
    """
    total = {f.name: sum(getattr(p, f.name) for p in parts) for f in fields(RequestCounts)}
    total["max_in_flight"] = max((p.max_in_flight for p in parts), default=0)
    return RequestCounts(**total)


def request_stats(model: object) -> RequestStats | None:
    """The `RequestStats` of the HTTP backend behind `model` (through caching wrappers), None for a local model."""
    seen = 0
    while model is not None and seen < 8:
        stats = getattr(model, "stats", None)
        if isinstance(stats, RequestStats):
            return stats
        model, seen = getattr(model, "inner", None), seen + 1
    return None
