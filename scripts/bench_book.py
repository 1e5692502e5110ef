"""Benchmark: where `make book`'s minutes go, stage by stage, in one replay of the record.

Runs `llmcreativity book` (the record replayed, spot-checked, then the book built and its pages checked) in a
checkout, with a sampling profiler in every stage kernel (`scripts/replay_sampler.py`, an IPython startup file in a
temporary IPYTHONDIR), and prints one table: per stage, the runner's wall seconds split into the kernel's start and
the runner's own work (wall minus the kernel's life), the spot check's recomputations, model loads, other uncached
model work, the call log, answering calls from the record, imports, statistics, figures, writing files and other cell
code; then the build and the page check. With `--baseline REV`, the same is run first in a worktree of REV, so the
two books' times stand side by side, measured in one run (the load average is printed beside each).

    .venv/bin/python scripts/bench_book.py [--baseline REV] [--checkout DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
    start = time.perf_counter()
    marks: list[tuple[float, str]] = []
    with subprocess.Popen([str(exe), "book"], cwd=checkout, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            marks.append((time.perf_counter() - start, line.rstrip()))
    total = time.perf_counter() - start
    if proc.returncode:
        tail = "\n".join(m for _, m in marks[-20:])
        raise SystemExit(f"`llmcreativity book` in {checkout} failed ({proc.returncode}):\n{tail}")
    stages: dict[str, dict[str, float]] = {}
    replay_end, built = 0.0, total
    for t, line in marks:
        if m := re.match(r"\[(\w+)\] done in ([0-9.]+) s", line):  # the runner's wall seconds of the stage
            stages[m.group(1)] = {"wall": float(m.group(2))}
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
            "stages": stages, "load": load, "load_after": os.getloadavg()[0]}


def table(name: str, r: dict[str, object]) -> str:
    stages = r["stages"]
    assert isinstance(stages, dict)
    head = ["stage", "wall", "start"] + [SHORT[p] for p in PARTS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    sums = {k: 0.0 for k in ["wall", "start", *PARTS]}
    for stage, v in stages.items():
        start = v["wall"] - v.get("kernel", 0.0)
        cells = [v["wall"], start] + [v.get(p, 0.0) for p in PARTS]
        for k, c in zip(["wall", "start", *PARTS], cells, strict=True):
            sums[k] += c
        lines.append(f"| {stage} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    lines.append("| all stages | " + " | ".join(f"{sums[k]:.1f}" for k in ["wall", "start", *PARTS]) + " |")
    return (f"## {name}: {r['total']:.0f} s in all (replay {r['replay']:.0f} s, build {r['build']:.0f} s, page check "
            f"{r['check']:.0f} s; 1-minute load {r['load']:.2f} before, {r['load_after']:.2f} after)\n\n"
            + "\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="a revision whose book is timed first, in a worktree, for comparison")
    ap.add_argument("--checkout", type=Path, default=REPO, help="the checkout timed (default: this one)")
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


if __name__ == "__main__":
    main()
