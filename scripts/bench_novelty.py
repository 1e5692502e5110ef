"""Benchmark: semantic novelty and embedding volume gain of many stories against a large reference.

Compares, in one run, the per-story computations straight from the definitions (one
`semantic_novelty` call per story, which validates and normalizes the chunk matrix each time; a new
covariance and log-determinant per story for the volume gain) with the fast paths of `llmcreativity.metrics` (chunks normalized once + blocked matrix products for novelty;
one Cholesky factor of the reference + the matrix determinant lemma for volume gain), checks that
both give the same numbers, and prints the timings and speed-ups side by side. A middle row times
a per-story loop that already reuses the normalized chunk matrix, to show how much of the novelty
speed-up comes from normalizing once and how much from the blocked matrix product.

By default the reference is a synthetic matrix of the corpus's size (15,000 x 768, unit rows with
a decaying spectrum like sentence embeddings); `--corpus results/corpus` uses an exported corpus
store instead, and stories are then drawn near random chunks. The naive volume gain costs a new
covariance and determinant per story, so it is timed on `--naive-stories` stories and its total
for all stories is extrapolated (pass `--naive-stories` equal to `--stories` to time it all).

    .venv/bin/python scripts/bench_novelty.py [--stories 1000] [--chunks 15000] [--dim 768]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from llmcreativity.corpus.store import load_exported
from llmcreativity.metrics import VolumeReference, logdet_cov, semantic_novelty, semantic_novelty_batch


def synthetic_embeddings(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Unit rows whose variance decays over the dimensions (power law), like sentence embeddings."""
    scales = (np.arange(1, dim + 1) ** -0.5).astype(np.float64)
    x = rng.normal(size=(n, dim)) * scales + rng.normal(size=dim) * 0.3
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stories", type=int, default=1000)
    ap.add_argument("--chunks", type=int, default=15000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--naive-stories", type=int, default=50, help="stories timed with the naive volume gain")
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--corpus", type=Path, default=None, help="exported corpus store folder (else synthetic)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)

    if args.corpus is not None:
        chunks = load_exported(args.corpus).embeddings
        picks = chunks[rng.integers(0, len(chunks), args.stories)]
        stories = (picks + rng.normal(scale=0.02, size=picks.shape)).astype(np.float32)
        source = f"corpus store {args.corpus}"
    else:
        chunks = synthetic_embeddings(args.chunks, args.dim, rng)
        stories = synthetic_embeddings(args.stories, args.dim, rng)
        source = "synthetic"
    n, d = chunks.shape
    k = min(args.naive_stories, len(stories))
    print(f"reference: {n} x {d} ({source}); stories: {len(stories)}; eps = {args.eps}")

    naive_nov, t_naive_nov = timed(lambda: [semantic_novelty(s, chunks) for s in stories])
    unit = chunks / np.linalg.norm(chunks, axis=1, keepdims=True)
    loop_best, t_loop_nov = timed(lambda: [int(np.argmax(unit @ (s / np.linalg.norm(s)))) for s in stories])
    fast_nov, t_fast_nov = timed(lambda: semantic_novelty_batch(stories, chunks))
    nov_diff = max(abs(a.novelty - b.novelty) for a, b in zip(naive_nov, fast_nov))
    same_nearest = sum(a.nearest == b.nearest for a, b in zip(naive_nov, fast_nov))

    ref64 = chunks.astype(np.float64)
    (base_logdet, naive_vol), t_naive_vol = timed(
        lambda: (ld := logdet_cov(ref64, args.eps), [logdet_cov(np.vstack([ref64, y]), args.eps) - ld for y in stories[:k]])
    )
    t_naive_vol_all = t_naive_vol / k * len(stories)
    ref, t_fit = timed(lambda: VolumeReference.fit(chunks, args.eps))
    fast_vol, t_gain = timed(lambda: ref.gain(stories))
    vol_diff = float(np.max(np.abs(np.asarray(naive_vol) - fast_vol[:k])))

    rows = [
        (f"novelty ({len(stories)} stories)", t_naive_nov, "measured", t_fast_nov, nov_diff),
        ("  novelty, loop over pre-normalized chunks", t_loop_nov, "measured", t_fast_nov, 0.0),
        (f"volume gain (naive on {k}, x{len(stories)}/{k})", t_naive_vol_all, "extrapolated" if k < len(stories) else "measured",
         t_fit + t_gain, vol_diff),
    ]
    print(f"\n{'metric':44s} {'naive s':>10s} {'':>13s} {'fast s':>9s} {'speed-up':>9s} {'max |diff|':>11s}")
    for name, tn, how, tf, diff in rows:
        print(f"{name:44s} {tn:10.2f} {how:>13s} {tf:9.3f} {tn / tf:8.1f}x {diff:11.2e}")
    total_naive, total_fast = t_naive_nov + t_naive_vol_all, t_fast_nov + t_fit + t_gain
    print(f"{'both':44s} {total_naive:10.2f} {'':>13s} {total_fast:9.3f} {total_naive / total_fast:8.1f}x")
    loop_same = sum(a == b.nearest for a, b in zip(loop_best, fast_nov))
    print(f"\nnearest chunk identical for {same_nearest}/{len(stories)} stories "
          f"({loop_same}/{len(stories)} for the float32 pre-normalized loop)")
    print(f"volume fast path: fit {t_fit:.2f} s once + {t_gain * 1000 / len(stories):.3f} ms per story; "
          f"naive {t_naive_vol / k:.2f} s per story")


if __name__ == "__main__":
    main()
