"""Which embedded model should write the stories by default? Speed and output quality, side by side.

Runs the Single Agent framework (and one LLM Review run) on the same SciFi-100 prompts with each
model, uncached, and prints per model: completion tokens per second, seconds per story, words per
story, share of replies with parsing flags, Distinct-2 across stories, prompt-story embedding cosine
(does the story follow its prompt?), and the first story.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/bench_writing_models.py --prompts 3 --max-tokens 200
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

import numpy as np

from llmcreativity.llm import get_backend, get_embedder
from llmcreativity.metrics import distinct_n
from llmcreativity.writing import STORY_SAMPLING, LLMReview, SingleAgent, WritingConfig, load_scifi, select_prompts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["smollm2-135m", "qwen2.5-coder-0.5b"])
    ap.add_argument("--prompts", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=300)
    ap.add_argument("--review", action="store_true", help="also time one LLM Review run per model")
    args = ap.parse_args()
    items = select_prompts(load_scifi(), n_categories=args.prompts, per_category=1)
    config = WritingConfig(STORY_SAMPLING.merge(max_tokens=args.max_tokens), feedback_max_tokens=args.max_tokens // 2,
                           max_story_words=int(args.max_tokens * 0.7))
    embedder = get_embedder("all-minilm-l6-v2")
    rows, firsts = [], {}
    for name in args.models:
        lm = get_backend(name, cache=None)
        lm.generate([[{"role": "user", "content": "Hi"}]], config.story_config().merge(max_tokens=2))  # load the model
        start = time.perf_counter()
        messages = [m for it in items for m in SingleAgent(config=config).run(lm, it)]
        seconds = time.perf_counter() - start
        stories = [m.story for m in messages if m.story]
        pairs = [(it.text, m.story) for it, m in zip(items, messages) if m.story]
        relevance = float(np.mean([embedder.encode([p, st]).prod(axis=0).sum() for p, st in pairs])) if pairs else float("nan")
        row = {
            "model": name,
            "stories": len(messages),
            "s_per_story": seconds / len(messages),
            "completion_tok_per_s": sum(m.completion_tokens for m in messages) / seconds,
            "words_per_story": sum(len(s.split()) for s in stories) / max(len(stories), 1),
            "flagged_share": sum(bool(m.flags) for m in messages) / len(messages),
            "missing_marker_share": sum("missing_marker" in m.flags for m in messages) / len(messages),
            "distinct_2": distinct_n(stories, 2) if stories else float("nan"),
            "prompt_story_cosine": relevance,
        }
        if args.review:
            start = time.perf_counter()
            t = LLMReview(config=config).run(lm, items[0])
            row["review_run_s"] = time.perf_counter() - start
            row["review_flagged"] = sum(bool(m.flags) for m in t)
        rows.append(row)
        firsts[name] = messages[0].text
    pd.set_option("display.width", 200)
    print(pd.DataFrame(rows).set_index("model").round(3).T.to_string())
    for name, text in firsts.items():
        print(f"\n===== {name}: first reply, prompt {items[0].prompt_id} =====\n{text}")


if __name__ == "__main__":
    main()
