"""What two settings cost on a loopback llama-cpp-python server (a benchmark, not a test).

Both are measured side by side in one run, on the packaged SmolLM2-135M GGUF with the tests' flags:

1. Generation log-probabilities: the same chat prompts sampled with `logprobs` on and off (`GenerateConfig.logprobs`;
   the server sorts the whole vocabulary in Python for every token it reports a log-probability for).
2. The server's prompt cache (`--cache true`): prompts that share a long prefix two by two (a text, then a short
   question about it; as the rubric judge's five dimensions of one story do), sent interleaved (A1, B1, A2, B2, ...),
   to a server with the cache and one without.

    .venv/bin/python scripts/bench_served_settings.py [--prompts 4] [--tokens 64]

Prints seconds per setting and the ratios.
"""

from __future__ import annotations

import argparse
import time

from bench_endpoint_concurrency import start_server  # this folder: the tests' server and flags

from llmcreativity.llm import GenerateConfig, get_role_backend
from llmcreativity.paths import data_dir

MODEL = "smollm2-135m"


def start(cache: bool):
    """(process, base URL) of the tests' server, listing MODEL, with or without its prompt cache."""
    return start_server(*(["--cache", "true", "--cache_size", str(256 << 20)] if cache else []))


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=4, help="prompts per setting")
    ap.add_argument("--tokens", type=int, default=64, help="tokens generated per prompt (part 1)")
    args = ap.parse_args()
    readme = (data_dir() / "README.md").read_text()
    texts = [readme[i * 1500:(i + 1) * 1500] for i in range(2)]
    proc, url = start(cache=True)
    cold, cold_url = start(cache=False)
    try:
        lm = get_role_backend("writer", f"{url}#{MODEL}", max_concurrency=1, cache=None)
        cold_lm = get_role_backend("writer", f"{cold_url}#{MODEL}", max_concurrency=1, cache=None)
        chats = [[{"role": "user", "content": f"Write a short story about a lighthouse, number {i}."}]
                 for i in range(args.prompts)]
        cfg = GenerateConfig(temperature=0.8, max_tokens=args.tokens, seed=1)
        on = timed(lambda: lm.generate(chats, cfg.merge(logprobs=True)))
        off = timed(lambda: lm.generate(chats, cfg.merge(logprobs=False, seed=2)))
        print(f"1. generation, {args.prompts} prompts x {args.tokens} tokens: logprobs on {on:.1f} s, off {off:.1f} s "
              f"-> on/off = {on / off:.2f}")
        asks = [[{"role": "user", "content": f"{texts[i % 2]}\n\nQuestion {i // 2}: is this text about data?"}]
                for i in range(2 * args.prompts)]
        one = GenerateConfig(temperature=0.0, max_tokens=1, logprobs=False)
        cached = timed(lambda: lm.generate(asks, one))
        plain = timed(lambda: cold_lm.generate(asks, one))
        print(f"2. {len(asks)} interleaved prompts sharing a prefix two by two: prompt cache on {cached:.1f} s, "
              f"off {plain:.1f} s -> off/on = {plain / cached:.2f}")
    finally:
        for p in (proc, cold):
            p.terminate()
            p.wait(timeout=30)


if __name__ == "__main__":
    main()
