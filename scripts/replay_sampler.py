"""An IPython startup file (copied into a temporary IPYTHONDIR by `scripts/bench_book.py`): a stage kernel samples
its main thread's stack every few milliseconds and writes, at exit, the wall seconds spent in each part of a replay.

Each sample's time (since the previous sample) goes to the first part that the stack is in, in this order: model
loads (the spot check's included), the spot check's recomputations, other uncached model work, the call log,
answering calls from the record, imports, statistics, figures, writing files, then any other cell code. Time when no
cell runs (the kernel waiting for the next request) is "between cells". `BENCH_SAMPLES_OUT` names the folder; the
file is `<stage>.json`.
"""


def _llmc_start_sampler() -> None:
    import atexit
    import json
    import os
    import sys
    import threading
    import time
    from pathlib import Path

    out = os.environ.get("BENCH_SAMPLES_OUT")
    if not out:
        return
    stage = os.environ.get("LLMCREATIVITY_STAGE") or "interactive"
    main = threading.main_thread().ident
    started = time.perf_counter()

    def part(frames: list[tuple[str, str]]) -> str:
        files = [f for f, _ in frames]
        names = [n for _, n in frames]
        joined = [f"{f}:{n}" for f, n in frames]

        def has(*needles: str) -> bool:
            return any(any(s in j for s in needles) for j in joined)

        if not has("interactiveshell.py:run_code"):
            return "between cells"
        if has("sentence_transformers_local.py:model", "transformers_local.py:__init__",
               "llamacpp_local.py:__init__", "from_pretrained", "local_models.py:_load", "registry.py:"):
            return "model loads"
        if has("spot_check.py:", ":_spot_check"):
            return "spot check"
        if has("llamacpp_local.py:", "transformers_local.py:", "sentence_transformers_local.py:"):
            return "uncached model work"
        if has("call_log.py:"):
            return "call log"
        if has("cached_backend.py:", "cached_embedder.py:", "response_cache.py:", "usage_file.py:"):
            return "answering from the record"
        if any("importlib" in f for f in files):
            return "imports"
        if has("/llmcreativity/stats/", "judgelab/heads.py:", "bootstrap", "scipy/stats"):
            return "statistics"
        if has("matplotlib", "seaborn") or any("plot" in n or "figure" in n for n in names):
            return "figures"
        if has("jsonl.py:", "output_files.py:", "to_csv", "to_json", "json/__init__.py:dump", "savez"):
            return "writing files"
        return "other cell code"

    totals: dict[str, float] = {}
    stop = threading.Event()

    def sample() -> None:
        last = time.perf_counter()
        while not stop.wait(0.005):
            frame = sys._current_frames().get(main)
            now = time.perf_counter()
            stack = []
            while frame is not None:
                stack.append((frame.f_code.co_filename, frame.f_code.co_name))
                frame = frame.f_back
            name = part(stack)
            totals[name] = totals.get(name, 0.0) + now - last
            last = now

    thread = threading.Thread(target=sample, daemon=True, name="bench-sampler")
    thread.start()

    def write() -> None:
        stop.set()
        thread.join(1.0)
        Path(out).mkdir(parents=True, exist_ok=True)
        row = {"stage": stage, "kernel_seconds": time.perf_counter() - started, "parts": totals}
        (Path(out) / f"{stage}.json").write_text(json.dumps(row, indent=1), encoding="utf-8")

    atexit.register(write)


_llmc_start_sampler()
del _llmc_start_sampler
