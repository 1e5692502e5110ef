"""Benchmark: where `make book`'s minutes go, stage by stage, in one replay of the record.

Runs `llmcreativity book` (the record replayed, spot-checked, then the book built and its pages checked) in a
checkout, with a sampling profiler in every stage kernel (`scripts/replay_sampler.py`, an IPython startup file in a
temporary IPYTHONDIR), and prints one table: per stage, the runner's wall seconds split into the kernel's start and
the runner's own work (wall minus the kernel's life), the spot check's recomputations, model loads, other uncached
model work, the call log, answering calls from the record, imports, statistics, figures, writing files and other cell
code; the seconds of its spot check that the spot-check worker computed after it (`worker`, its model loads
included, `worker loads`: `llm.spot_worker`); then the build and the page check. With `--baseline REV`, the same is
run first in a worktree of REV, so the two books' times stand side by side, measured in one run (the load average is
printed beside each). Each book's line also gives the CPU seconds the book command and every process it started used,
and those divided by the cores: the least time any schedule of that same work could take.

With `--floor`, the floor the replay cannot go below is measured after it, in the same run: every call the replay's
spot check computed, computed again by a fresh spot-check worker alone on all the cores, one model load each, plus
the build's seconds.

    .venv/bin/python scripts/bench_book.py [--baseline REV] [--checkout DIR] [--floor]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from llmcreativity.paths import data_dir, papers_dir

REPO = Path(__file__).resolve().parents[1]
PARTS = ["spot check", "model loads", "uncached model work", "call log", "answering from the record", "imports",
         "statistics", "figures", "writing files", "other cell code", "between cells"]
SHORT = {"spot check": "spot", "model loads": "loads", "uncached model work": "live", "call log": "log",
         "answering from the record": "answer", "imports": "import", "statistics": "stats", "figures": "figs",
         "writing files": "write", "other cell code": "other", "between cells": "idle"}


def run_book(checkout: Path) -> dict[str, object]:
    """Run `llmcreativity book` in `checkout` (its own .venv, else this one's), sampling every stage kernel."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-book-"))
    startup = tmp / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    shutil.copyfile(REPO / "scripts" / "replay_sampler.py", startup / "00-bench-sampler.py")
    env = {**os.environ, "IPYTHONDIR": str(tmp / "ipython"), "BENCH_SAMPLES_OUT": str(tmp / "samples"),
           "PYTHONPATH": str(checkout / "lib"),  # the checkout's own package, before this one's editable install
           "LLMCREATIVITY_DATA": str(data_dir()), "LLMCREATIVITY_PAPERS": str(papers_dir())}  # as this checkout finds
    # them: a worktree elsewhere has no ../shared beside it
    exe = checkout / ".venv" / "bin" / "llmcreativity"
    if not exe.exists():
        exe = REPO / ".venv" / "bin" / "llmcreativity"
    load = os.getloadavg()[0]
    cpu = children_cpu()
    start = time.perf_counter()
    marks: list[tuple[float, str]] = []
    with subprocess.Popen([str(exe), "book"], cwd=checkout, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            marks.append((time.perf_counter() - start, line.rstrip()))
    total, cpu = time.perf_counter() - start, children_cpu() - cpu
    if proc.returncode:
        tail = "\n".join(m for _, m in marks[-20:])
        raise SystemExit(f"`llmcreativity book` in {checkout} failed ({proc.returncode}):\n{tail}")
    stages: dict[str, dict[str, float]] = {}
    replay_end, built = 0.0, total
    for t, line in marks:
        if m := re.match(r"\[(\w+)\] done in ([0-9.]+) s", line):  # the runner's wall seconds of the stage
            stages.setdefault(m.group(1), {})["wall"] = float(m.group(2))
            replay_end = t
        elif m := re.match(r"\[(\w+)\] spot check: \d+ call\(s\) computed again in ([0-9.]+) s(.*)", line):
            stages.setdefault(m.group(1), {})["worker"] = float(m.group(2))
            stages[m.group(1)]["worker loads"] = sum(float(x) for x in re.findall(r"\(([0-9.]+) s\)", m.group(3)))
            replay_end = t
        elif line.startswith("book built"):
            built = t
    (tmp / "book.log").write_text("\n".join(f"{t:8.1f} {line}" for t, line in marks), encoding="utf-8")
    for f in sorted((tmp / "samples").glob("*.json")):
        row = json.loads(f.read_text())
        if row["stage"] in stages:
            stages[row["stage"]]["kernel"] = row["kernel_seconds"]
            stages[row["stage"]].update(row["parts"])
    print(f"(the book command's output, timed: {tmp / 'book.log'})")
    return {"total": total, "replay": replay_end, "build": built - replay_end, "check": total - built,
            "stages": stages, "load": load, "load_after": os.getloadavg()[0], "cpu": cpu}


def children_cpu() -> float:
    """User and system CPU seconds of this process's children that have ended, and of theirs they waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def recipe_of(identity: str) -> dict[str, object]:
    """The recipe (`local_models.from_recipe`) of a local model identity of the recorded profiles (CPU, float32)."""
    from llmcreativity.llm.device import local_batch_size

    parts = identity.split(":")
    if parts[0] == "llama.cpp":
        return {"engine": "llama.cpp", "model": parts[1]}
    if parts[0] == "transformers":
        return {"engine": "transformers", "model": parts[1], "dtype": parts[2], "batch_size": local_batch_size("cpu"),
                "device": "cpu"}
    return {"engine": "sentence-transformers", "model": identity, "device": "cpu"}


def measure_floor(checkout: Path) -> dict[str, float]:
    """The spot check of the checkout's last replay computed again by one fresh worker on every core: seconds of its
    model loads and of its recomputations, per stage and in all."""
    from dataclasses import asdict

    from llmcreativity.context import kernel_context, kernel_start_environment
    from llmcreativity.jsonl import append_jsonl
    from llmcreativity.llm.call_log import read_call_log
    from llmcreativity.llm.spot_check import read_spot_checks
    from llmcreativity.llm.spot_worker import SpotWorker
    from llmcreativity.pipeline.execution import PORTABLE_ARITHMETIC_ENV

    [calls] = (checkout / "results" / "replay").rglob("record_calls.sqlite")
    executed, tmp = calls.parent, Path(tempfile.mkdtemp(prefix="bench-floor-"))
    cores = str(len(os.sched_getaffinity(0)))
    env = kernel_start_environment(kernel_context(), PORTABLE_ARITHMETIC_ENV | {"OMP_NUM_THREADS": cores})
    out = {"loads": 0.0, "recomputations": 0.0}
    with SpotWorker(env, tmp / "worker.log") as worker:
        for spot in sorted((executed / "spot_check").glob("*.jsonl")):
            logged = {c.keys[0]: c for c in read_call_log(executed / "calls" / spot.name)}
            rows = [{"call": asdict(logged[r.key]), "recipe": recipe_of(r.identity)} for r in read_spot_checks(spot)]
            append_jsonl(tmp / f"{spot.stem}.pending.jsonl", rows)
            done = worker.check(tmp / f"{spot.stem}.pending.jsonl", tmp / spot.name, calls)
            loads = sum(done.loads.values())
            out["loads"] += loads
            out["recomputations"] += done.seconds - loads
            out[spot.stem] = done.seconds
    return out


def table(name: str, r: dict[str, object]) -> str:
    stages = r["stages"]
    assert isinstance(stages, dict)
    columns = ["wall", "start", *PARTS, "worker", "worker loads"]
    head = ["stage", "wall", "start"] + [SHORT[p] for p in PARTS] + ["worker", "w. loads"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    sums = {k: 0.0 for k in columns}
    for stage, v in sorted(stages.items()):
        start = v.get("wall", 0.0) - v.get("kernel", 0.0)
        cells = [v.get("wall", 0.0), start] + [v.get(p, 0.0) for p in [*PARTS, "worker", "worker loads"]]
        for k, c in zip(columns, cells, strict=True):
            sums[k] += c
        lines.append(f"| {stage} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    lines.append("| all stages | " + " | ".join(f"{sums[k]:.1f}" for k in columns) + " |")
    cores = len(os.sched_getaffinity(0))
    return (f"## {name}: {r['total']:.0f} s in all (replay {r['replay']:.0f} s, build {r['build']:.0f} s, page check "
            f"{r['check']:.0f} s; 1-minute load {r['load']:.2f} before, {r['load_after']:.2f} after; CPU "
            f"{r['cpu']:.0f} s in all, so on {cores} cores no schedule of the same work takes less than "
            f"{r['cpu'] / cores:.0f} s)\n\n"
            + "\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="a revision whose book is timed first, in a worktree, for comparison")
    ap.add_argument("--checkout", type=Path, default=REPO, help="the checkout timed (default: this one)")
    ap.add_argument("--floor", action="store_true", help="measure the floor after this checkout's book")
    args = ap.parse_args()
    results = []
    if args.baseline:
        tree = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), args.baseline], check=True)
        try:
            results.append((f"baseline {args.baseline}", run_book(tree)))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)
    results.append((f"this checkout ({args.checkout})", run_book(args.checkout)))
    print(f"{os.cpu_count()} CPUs; seconds; parts: " + ", ".join(f"{SHORT[p]} = {p}" for p in PARTS)
          + "; start = the kernel's start and the runner's own work (wall minus the kernel's life)\n")
    for name, r in results:
        print(table(name, r) + "\n")
    if len(results) == 2:
        print(f"baseline / this checkout: {results[0][1]['total'] / results[1][1]['total']:.2f}x in all, "
              f"{results[0][1]['replay'] / results[1][1]['replay']:.2f}x the replay")
    if args.floor:
        floor, build = measure_floor(args.checkout), results[-1][1]["build"]
        assert isinstance(build, float)
        each = ", ".join(f"{k} {v:.1f}" for k, v in floor.items() if k not in ("loads", "recomputations"))
        total = floor["loads"] + floor["recomputations"] + build
        print(f"\nfloor (the spot check alone on {len(os.sched_getaffinity(0))} cores, then the build; load "
              f"{os.getloadavg()[0]:.2f}): model loads {floor['loads']:.1f} s + recomputations "
              f"{floor['recomputations']:.1f} s + build {build:.1f} s = {total:.0f} s; plus 20 %: {1.2 * total:.0f} s; "
              f"this checkout's book: {results[-1][1]['total']:.0f} s\nper stage, seconds: {each}")


if __name__ == "__main__":
    main()
