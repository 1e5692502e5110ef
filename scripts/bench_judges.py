"""Benchmark: tokens, seconds and accuracy of the retrieval judge versus ChatEval at matched settings.

Runs both judges (same model, three agents, same rounds and reply length) on a stratified MacGyver
sample for several round counts and prints, side by side, tokens per item and the measured ratio
retrieval / ChatEval (with and without early stopping). All calls are cached, so reruns are free.

    .venv/bin/python scripts/bench_judges.py --model qwen2.5-coder-0.5b --n 4 --rounds 1 2
"""

from __future__ import annotations

import argparse

import pandas as pd

from llmcreativity.data.macgyver import load_benchmark, stratified_sample
from llmcreativity.judges import MACGYVER_VALID, ChatEvalJudge, RetrievalPanelJudge, judgement_table, run_judge, summarize_judges, token_saving
from llmcreativity.judges.validation import items_and_labels
from llmcreativity.llm import get_backend, get_embedder
from llmcreativity.paths import results_dir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--embedder", default="all-minilm-l6-v2")
    ap.add_argument("--n", type=int, default=4, help="items (stratified by label)")
    ap.add_argument("--rounds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--T", type=float, default=0.8)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    items, labels = items_and_labels(stratified_sample(load_benchmark(), args.n, seed=args.seed))
    lm, emb = get_backend(args.model), get_embedder(args.embedder)
    out = results_dir() / "bench_judges"
    rows = []
    for r in args.rounds:
        judges = {
            "chateval": ChatEvalJudge(lm=lm, criteria=(MACGYVER_VALID,), rounds=r, max_tokens=args.max_tokens, max_retries=0),
            "retrieval": RetrievalPanelJudge(lm=lm, embedder=emb, criteria=(MACGYVER_VALID,), rounds=r, k=args.k,
                                             stop_confidence=args.T, max_tokens=args.max_tokens, max_retries=0),
            "retrieval, no early stop": RetrievalPanelJudge(lm=lm, embedder=emb, criteria=(MACGYVER_VALID,), rounds=r,
                                                            k=args.k, stop_confidence=1.01, max_tokens=args.max_tokens, max_retries=0),
        }
        res = {kind: run_judge(j, items, out / f"{j.name}.jsonl", progress=False) for kind, j in judges.items()}
        table = judgement_table([x for js in res.values() for x in js], labels)
        summary = summarize_judges(table, n_resamples=500).set_index("judge")
        base = judges["chateval"].name
        for kind, j in judges.items():
            s = summary.loc[j.name]
            rows.append({
                "rounds": r, "judge": kind, "tokens/item": round(s["tokens_per_item"]), "seconds/item": round(s["seconds_per_item"], 1),
                "accuracy": round(s["accuracy"], 2), "tokens vs chateval": round(s["tokens_per_item"] / summary.loc[base, "tokens_per_item"], 3),
                "saving [95% CI]": "" if kind == "chateval" else str(token_saving(table, j.name, base, n_resamples=500)),
            })
    print(f"model {lm.identity}, {len(items)} MacGyver items, k={args.k}, T={args.T}, max_tokens={args.max_tokens}")
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
