"""Check the degeneracy measure (`llmcreativity.writing.degeneracy`) on the published run's recorded stories.

Reads every story-length writer reply of the baselines and review stages from the published record's calls
(`published/run/<stage>/keys.*.jsonl.gz` give each call's prompt and settings, `calls.*.jsonl.gz` its reply), takes
the story out of each reply as the writing stages do (`parsing.extract_story`, with the stage's `max_story_words`),
and prints: the counts of the issue's lexical rule (to compare with issue 36), the distributions of the measure's
signals, and a hand-check sample of `--flagged` degenerate and `--clean` non-degenerate stories drawn with `--seed`,
each with its signals and its text wrapped for reading.

    .venv/bin/python scripts/check_degeneracy.py [--seed 36] [--flagged 10] [--clean 10]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import textwrap
from pathlib import Path

import numpy as np

from llmcreativity.llm import get_embedder
from llmcreativity.paths import REPO_ROOT
from llmcreativity.record_file import read_record
from llmcreativity.writing.degeneracy import measure_degeneracy
from llmcreativity.writing.parsing import STORY_MARKER, extract_story

RECORD = REPO_ROOT / "published" / "run"
STAGES = ("baselines", "review")


def _rows(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def recorded_stories(record: Path = RECORD) -> list[dict]:
    """One dict per distinct story-length writer reply: stage, role, story, flags."""
    meta = read_record(record).stages
    replies = {r["key"]: r["payload"] for p in sorted(record.glob("*/calls.*.jsonl.gz")) for r in _rows(p)}
    out, seen = [], set()  # a reply is stored once, in the first stage that asked for it (Review shares drafts)
    for stage in STAGES:
        words = int(meta[stage].resolved_parameters["max_story_words"])
        for call in (c for p in sorted((record / stage).glob("keys.*.jsonl.gz")) for c in _rows(p)):
            prompt = call["inputs"].get("prompt")
            if call["method"] != "generate" or not isinstance(prompt, list) or STORY_MARKER not in prompt[-1][
                    "content"]:
                continue
            for key in (k for k in call["keys"] if k not in seen):
                seen.add(key)
                reply = replies[key]
                parsed = extract_story(reply["text"], max_words=words, finish_reason=reply["finish_reason"])
                out.append({"stage": stage, "role": call["role"], "story": parsed.text, "flags": list(parsed.flags)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--flagged", type=int, default=10)
    ap.add_argument("--clean", type=int, default=10)
    ap.add_argument("--min-words", type=int, default=150, help="the issue's story-length threshold")
    args = ap.parse_args()
    stories = [s for s in recorded_stories() if len(s["story"].split()) >= args.min_words]
    found = measure_degeneracy([s["story"] for s in stories], get_embedder("all-minilm-l6-v2", cache=None),
                               [s["flags"] for s in stories])
    n = len(stories)
    print(f"{n} story-length replies ({args.min_words}+ words) in {', '.join(STAGES)}")
    for name in ("loop", "echo", "salad", "degenerate", "cut", "ends_mid_sentence"):
        print(f"  {name:18s} {sum(getattr(d, name) for d in found):4d} of {n}")
    print(f"  echo without loop  {sum(d.echo and not d.loop for d in found):4d}; "
          f"loop without echo {sum(d.loop and not d.echo for d in found):4d}")
    for name in ("distinct_4gram_share", "echo_share", "mean_nearest_cosine", "coherence", "function_word_share"):
        for label, group in (("loop", [d for d in found if d.loop]), ("no loop", [d for d in found if not d.loop])):
            v = np.array([getattr(d, name) for d in group], dtype=float)
            v = v[np.isfinite(v)]
            print(f"  {name:22s} {label:8s} n={len(v):3d} min {v.min():.3f}  q10 {np.quantile(v, 0.1):.3f}  "
                  f"median {np.median(v):.3f}  q90 {np.quantile(v, 0.9):.3f}  max {v.max():.3f}")
    rng = random.Random(args.seed)
    flagged = rng.sample([i for i, d in enumerate(found) if d.degenerate], args.flagged)
    clean = rng.sample([i for i, d in enumerate(found) if not d.degenerate], args.clean)
    for k, i in enumerate(flagged + clean, 1):
        d, s = found[i], stories[i]
        print(f"\n#{k} {'DEGENERATE' if d.degenerate else 'clean'} ({s['stage']}, {s['role']}, flags "
              f"{', '.join(s['flags']) or '-'}): loop {d.loop} echo {d.echo} salad {d.salad}; 4-gram share "
              f"{d.distinct_4gram_share:.2f}, repeats {d.repeated_sentences}, echo share {d.echo_share:.2f}, "
              f"nearest {d.mean_nearest_cosine:.2f}, function words {d.function_word_share:.2f}")
        print(textwrap.fill(s["story"], 110))


if __name__ == "__main__":
    main()
