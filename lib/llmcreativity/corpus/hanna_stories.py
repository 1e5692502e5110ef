"""The corpus chapter's test of the novelty metrics: HANNA's human stories beside one LLM's for the same prompts.

`hanna_llm_stories.csv` (in `data_dir()/hanna/`) holds, per row, a prompt, the human story (`Human`) and the story
one system (`Model`) wrote for it (`Story`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..metrics import KL_WINDOW, VolumeReference, lexical_kl, semantic_novelty_batch
from ..paths import data_dir, require_file

METRICS = ["novelty", "volume_gain", "lexical_kl"]
"""The corpus metrics compared between the groups."""


def hanna_pairs(llm_system: str, n: int, path: str | Path | None = None) -> pd.DataFrame:
    """The first `n` prompts of `llm_system` with the human story and that system's story, two rows per prompt.

    Columns: prompt_id (0..n-1, shared by a pair), group ("human" or `llm_system`), prompt, text (stripped).
    """
    p = require_file(path or data_dir() / "hanna" / "hanna_llm_stories.csv", "HANNA stories",
                     "put hanna_llm_stories.csv from the HANNA benchmark into data_dir()/hanna/")
    hanna = pd.read_csv(p)
    llm = hanna[hanna["Model"] == llm_system].reset_index(drop=True).head(n)
    if llm.empty:
        raise ValueError(f"llm_system={llm_system!r} has no stories in {p}: "
                         f"choose one of {sorted(hanna['Model'].unique())}")
    return pd.DataFrame({
        "prompt_id": np.tile(np.arange(len(llm)), 2),
        "group": ["human"] * len(llm) + [llm_system] * len(llm),
        "prompt": pd.concat([llm["Prompt"], llm["Prompt"]], ignore_index=True),
        "text": pd.concat([llm["Human"], llm["Story"]], ignore_index=True).str.strip(),
    })


def story_metrics(stories: pd.DataFrame, story_embeddings: np.ndarray, chunk_embeddings: np.ndarray,
                  chunk_ids: Sequence[str], unigrams: dict[str, int], *, tokenizer: str = "whitespace",
                  smoothing: float = 1.0, volume_eps: float = 1e-6, kl_mode: str = "windowed",
                  kl_window: int = KL_WINDOW) -> pd.DataFrame:
    """`stories` with novelty (1 - max cosine to a chunk), nearest_chunk (its id), volume_gain and lexical_kl
    (`metrics.lexical_kl` in `kl_mode`) added."""
    nov = semantic_novelty_batch(story_embeddings, chunk_embeddings)
    volume = VolumeReference.fit(chunk_embeddings, volume_eps)
    return stories.assign(
        novelty=[n.novelty for n in nov],
        nearest_chunk=np.asarray(chunk_ids)[[n.nearest for n in nov]],
        volume_gain=volume.gain(story_embeddings),
        lexical_kl=lexical_kl(list(stories["text"]), unigrams, mode=kl_mode, window=kl_window, alpha=smoothing,
                              tokenizer=tokenizer),
    )


def smoothing_sweep(stories: pd.DataFrame, unigrams: dict[str, int], alphas: Sequence[float],
                    tokenizer: str = "whitespace", *, kl_mode: str = "windowed",
                    kl_window: int = KL_WINDOW) -> pd.DataFrame:
    """Mean lexical KL (`metrics.lexical_kl` in `kl_mode`) per group at each Lidstone constant alpha (rows alpha,
    columns group)."""
    rows = [{"alpha": a, "group": g,
             "mean KL": np.nanmean(lexical_kl(list(part["text"]), unigrams, mode=kl_mode, window=kl_window, alpha=a,
                                              tokenizer=tokenizer))}
            for a in alphas for g, part in stories.groupby("group")]
    return pd.DataFrame(rows).pivot(index="alpha", columns="group", values="mean KL")


def paired_differences(stories: pd.DataFrame, llm_system: str, metrics: Sequence[str] = METRICS, *,
                       seed: int = 0) -> pd.DataFrame:
    """Per metric, d_i = metric(LLM story_i) - metric(human story_i) over prompts: mean d with a 95 % percentile
    bootstrap CI (scipy) and the share of prompts where the LLM scores higher. Pairs with a NaN (a story too short for
    the windowed lexical KL) are left out of that metric; below two pairs there is no CI."""
    wide = stories.pivot(index="prompt_id", columns="group", values=list(metrics))
    rows = []
    for metric in metrics:
        d = (wide[metric][llm_system] - wide[metric]["human"]).dropna().to_numpy()  # NaN: a story too short to score
        if len(d) < 2:
            higher = f"{(d > 0).mean():.0%} of prompts" if len(d) else "-"
            rows.append({"metric": metric, "n pairs": len(d), "mean (LLM - human)": d.mean() if len(d) else np.nan,
                         "95% CI low": np.nan, "95% CI high": np.nan, "LLM higher in": higher})
            continue
        ci = stats.bootstrap((d,), np.mean, confidence_level=0.95, random_state=seed).confidence_interval
        rows.append({"metric": metric, "n pairs": len(d), "mean (LLM - human)": d.mean(), "95% CI low": ci.low,
                     "95% CI high": ci.high, "LLM higher in": f"{(d > 0).mean():.0%} of prompts"})
    return pd.DataFrame(rows)


def nearest_other_book(chunks: pd.DataFrame, embeddings: np.ndarray, indices: Sequence[int]) -> pd.DataFrame:
    """For each chunk index, its nearest chunk (cosine of the unit-length embeddings) from a *different* book."""
    books = chunks["book"].to_numpy()
    rows = []
    for i in indices:
        sims = embeddings @ embeddings[i]
        sims[books == books[i]] = -np.inf
        j = int(np.argmax(sims))
        rows.append({"chunk": chunks["chunk_id"].iloc[i], "text": chunks["text"].iloc[i][:300],
                     "nearest (other book)": chunks["chunk_id"].iloc[j], "its text": chunks["text"].iloc[j][:300],
                     "cosine": round(float(sims[j]), 3)})
    return pd.DataFrame(rows)
