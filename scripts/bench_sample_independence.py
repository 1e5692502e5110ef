"""Benchmark: what a sample's independence of history and batch costs, side by side in one run.

Usage: .venv/bin/python scripts/bench_sample_independence.py [--models smollm2-135m] [--repeats 2]
       [--story-tokens 200] [--threads N] [--bfloat16]

llama.cpp (`LlamaCppBackend`): independent=True (every decode call of 2 to 63 tokens, so each takes ggml's
one-query-at-a-time attention path; a lone token gets a companion) against independent=False (prompts read in calls
of up to 512 tokens, lone tokens alone: the faster path, whose numbers depend on the cache's layout). Workloads:
1. stories: 6 story prompts, n=1, `--story-tokens` new tokens each, no stop (the writing stages' shape);
2. one stream: one story prompt, n=1, `--story-tokens` tokens (every decode step is a lone token);
3. rubric: `answer_probs` for the five rubric dimensions of one HANNA story, one call each (the story is read once
   and reused through the anchor);
4. prefill: the next-token distribution of one prompt of about 480 tokens.
With `--bfloat16`, transformers in bfloat16 too: the 6 stories batched (batch_size 4, prefix reuse: the default)
against one prompt at a time without prefix reuse (the only layout that does not vary with the batch).
Each figure is timed `--repeats` times, the two variants alternating, with each engine's stored prefixes dropped
before every timing; the best time counts. The load average (`/proc/loadavg`) is printed beside every timing and
first and last: read the ratios, which are measured side by side, not the absolute seconds.
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

import pandas as pd

from llmcreativity.judges.rubric import ANSWERS, DIMENSIONS, rubric_prompt
from llmcreativity.llm import GenerateConfig, materialize
from llmcreativity.llm.llamacpp_local import LlamaCppBackend
from llmcreativity.paths import data_dir

PREMISES = ["a lighthouse keeper on Europa", "the last librarian of a generation ship", "a city under the ice",
            "a robot that collects lost words", "two astronauts who disagree about going home",
            "a farmer on Mars whose crops begin to sing"]
TEXT = ("The survey drone found the city under the ice on the third day: streets of blue glass, lamps that still "
        "burned, and a harbour where the boats were frozen in mid-turn. ")


def loadavg() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def story_prompts() -> list[list[dict]]:
    return [[{"role": "user", "content": f"Write a science-fiction story about {p}. Start with 'STORY:'."}]
            for p in PREMISES]


def rubric_prompts() -> list:
    row = pd.read_csv(data_dir() / "hanna" / "hanna_llm_stories.csv").iloc[0]
    return [rubric_prompt(str(row["Prompt"]), str(row["Human"]), d) for d in DIMENSIONS]


def forget(lm) -> None:
    """Drop the stored prefixes, so every timing reads its prompts from scratch."""
    if isinstance(lm, LlamaCppBackend):
        lm._forget()
    else:
        lm.prefixes.clear()


def best_of(variants: dict[str, tuple[object, object]], repeats: int) -> dict[str, float]:
    """The best of `repeats` timings of each variant's work(lm), the variants alternating."""
    best = {name: float("inf") for name in variants}
    for _ in range(repeats):
        for name, (lm, work) in variants.items():
            forget(lm)
            gc.collect()
            t0 = time.perf_counter()
            work(lm)
            seconds = time.perf_counter() - t0
            best[name] = min(best[name], seconds)
            print(f"    {name:<22} {seconds:7.2f} s   load {loadavg()}", flush=True)
    return best


def report(what: str, best: dict[str, float], slow: str, fast: str) -> None:
    print(f"  {what}: {slow} {best[slow]:.2f} s, {fast} {best[fast]:.2f} s, "
          f"{slow}/{fast} = {best[slow] / best[fast]:.2f}x   load {loadavg()}\n", flush=True)


def bench_llamacpp(model: str, args) -> None:
    kw = {"n_threads": args.threads} if args.threads else {}
    variants = {"independent": LlamaCppBackend.from_registry(model, **kw),
                "faster (layout-bound)": LlamaCppBackend.from_registry(model, independent=False, **kw)}
    story = GenerateConfig(n=1, temperature=1.0, max_tokens=args.story_tokens, seed=1)
    stories, rubric = story_prompts(), rubric_prompts()
    long_prompt = [{"role": "user", "content": TEXT * 15 + "What happens next?"}]
    work = {
        f"6 stories x {args.story_tokens} tokens": lambda lm: lm.generate(stories, story),
        f"one stream x {args.story_tokens} tokens": lambda lm: lm.generate(stories[:1], story),
        "rubric: 5 dimensions, one call each": lambda lm: [lm.answer_probs(p, list(ANSWERS)) for p in rubric],
        "prefill of one ~480-token prompt": lambda lm: lm.answer_probs(long_prompt, ["Yes", "No"]),
    }
    print(f"llama.cpp {model} ({variants['independent'].n_threads} threads)")
    for what, fn in work.items():
        print(f"  {what}")
        best = best_of({name: (lm, fn) for name, lm in variants.items()}, args.repeats)
        report(what, best, "independent", "faster (layout-bound)")


def bench_bfloat16(model: str, args) -> None:
    from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf
    path = convert_gguf(model, materialize(model))
    batched = TransformersBackend(path, name=model, dtype="bfloat16", batch_size=4)
    alone = TransformersBackend(path, name=model, dtype="bfloat16", batch_size=1, prefix_reuse=False)
    story = GenerateConfig(n=1, temperature=1.0, max_tokens=args.story_tokens, seed=1)
    what = f"transformers bfloat16 {model}: 6 stories x {args.story_tokens} tokens"
    print(what)
    best = best_of({"one at a time": (alone, lambda lm: lm.generate(story_prompts(), story)),
                    "batched (default)": (batched, lambda lm: lm.generate(story_prompts(), story))}, args.repeats)
    report(what, best, "one at a time", "batched (default)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=["smollm2-135m"])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--story-tokens", type=int, default=200)
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: the physical cores)")
    ap.add_argument("--bfloat16", action="store_true", help="also time transformers bfloat16 batched vs alone")
    args = ap.parse_args()
    print(f"load {loadavg()} at start\n", flush=True)
    for model in args.models:
        bench_llamacpp(model, args)
        if args.bfloat16:
            bench_bfloat16(model, args)
    print(f"load {loadavg()} at end")


if __name__ == "__main__":
    main()
