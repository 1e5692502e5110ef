"""Pilot: the cheap convergent judges (p(Yes), single call) of one model on n balanced MacGyver items.

Usage: .venv/bin/python scripts/pilot_judges.py [MODEL] [--items N] [--out DIR]

Builds the judges exactly as the judge-validation chapter does (criteria "valid", joint mode, no retries, the same
stratified sample: one item per problem, seed 0), writes their judgements to DIR (resumable: a killed run redoes
only the missing items) and prints accuracy and Cohen's kappa against MacGyver's labels with 95 % bootstrap CIs and
the seconds per item. It tells, in minutes, whether a model judges convergent validity above chance before a
stage spends an hour on its panels. Calls go through the call cache (`$LLMCREATIVITY_CALLS`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from llmcreativity.data.macgyver import load_benchmark, stratified_sample
from llmcreativity.judges import (
    AnswerProbabilityJudge,
    SingleCallJudge,
    criteria_set,
    judgement_table,
    run_judge,
    summarize_judges,
)
from llmcreativity.judges.validation import items_and_labels
from llmcreativity.llm.roles import get_role_backend

COLUMNS = ["judge", "n", "accuracy", "accuracy_low", "accuracy_high", "kappa", "kappa_low", "kappa_high",
           "tokens_per_item", "seconds_per_item", "parsed_share"]


def pilot(model: str, n_items: int, out: Path) -> pd.DataFrame:
    """The summary table of the two cheap judges of `model` on `n_items` labelled items (judgements kept in `out`)."""
    out.mkdir(parents=True, exist_ok=True)
    sample = stratified_sample(load_benchmark(valid_prefix="correct_"), n_items, by="valid", seed=0,
                               one_per_problem=True)
    items, labels = items_and_labels(sample)
    common = dict(lm=get_role_backend("convergent_judge", model), criteria=criteria_set("valid"),
                  criteria_mode="joint", max_retries=0)
    judges = [AnswerProbabilityJudge(**common), SingleCallJudge(**common, max_tokens=24)]
    found = [x for j in judges for x in run_judge(j, items, out / f"{j.name}.jsonl", progress=False)]
    return summarize_judges(judgement_table(found, labels), n_resamples=1000, seed=0)[COLUMNS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default="llama.cpp:qwen2.5-coder-1.5b")
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path("results/pilot/judge_pilot"))
    args = parser.parse_args()
    print(f"{args.model} on {args.items} MacGyver items:")
    print(pilot(args.model, args.items, args.out / args.model.replace(":", "_")).round(3).to_string())


if __name__ == "__main__":
    main()
