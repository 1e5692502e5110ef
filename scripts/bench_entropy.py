"""Benchmark of the semantic-entropy step: entailment calls and sampling time.

Prints, in one run and on the same inputs:
  1. entailment pairs judged by representative-only clustering versus all ordered pairs, with the
     judge's wall time for each: the embedding approximation always, the LLM judge with --llm-judge
     (caching off, so both pay full price);
  2. wall time of one SE step's sampling with one batched call (n samples) versus n calls of one
     sample, with the same model, prompt and settings (caching off).

Usage: .venv/bin/python scripts/bench_entropy.py [--model smollm2-135m] [--llm-judge qwen2.5-coder-1.5b]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from itertools import permutations, product

from llmcreativity.entropy import (
    MACGYVER_PROMPT, STEP_SAMPLING, EmbeddingSimilarityJudge, LLMEntailmentJudge, StepwiseSettings, cluster_by_bidirectional_entailment, macgyver_problems,
)
from llmcreativity.data.musescorer import load_musescorer
from llmcreativity.entropy.stepwise import sample_candidates
from llmcreativity.llm import get_backend, get_embedder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m", help="model that samples the candidates")
    ap.add_argument("--llm-judge", default="", help="instruct model of an LLM entailment judge to time as well")
    ap.add_argument("--llm-threshold", type=float, default=0.7, help="p(Yes) threshold of the LLM judge")
    ap.add_argument("--embedder", default="all-minilm-l6-v2")
    ap.add_argument("--embedding-threshold", type=float, default=0.7, help="cosine threshold of the embedding judge")
    ap.add_argument("--n", type=int, default=10, help="candidates per step")
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--buckets", type=int, default=3,
                    help="MuseScorer input: 15 ideas from each of this many largest buckets of coder krish in round 1")
    args = ap.parse_args()

    lm = get_backend(args.model, cache=None)
    problem = macgyver_problems(limit=1)[0]
    prompt = MACGYVER_PROMPT.render(problem.text, [])
    settings = StepwiseSettings(STEP_SAMPLING.merge(n=args.n, temperature=1.0, max_tokens=args.max_tokens))
    sample_candidates(lm, prompt, StepwiseSettings(STEP_SAMPLING.merge(n=2, max_tokens=4)), MACGYVER_PROMPT)  # warm-up

    timings = {}
    candidates = None
    for batched in (True, False):
        t0 = time.perf_counter()
        cands = sample_candidates(lm, prompt, replace(settings, batched=batched),
                                  MACGYVER_PROMPT)
        timings[batched] = time.perf_counter() - t0
        candidates = candidates or cands

    emb = get_embedder(args.embedder)
    judges = {"embedding": lambda: EmbeddingSimilarityJudge(emb, threshold=args.embedding_threshold)}
    if args.llm_judge:
        judge_lm = get_backend(args.llm_judge, cache=None)
        judges["LLM"] = lambda: LLMEntailmentJudge(judge_lm, threshold=args.llm_threshold)
    shoe = load_musescorer().query("round_id == 1")
    largest = shoe["krish"].value_counts().index[: args.buckets]
    ideas = shoe[shoe["krish"].isin(largest)].groupby("krish").head(15)["idea_content"].tolist()
    inputs = {
        f"{args.n} step candidates ({args.model})": ([c.text for c in candidates if c.text and not c.is_stop], problem.text),
        f"{len(ideas)} MuseScorer ideas, {args.buckets} human buckets": (ideas, "Unusual uses of a shoe"),
    }
    rows = []
    for (name, (texts, context)), (jname, make) in product(inputs.items(), judges.items()):
        if jname == "LLM" and "MuseScorer" in name:
            continue  # the LLM judge on all ordered pairs of many ideas takes hours on a CPU
        judge, all_judge = make(), make()
        if isinstance(judge, EmbeddingSimilarityJudge):  # time the judging, not the encoder: encode once up front
            judge.embed(texts)
            all_judge.embed(texts)
        t0 = time.perf_counter()
        clustering = cluster_by_bidirectional_entailment(texts, judge, context=context, batch_size=4)
        t_rep = time.perf_counter() - t0
        distinct = list(dict.fromkeys(t.strip() for t in texts))
        pairs = list(permutations(distinct, 2))
        t0 = time.perf_counter()
        all_judge.entails(pairs, context)
        t_all = time.perf_counter() - t0
        rows.append((f"{jname}: {name}", len(texts), clustering.n_clusters, clustering.judge_calls, t_rep, len(pairs), t_all))

    print("\nEntailment pairs judged, representative-only clustering vs all ordered pairs (cache off)")
    print(f"{'judge: input':55s} {'N':>3s} {'K':>3s} {'rep-only calls':>15s} {'s':>7s} {'all-pairs calls':>16s} {'s':>7s} {'ratio':>6s}")
    for name, n, k, c_rep, t_rep, c_all, t_all in rows:
        print(f"{name:55s} {n:3d} {k:3d} {c_rep:15d} {t_rep:7.1f} {c_all:16d} {t_all:7.1f} "
              f"{c_all / max(c_rep, 1):6.2f}")
    print(f"\nSampling one SE step: {lm.identity}, n={args.n}, max_tokens={args.max_tokens} (cache off)")
    print(f"  batched (1 call x {args.n} samples): {timings[True]:7.2f} s")
    print(f"  one by one ({args.n} calls x 1):      {timings[False]:7.2f} s")
    print(f"  speed-up of batching:               {timings[False] / timings[True]:7.2f} x")


if __name__ == "__main__":
    main()
