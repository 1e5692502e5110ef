"""The call log: every model call a stage's kernel asked for, with its inputs, so that a run can be recorded.

A stage runs in a papermill kernel; the runner names a file in its context (`context.KernelContext.call_log`, one
per stage, emptied when the stage starts), every `CachedBackend` / `CachedEmbedder` made in the kernel keeps it in its
call policy (`call_policy.CallPolicy.call_log`), and each of their lookups appends one row there: which model
identity, which method, which role asked, the cache keys it asked for, and the call's inputs (prompt and sampling
config, scored continuation, answers, embedded text). A key is logged once per file and process. `record export`
(`pipeline.record_export`) reads the log to know which cached answers the stage used and stores them with their inputs,
so a recorded call can be recomputed from the record alone.

Replay (`llmcreativity run --replay`) sets the context's `cache_only` and `calls` (the
call-cache file imported from the record): every model wrapper made then is `replay-only` (`CallPolicy.mode`) and
answers from that file only, and a miss raises `CacheMiss` naming the stage, the role, the method and the start of
the prompt.

Rows are appended line by line (`jsonl.append_jsonl`: flushed, fsynced, a torn last line ignored by readers),
so a kernel killed at any point leaves every row it logged before: a resumed stage does not ask again for what it
reads back from its own outputs, so its log must already hold those calls. A replay-only wrapper's rows (its call
policy's `cache_only`) are appended in batches instead, at most once per `WRITE_EVERY_S` seconds while calls come in,
before any other wrapper's row, and when the process exits (`flush_call_logs`; a reader in the same process flushes
first): a replayed stage always starts anew, from an empty folder and an empty log (`pipeline.execution._start_logs`),
so a kernel killed there loses nothing a resumption would need, and a replay answering tens of thousands of calls from
the record no longer waits for a disk sync on each.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ..context import PerFile, kernel_context
from ..jsonl import append_jsonl, read_jsonl

Kind = Literal["lm", "embedder", "nli"]
"""Which wrapper logged a call: a language model, a sentence embedder or an NLI cross-encoder."""


class CacheMiss(LookupError):
    """Raised in cache-only mode (a replay) when a call has no stored answer."""


@dataclass(frozen=True)
class LoggedCall:
    """One call as the kernel asked for it: enough to find its answers and to compute them again."""

    kind: Kind
    """The wrapper that logged it."""
    identity: str
    """The model identity (part of every key)."""
    method: str
    """`generate`, `score`, `answer_probs`, `encode` or `entail`."""
    keys: list[str]
    """The cache keys of its answers: one per sample for `generate`, else one."""
    inputs: dict[str, Any]
    """What the model was given: `prompt` and `config` (generate), `context` and `continuation` (score),
    `prompt` and `answers` (answer_probs), `text` (encode), `premise` and `hypothesis` (entail)."""
    role: str = ""
    """The model role that asked (`writer`, `rubric_judge`, ...); empty when the model was built without one."""
    stage: str = ""
    """The stage whose kernel asked (the wrapper's `CallPolicy.stage`); empty outside a runner-started process."""


def calls_path(default: Path) -> Path:
    """The call-cache file: the context's `calls` when set, else `default` (read where a wrapper's cache is opened,
    `cache_wrapping.open_call_cache`, never on a call)."""
    return kernel_context().calls or default


def prompt_start(prompt: Any, chars: int = 80) -> str:
    """The first `chars` characters of a prompt's text (the last message of a chat), for messages."""
    text = prompt[-1]["content"] if isinstance(prompt, list) and prompt else str(prompt)
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars] + "…"


def miss_message(call: LoggedCall) -> str:
    """What a replay says when `call` has no recorded answer: where it came from and how to fix it."""
    stage = call.stage or "(no stage)"
    what = call.inputs.get("prompt", call.inputs.get("context", call.inputs.get("text", call.inputs.get("premise"))))
    return (f"replay miss in stage {stage!r}, role {call.role or '(none)'!r}: no recorded answer for "
            f"{call.method} of {call.identity} on {prompt_start(what)!r} (key {call.keys[0][:12]}…). The code asks "
            f"for a call the record does not hold: re-record stage {stage!r} (`llmcreativity run --stage {stage}` "
            "then `llmcreativity record export`), or replay with the code the record was made with.")


WRITE_EVERY_S = 1.0
"""Least seconds between two appends of a replay-only wrapper's rows to a call log while calls come in (`CallLog`)."""


class CallLog:
    """The rows of one log file; each key is written once per process. A row is appended at once, with the rows
    waiting before it, unless it is `batched`: batched rows wait until `every_s` seconds have passed since the last
    append, a row that is not batched comes, or `flush`."""

    def __init__(self, path: str | Path, every_s: float = WRITE_EVERY_S, clock: Callable[[], float] = time.monotonic):
        self.path = Path(path)
        self.every_s = every_s
        self._clock = clock
        self._seen: set[str] = set()
        self._pending: list[dict[str, Any]] = []
        self._written_at = float("-inf")
        self._lock = threading.Lock()

    def add(self, call: LoggedCall, batched: bool = False) -> None:
        """Log `call` unless every key of it was logged already by this process."""
        with self._lock:
            if all(k in self._seen for k in call.keys):
                return
            self._seen.update(call.keys)
            self._pending.append(asdict(call))
            if not batched or self._clock() - self._written_at >= self.every_s:
                self._write()

    def flush(self) -> None:
        """Append the rows not yet written."""
        with self._lock:
            if self._pending:
                self._write()

    def _write(self) -> None:
        append_jsonl(self.path, self._pending)
        self._pending = []
        self._written_at = self._clock()


def flush_call_logs() -> None:
    """Append every log's unwritten rows (run when the process exits)."""
    for log in _LOGS.all():
        log.flush()


_LOGS: PerFile[CallLog] = PerFile(CallLog, on_first=lambda: atexit.register(flush_call_logs))
"""The log of each call-log file (one per file and process, so a key is logged once whichever wrapper asks)."""


def log_call(path: Path | None, call: LoggedCall, batched: bool = False) -> None:
    """Log `call` to the call-log file `path` (a wrapper's `CallPolicy.call_log`); nothing happens when it is None
    (outside a runner-started process). `batched`: the wrapper is replay-only (its policy's `cache_only`), so the row
    may wait to be appended with others (`CallLog`)."""
    log = _LOGS.get(path)
    if log is not None:
        log.add(call, batched)


def read_call_log(path: str | Path) -> list[LoggedCall]:
    """The calls of a log file, in the order they were asked (a torn last line ignored)."""
    return [LoggedCall(**row) for row in read_jsonl(path)]
