"""Items of a stage sent to a loopback llama.cpp server one at a time and eight at a time (a benchmark, not a test).

The same small workload runs three ways with the call cache off: the packaged SmolLM2-135M on the local
transformers engine, and the same model's GGUF served by llama-cpp-python's OpenAI-compatible server (the
tests' server and flags) with `max_concurrency` 1 and 8. The workload is two stages' item loops: a
single-call judge over MacGyver solutions (`run_judge`) and step-wise semantic-entropy chains with the LLM
entailment judge on the same model (`run_chains`). For each it prints the wall time, the generated tokens
and tokens per wall second, and for the server the requests, the most in flight, the mean in flight
(request seconds / busy seconds) and the retries, read from the backend's counters.

    .venv/bin/python scripts/bench_endpoint_concurrency.py [--items 8] [--problems 3] [--no-local]

llama-cpp-python's server answers one request at a time (one model behind a lock), so on this server the
concurrency shows as requests queued on it (most in flight 8), not as a higher rate: the rate is bounded by
the one model on the CPU cores it has. A server that batches requests (vLLM, llama.cpp's own `llama-server
--parallel N`) turns the same concurrency into throughput.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from llmcreativity.data.macgyver import load_benchmark, stratified_sample
from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings, macgyver_problems, run_chains
from llmcreativity.entropy.domains import MACGYVER_PROMPT
from llmcreativity.entropy.entailment import LLMEntailmentJudge
from llmcreativity.judges import MACGYVER_VALID, SingleCallJudge, run_judge
from llmcreativity.judges.validation import items_and_labels
from llmcreativity.llm import get_backend, get_role_backend, materialize
from llmcreativity.llm.request_stats import RequestCounts, request_stats

MODEL = "smollm2-135m"
SERVER_THREADS = 2
"""CPU threads of the llama.cpp server (the tests' setting)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(*extra: str) -> tuple[subprocess.Popen, str]:
    """llama-cpp-python's server on loopback serving the 135M GGUF as `MODEL`, as in tests/conftest.py; (process, base
    URL)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(materialize(MODEL)), "--host", "127.0.0.1",
         "--port", str(port), "--model_alias", MODEL, "--n_ctx", "2048", "--logits_all", "true", "--n_threads",
         str(SERVER_THREADS), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if requests.get(f"{url}/models", timeout=2).status_code == 200:
                return proc, url
        except requests.ConnectionError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("llama_cpp.server did not start within 120 s")


def stage_row(name: str, setup: str, lm, run) -> dict:
    """Run one stage's items and measure it: wall seconds, generated tokens, tokens/s, and the endpoint's traffic."""
    stats = request_stats(lm)
    before = len(lm.records)
    t0 = time.perf_counter()
    if stats is None:
        run()
        traffic = None
    else:
        with stats.measure() as window:
            run()
        traffic = window()
    seconds = time.perf_counter() - t0
    tokens = sum(r.completion_tokens for r in lm.records[before:])
    row = {"stage": name, "setup": setup, "seconds": round(seconds, 1), "tokens": tokens,
           "tokens/s": round(tokens / seconds, 1)}
    if isinstance(traffic, RequestCounts):
        row.update({"requests": traffic.requests, "max in flight": traffic.max_in_flight,
                    "mean in flight": round(traffic.mean_in_flight, 2), "retries": traffic.retries})
    return row


def workload(lm, setup: str, out: Path, args) -> list[dict]:
    """The judge stage over `args.items` MacGyver solutions and the step-wise SE stage over `args.problems`."""
    items, _ = items_and_labels(stratified_sample(load_benchmark(), args.items, seed=0))
    judge = SingleCallJudge(lm=lm, criteria=(MACGYVER_VALID,), max_tokens=args.max_tokens, max_retries=0)
    problems = macgyver_problems(limit=args.problems)
    settings = [StepwiseSettings(STEP_SAMPLING.merge(n=3, max_tokens=32), step_cap=2)]
    tag = setup.replace(" ", "-").replace(",", "")
    return [
        stage_row("judge (single call)", setup, lm,
                  lambda: run_judge(judge, items, out / f"judge-{tag}.jsonl", progress=False)),
        stage_row("step-wise SE", setup, lm,
                  lambda: run_chains(lm, LLMEntailmentJudge(lm), problems, MACGYVER_PROMPT, settings,
                                     out / f"se-{tag}.jsonl", progress=False)),
    ]


def table(rows: list[dict]) -> str:
    cols = ["stage", "setup", "seconds", "tokens", "tokens/s", "requests", "max in flight", "mean in flight",
            "retries"]
    width = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols}
    lines = ["  ".join(c.rjust(width[c]) for c in cols)]
    lines += ["  ".join(str(r.get(c, "")).rjust(width[c]) for c in cols) for r in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=8, help="MacGyver solutions judged")
    ap.add_argument("--problems", type=int, default=3, help="MacGyver problems of the step-wise SE")
    ap.add_argument("--max-tokens", type=int, default=48, help="judge reply length")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--no-local", action="store_true", help="skip the local transformers run")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} CPUs")
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-endpoint-") as tmp:
        out = Path(tmp)
        if not args.no_local:
            rows += workload(get_backend(MODEL, cache=None), "local transformers", out, args)
        proc, url = start_server()
        try:
            for c in args.concurrency:
                lm = get_role_backend("convergent_judge", f"{url}#{MODEL}", max_concurrency=c, cache=None)
                rows += workload(lm, f"server, max_concurrency {c}", out, args)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(f"model {MODEL}; server: llama-cpp-python, {SERVER_THREADS} threads; cache off; "
          f"{args.items} judge items, {args.problems} SE problems (n=3, step cap 2)")
    print(table(rows))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
