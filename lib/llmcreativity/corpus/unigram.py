"""Unigram (word frequency) distribution of a corpus, the reference `q` of lexical divergence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pandas as pd

from llmcreativity.metrics.tokenize import Tokenizer, tokenize


def unigram_counts(texts: Iterable[str], tokenizer: Tokenizer = "whitespace") -> Counter[str]:
    """c(w) = number of occurrences of token w over all `texts` under `tokenizer`."""
    counts: Counter[str] = Counter()
    for t in texts:
        counts.update(tokenize(t, tokenizer))
    return counts


def counts_table(counts: Counter[str]) -> pd.DataFrame:
    """Counts as a table (token, count, prob) sorted by descending count, for Parquet and plots."""
    total = sum(counts.values())
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    table = pd.DataFrame(items, columns=["token", "count"])
    table["prob"] = table["count"] / total if total else 0.0
    return table


def counts_from_table(table: pd.DataFrame) -> Counter[str]:
    """Inverse of `counts_table`."""
    return Counter(dict(zip(table["token"], table["count"].astype(int), strict=True)))
