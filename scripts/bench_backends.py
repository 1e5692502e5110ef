"""Benchmark: batched n=10 sampling versus a one-completion-at-a-time loop, same model and prompt.

Usage: .venv/bin/python scripts/bench_backends.py [--model smollm2-135m] [--n 10] [--max-tokens 48] [--repeats 2]
Prints completions per second for each way and their ratio, for float32 and bfloat16. Cache off.
"""

from __future__ import annotations

import argparse
import time

from llmcreativity.llm import GenerateConfig, get_backend

PROMPT = [{"role": "user", "content": "Write the opening of a science-fiction story about a city under the ice."}]


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    print(f"model={args.model} n={args.n} max_tokens={args.max_tokens} repeats={args.repeats}")
    print(f"{'dtype':>9} {'batched s':>10} {'naive s':>9} {'tokens':>7} {'batched tok/s':>14} {'naive tok/s':>12} {'speed-up':>9}")
    for dtype in ("float32", "bfloat16"):
        lm = get_backend(args.model, dtype=dtype, cache=None)
        lm.generate([PROMPT], GenerateConfig(n=2, max_tokens=4))  # warm-up
        batched = naive = 0.0
        tok_b = tok_n = 0
        for r in range(args.repeats):
            cfg = GenerateConfig(n=args.n, temperature=1.0, max_tokens=args.max_tokens, seed=r)
            out: list = []
            batched += timed(lambda: out.extend(lm.generate([PROMPT], cfg)[0]))
            tok_b += sum(len(c.tokens) for c in out)
            singles: list = []
            one = cfg.merge(n=1)
            naive += timed(lambda: singles.extend(
                lm.generate([PROMPT], one.merge(seed=r * 1000 + i))[0][0] for i in range(args.n)))
            tok_n += sum(len(c.tokens) for c in singles)
        rb, rn = tok_b / batched, tok_n / naive
        print(f"{dtype:>9} {batched:10.1f} {naive:9.1f} {tok_b:4d}/{tok_n:<4d} {rb:14.1f} {rn:12.1f} {rb / rn:8.1f}x")


if __name__ == "__main__":
    main()
