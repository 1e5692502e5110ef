"""The spot-check worker: one process that computes the calls replayed stages filed for their spot check, each model
loaded once for every stage.

A replay run side by side (`pipeline.execution.run_side_by_side`) sets the stage kernels' `spot_check_later`: a
drawn call of a local model is filed in the stage's pending file (`spot_check.SpotChecker.check`) instead of
computed there. After the stage, the runner hands the file to this worker (`SpotWorker.check`), which builds each
model from its recipe (`local_models.from_recipe`) the first time a call needs it and keeps it for later stages,
computes each call again against the record's answer (`spot_check.check_recorded`), appends the comparisons to the
stage's spot-check file and removes the pending file. Per stage the calls drawn, compared and matched are those the
kernel would have computed itself; what is saved is each stage loading its models again.

The worker runs as `python -m llmcreativity.llm.spot_worker`: one request a line on its standard input (JSON:
`pending`, `out`, `calls`, and `threads`, the file that says how many compute threads to use, read before each call,
so that the runner can give the worker every core once no stage is left), one answer a line on the standard output it
started with (JSON: `checks`, `seconds`, `loads`, or `error`); whatever the models print goes to its log
(`SpotWorker.log`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from ..jsonl import append_jsonl, read_jsonl
from .call_log import LoggedCall
from .response_cache import ResponseCache
from .spot_check import check_recorded


@dataclass(frozen=True)
class Checked:
    """What the worker did for one stage's pending file."""

    checks: int
    """Calls computed again and compared."""
    seconds: float
    """Wall seconds of the comparisons, loads included."""
    loads: dict[str, float] = field(default_factory=dict)
    """Model identity -> seconds its load took, for the models this request loaded first."""


class Models:
    """The models built so far, by recipe, each built on its first use and kept (`local_models.from_recipe`)."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def get(self, recipe: dict[str, Any]) -> tuple[Any, float]:
        """The model of `recipe`, loaded, and the seconds its load took here (0 when it was loaded before)."""
        from .local_models import from_recipe
        from .sentence_transformers_local import SentenceTransformersEmbedder

        key = json.dumps(recipe, sort_keys=True)
        if key in self._built:
            return self._built[key], 0.0
        start = time.perf_counter()
        model = from_recipe(recipe)
        _ = model.model if isinstance(model, SentenceTransformersEmbedder) else model.backend  # the weights, now
        self._built[key] = model
        return model, time.perf_counter() - start


def use_threads(model: Any, threads: int) -> None:
    """Have `model` compute with `threads` threads: torch's pool (transformers and sentence-transformers models) and a
    llama.cpp model's own (`LlamaCppBackend.use_threads`)."""
    import torch

    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    engine: Any = getattr(model, "backend", None)
    if hasattr(engine, "use_threads") and engine.n_threads != threads:
        engine.use_threads(threads)


def threads_now(threads: Path | None) -> int | None:
    """The compute threads the file `threads` asks for now (None: no such file, or no number in it).

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "worker.threads"
    >>> threads_now(f), threads_now(None)
    (None, None)
    >>> _ = f.write_text("2"); threads_now(f)
    2
    """
    try:
        n = int(threads.read_text()) if threads is not None else 0
    except (OSError, ValueError):
        return None
    return n if n > 0 else None


def check_pending(pending: Path, out: Path, calls: Path, models: Models, threads: Path | None = None) -> Checked:
    """Compute every call of the pending file `pending` again (each with the compute threads the file `threads` asks
    for then, `threads_now`; as the process started where it asks for none), append the comparisons to `out`, remove
    `pending`."""
    start, loads, rows = time.perf_counter(), {}, read_jsonl(pending)
    cache = ResponseCache(calls)
    for row in rows:
        call = LoggedCall(**row["call"])
        model, load = models.get(row["recipe"])
        if load:
            loads[call.identity] = round(load, 2)
        if (n := threads_now(threads)) is not None:
            use_threads(model, n)
        append_jsonl(out, [asdict(check_recorded(model, call, cache))])
    pending.unlink(missing_ok=True)
    return Checked(len(rows), round(time.perf_counter() - start, 2), loads)


def serve(requests: IO[str], answers: IO[str]) -> None:
    """Answer requests (one JSON a line: `pending`, `out`, `calls`, `threads`) until the input ends."""
    models = Models()
    for line in requests:
        if not line.strip():
            continue
        try:
            ask = json.loads(line)
            threads = Path(ask["threads"]) if ask.get("threads") else None
            answer: dict[str, Any] = asdict(check_pending(Path(ask["pending"]), Path(ask["out"]), Path(ask["calls"]),
                                                          models, threads))
        except Exception as e:  # told to the runner, which fails the stage's spot check with it
            answer = {"error": f"{type(e).__name__}: {e}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


class SpotWorker:
    """The runner's side of the worker: started on the first request, with `environment` (a stage kernel's: its
    threads and arithmetic), its output in `log`; one request at a time (`check`); its compute threads set at any time
    (`use_threads`, taken up before its next call)."""

    def __init__(self, environment: dict[str, str], log: Path):
        self.environment = environment
        self.log = log
        self.threads = log.with_suffix(".threads")
        """The file the worker reads its compute threads from before each call (`use_threads`)."""
        self.threads.unlink(missing_ok=True)
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def use_threads(self, n: int) -> None:
        """Have the worker compute with `n` threads from its next call on."""
        self.threads.parent.mkdir(parents=True, exist_ok=True)
        part = self.threads.with_suffix(".part")
        part.write_text(str(n))
        os.replace(part, self.threads)

    def check(self, pending: Path, out: Path, calls: Path) -> Checked:
        """Have the worker compute the calls of `pending` (nothing to do when there is no such file)."""
        if not pending.exists():
            return Checked(0, 0.0)
        with self._lock:
            if self._process is None:
                self.log.parent.mkdir(parents=True, exist_ok=True)
                with self.log.open("w") as log:
                    self._process = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                                     stdout=subprocess.PIPE, stderr=log, text=True,
                                                     env=self.environment)
            assert self._process.stdin is not None and self._process.stdout is not None
            ask = {"pending": str(pending), "out": str(out), "calls": str(calls), "threads": str(self.threads)}
            self._process.stdin.write(json.dumps(ask) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the spot-check worker stopped (exit code {self._process.poll()}): see {self.log}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the spot-check worker could not check {pending}: {answer['error']} (see {self.log})")
        return Checked(**answer)

    def close(self) -> None:
        """End the worker (its input closed, so it leaves its loop)."""
        if self._process is not None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            self._process.wait()
            self._process = None

    def __enter__(self) -> SpotWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main() -> None:
    """Serve requests on standard input; the answers go to the standard output this process started with, whatever a
    library writes there goes to the log."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(sys.stdin, answers)


if __name__ == "__main__":
    main()
