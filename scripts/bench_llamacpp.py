"""Benchmark: the llama.cpp engine against today's default transformers engine, side by side in one run (issue 15).

Usage: .venv/bin/python scripts/bench_llamacpp.py [--models smollm2-135m qwen2.5-coder-0.5b qwen2.5-coder-1.5b]
       [--prefill-tokens 480] [--story-tokens 196] [--sample-tokens 64] [--samples 10] [--threads N] [--no-one-seq]

For each model, on the same prompts, with caches off and each engine's prefix store emptied before every figure:
1. prefill tokens/s: one prompt of `--prefill-tokens` tokens read, the next-token distribution taken;
2. single-stream decode tokens/s: one short chat prompt, one sample of 64 tokens;
3. stories: 6 story prompts, n=1, <= `--story-tokens` tokens each (temperature 0.8, top_p 0.95: the writing stages);
4. samples: n=`--samples` samples of <= `--sample-tokens` tokens for one prompt (temperature 1: semantic entropy);
5. rubric: `answer_probs_batch` over the five rubric dimensions of one HANNA story (a shared long prefix).
Engines: "transformers" is `TransformersBackend` in the dtype "auto" resolves to (float32 on a CPU without native
bfloat16: today's default, batch_size 4, prefix reuse on); "llama.cpp" is `LlamaCppBackend` on the packaged GGUF
(all rows as parallel sequences); "llama.cpp 1-seq" is the same with parallel=1 (rows one after another, each
reusing the prompt's key/value cells through the anchor), for the workloads with several rows. The ratio column is
llama.cpp over transformers (tokens/s), or transformers over llama.cpp (seconds) for the rubric.
Prints `uptime` first and last and the load after every figure: read the ratios, not the absolutes, when the
machine is shared. On an oversubscribed machine pass `--threads 1`: both engines' worker threads wait for each
other at every operation, and a descheduled thread then stalls them (measured: the same llama.cpp step 0.2 s or 2 s).
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import time

import pandas as pd
import torch

from llmcreativity.judges.rubric import ANSWERS, DIMENSIONS, rubric_prompt
from llmcreativity.llm import GenerateConfig, materialize
from llmcreativity.llm.device import resolve_dtype
from llmcreativity.llm.llamacpp_local import LlamaCppBackend
from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf
from llmcreativity.paths import data_dir

TEXT = ("The survey drone found the city under the ice on the third day: streets of blue glass, lamps that still "
        "burned, and a harbour where the boats were frozen in mid-turn. ")
PREMISES = ["a lighthouse keeper on Europa", "the last librarian of a generation ship", "a city under the ice",
            "a robot that collects lost words", "two astronauts who disagree about going home",
            "a farmer on Mars whose crops begin to sing"]


def chat(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def story_prompts() -> list[list[dict]]:
    return [chat(f"Write a short science-fiction story (about 150 words) about {p}. Start with 'STORY:'.")
            for p in PREMISES]


def rubric_prompts() -> list:
    row = pd.read_csv(data_dir() / "hanna" / "hanna_llm_stories.csv").iloc[0]
    return [rubric_prompt(str(row["Prompt"]), str(row["Human"]), d) for d in DIMENSIONS]


def fresh(lm) -> None:
    """Forget every stored prefix, so each figure reads its prompts from scratch."""
    if isinstance(lm, TransformersBackend):
        lm.prefixes.clear()
    else:
        lm._forget()


def timed(lm, fn) -> tuple[float, object]:
    fresh(lm)
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    print(f"  [{type(lm).__name__} done in {seconds:.1f} s, load {os.getloadavg()[0]:.1f}]", flush=True)
    return seconds, out


def made(out) -> int:
    return sum(len(c.tokens) for row in out for c in row)


def measure(lm, args) -> dict[str, tuple[float, float]]:
    """workload -> (amount, seconds): tokens read or generated, or stories judged."""
    lm.generate([chat("Hi")], GenerateConfig(n=1, max_tokens=2))  # warm-up
    ids = lm.tokenizer(TEXT * 60, add_special_tokens=False)["input_ids"][:args.prefill_tokens]
    res = {}
    s, _ = timed(lm, lambda: lm._read([ids], [len(ids)]))
    res["prefill"] = (len(ids), s)
    s, out = timed(lm, lambda: lm.generate([chat("Write a long story about the sea.")],
                                           GenerateConfig(n=1, temperature=1.0, max_tokens=64, seed=0)))
    res["decode 1 stream"] = (made(out), s)
    stories = GenerateConfig(n=1, temperature=0.8, top_p=0.95, max_tokens=args.story_tokens, seed=0)
    s, out = timed(lm, lambda: lm.generate(story_prompts(), stories))
    res["stories 6 x n=1"] = (made(out), s)
    samples = GenerateConfig(n=args.samples, temperature=1.0, max_tokens=args.sample_tokens, seed=0)
    s, out = timed(lm, lambda: lm.generate([chat("Give one creative use for a paperclip, in one sentence.")], samples))
    res[f"samples 1 x n={args.samples}"] = (made(out), s)
    prompts = rubric_prompts()
    s, _ = timed(lm, lambda: lm.answer_probs_batch(prompts, list(ANSWERS)))
    res["rubric 5 dims (s/story)"] = (1, s)
    return res


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["smollm2-135m", "qwen2.5-coder-0.5b"])
    ap.add_argument("--prefill-tokens", type=int, default=480)
    ap.add_argument("--story-tokens", type=int, default=196)
    ap.add_argument("--sample-tokens", type=int, default=64)
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--threads", type=int, default=None,
                    help="compute threads of both engines (default: torch's default and the physical cores)")
    ap.add_argument("--no-one-seq", action="store_true", help="skip the llama.cpp parallel=1 runs")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    print(f"uptime at start: {uptime()}")
    dtype = resolve_dtype("auto")
    rows = []
    for model in args.models:
        engines = {}
        t = time.perf_counter()
        tf = TransformersBackend(convert_gguf(model, materialize(model)), name=model, dtype=dtype)
        load_tf = time.perf_counter() - t
        engines[f"transformers {dtype}"] = measure(tf, args)
        del tf
        gc.collect()
        t = time.perf_counter()
        cpp = LlamaCppBackend.from_registry(model, n_threads=args.threads)
        load_cpp = time.perf_counter() - t
        engines["llama.cpp"] = measure(cpp, args)
        del cpp
        gc.collect()
        if not args.no_one_seq:
            one = LlamaCppBackend.from_registry(model, parallel=1, n_threads=args.threads)
            engines["llama.cpp 1-seq"] = measure(one, args)
            del one
            gc.collect()
        print(f"\n{model}: load {load_tf:.1f} s (transformers, converted folder) vs {load_cpp:.1f} s (llama.cpp)")
        names = list(engines)
        for work in engines[names[0]]:
            row = {"model": model, "workload": work}
            for name in names:
                amount, seconds = engines[name][work]
                row[f"{name} tok"] = amount
                row[f"{name} s"] = seconds
                row[f"{name} tok/s"] = amount / seconds
            for name in names[1:]:
                rubric = work.startswith("rubric")
                row[f"ratio {name}"] = (row[f"{names[0]} s"] / row[f"{name} s"] if rubric
                                        else row[f"{name} tok/s"] / row[f"{names[0]} tok/s"])
            rows.append(row)
        table = pd.DataFrame([r for r in rows if r["model"] == model]).drop(columns="model")
        print(table.round(2).to_string(index=False), flush=True)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s; uptime at end: {uptime()}")


if __name__ == "__main__":
    main()
