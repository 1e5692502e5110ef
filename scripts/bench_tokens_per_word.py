"""How many tokens per word do the registry's tokenizers spend on prose? The measurement behind `TOKENS_PER_WORD`.

Tokenizes the first `--stories` human and the first `--stories` LLM stories of HANNA with each registry
language model's tokenizer (loaded from its converted folder; no weights are read) and prints, per model,
the pooled tokens per whitespace word and the 95th percentile and maximum over stories.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/bench_tokens_per_word.py --stories 200
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from transformers import AutoTokenizer

from llmcreativity.llm.registry import MODELS, materialize
from llmcreativity.llm.transformers_local import convert_gguf
from llmcreativity.paths import data_dir
from llmcreativity.writing.frameworks.writing_config import TOKENS_PER_WORD


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stories", type=int, default=200)
    args = ap.parse_args()
    hanna = pd.read_csv(data_dir() / "hanna" / "hanna_llm_stories.csv")
    texts = [*hanna["Human"].dropna().head(args.stories), *hanna["Story"].dropna().head(args.stories)]
    words = np.array([len(t.split()) for t in texts], dtype=float)
    rows = []
    for name, spec in MODELS.items():
        if spec.kind != "causal-lm":
            continue
        tok = AutoTokenizer.from_pretrained(convert_gguf(name, materialize(name)))
        tokens = np.array([len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts], dtype=float)
        ratio = tokens / words
        rows.append({"model": name, "texts": len(texts), "tokens per word": tokens.sum() / words.sum(),
                     "p95": np.quantile(ratio, 0.95), "max": ratio.max()})
    print(pd.DataFrame(rows).round(3).to_string(index=False))
    print(f"TOKENS_PER_WORD = {TOKENS_PER_WORD}")


if __name__ == "__main__":
    main()
