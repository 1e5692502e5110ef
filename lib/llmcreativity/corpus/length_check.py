"""Does a lexical divergence measure what a story says, or how long it is? A check on prefixes of real texts.

Every text of every source is cut to its first L words for each L in `lengths` (only texts with at least
max(lengths) words are used, so every length reads the same texts). For a KL mode m, with K_m(s, L) the
mean KL of source s's texts cut to L words:

    length effect  = mean over sources s of |K_m(s, L_max) - K_m(s, L_min)|      (same texts, only longer)
    content effect = mean over lengths L of (max_s K_m(s, L) - min_s K_m(s, L))    (same length, other texts)

A metric that separates content, not length, has a length effect far below its content effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..metrics.divergence import KL_WINDOW, LEXICAL_KL_MODES, lexical_kl
from ..metrics.tokenize import Tokenizer


def prefix(text: str, n_words: int) -> str:
    """The first `n_words` whitespace words of `text`."""
    return " ".join(text.split()[:n_words])


def corpus_passages(chunks: pd.DataFrame, n: int, n_words: int) -> list[str]:
    """Up to `n` passages of `n_words` consecutive words from the corpus, taken book by book in turn
    (each book's chunks joined in order, passages at evenly spaced offsets)."""
    books = {b: " ".join(g.sort_values("chunk_id")["text"]).split() for b, g in chunks.groupby("book", sort=True)}
    per_book = max(1, -(-n // max(len(books), 1)))
    out = []
    for words in books.values():
        starts = np.linspace(0, max(len(words) - n_words, 0), per_book).astype(int)
        out.extend(" ".join(words[s:s + n_words]) for s in starts if len(words) >= s + n_words)
    return out[:n]


def length_content_check(sources: Mapping[str, Sequence[str]], unigrams: Mapping[str, int], *,
                         lengths: Sequence[int] = (120, 300), window: int = KL_WINDOW, alpha: float = 1.0,
                         tokenizer: Tokenizer = "whitespace") -> pd.DataFrame:
    """Mean lexical KL per (mode, source, length) of the sources' texts cut to `length` words.

    Columns: mode ("windowed" or "whole"), source, length, texts, mean_kl.
    """
    if len(sources) < 2 or len(lengths) < 2:
        raise ValueError("pass at least two sources and two lengths: the check compares both")
    longest = max(lengths)
    rows = []
    for source, texts in sources.items():
        kept = [t for t in texts if len(t.split()) >= longest]
        if not kept:
            raise ValueError(f"source {source!r} has no text of at least {longest} words: pass longer texts")
        for length in lengths:
            cut = [prefix(t, length) for t in kept]
            for mode in LEXICAL_KL_MODES:
                kl = lexical_kl(cut, unigrams, mode=mode, window=window, alpha=alpha, tokenizer=tokenizer)
                rows.append({"mode": mode, "source": source, "length": length, "texts": len(kept),
                             "mean_kl": float(np.nanmean(kl))})
    return pd.DataFrame(rows)


def length_vs_content(check: pd.DataFrame) -> pd.DataFrame:
    """Per mode: length_effect, content_effect (see the module docstring) and their ratio length/content."""
    rows = []
    for mode, g in check.groupby("mode", sort=False):
        wide = g.pivot(index="source", columns="length", values="mean_kl")
        length_effect = float((wide[wide.columns.max()] - wide[wide.columns.min()]).abs().mean())
        content_effect = float((wide.max() - wide.min()).mean())
        rows.append({"mode": mode, "length_effect": length_effect, "content_effect": content_effect,
                     "length_over_content": length_effect / content_effect if content_effect > 0 else np.nan})
    return pd.DataFrame(rows).set_index("mode")
