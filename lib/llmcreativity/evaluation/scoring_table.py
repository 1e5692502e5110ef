"""The per-story scoring table: rubric-judge scores and the four rule-based novelty metrics of every story."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ..corpus.store import CorpusStore
from ..corpus.unigram import counts_from_table
from ..judges.rubric import DIMENSIONS, RubricScore
from ..llm.backend import Backend, TextEmbedder
from ..metrics import (
    KL_WINDOW,
    PROMPT_CONTEXT,
    VolumeReference,
    check_surprisal_context,
    lexical_kl,
    semantic_novelty_batch,
    story_surprisal,
)
from ..metrics.tokenize import Tokenizer
from ..stats.agreement import spearman
from ..writing.writing_run import load_stories

JUDGE_COLUMNS: tuple[str, ...] = tuple(d.key for d in DIMENSIONS)
"""The five rubric dimensions, as columns of the scoring table (0-5)."""

NOVELTY_COLUMNS: tuple[str, ...] = ("surprisal", "lexical_kl", "novelty", "volume_gain")
"""The four rule-based novelty metrics, as columns of the scoring table."""
KL_MODES: tuple[str, ...] = ("windowed", "whole")
"""The lexical KL's two estimators: the mean over windows (length-controlled, the project's) and the whole story (the
LLM Review paper's). The scoring table holds both (`kl_column`); `lexical_kl` is the one a run decides on."""


def kl_column(mode: str) -> str:
    """The scoring-table column of the lexical KL in `mode` ("windowed" -> "lexical_kl_windowed")."""
    if mode not in KL_MODES:
        raise ValueError(f"kl mode {mode!r} is not one of {KL_MODES}")
    return f"lexical_kl_{mode}"

SURPRISAL_CONTEXT = PROMPT_CONTEXT
"""Context the scoring model reads before the story in the prompt-conditioned form (`metrics.story_surprisal`; the
corpus notebook uses the same)."""


def load_story_table(path: str | Path, *, system: str | None = None) -> pd.DataFrame:
    """Final stories of one stories JSONL file, one row each, with `story_id` and `system` added.

    `story_id` = "<model>::<message_id>" is unique across frameworks and writer models; `system`
    names the row in the results (default: the framework; pass e.g. "single-1.5b" for a run with
    another model). A table loaded under its own `system` gets "<system>::<model>::<message_id>", so
    its rows stay apart from the baselines' even when both runs used one model (the smoke profile's
    A3 run). Stories without text cannot be scored and are dropped with a warning.
    """
    stories = load_stories(path)
    if stories.empty:
        raise FileNotFoundError(f"{path} holds no stories: run the notebook that writes it first")
    prefix = "" if system is None else system + "::"
    stories.insert(0, "story_id", prefix + stories["model"] + "::" + stories["message_id"])
    stories.insert(1, "system", system if system is not None else stories["framework"])
    empty = stories["story"].str.strip() == ""
    if empty.any():
        warnings.warn(f"{path}: {int(empty.sum())} of {len(stories)} stories are empty and are left out", stacklevel=2)
    return stories[~empty].reset_index(drop=True)


def load_unigrams(path: str | Path) -> dict[str, int]:
    """Unigram counts from a table written by `corpus.unigram.counts_table` (the corpus stage's
    `outputs.unigram_file(tokenizer)`, read by `outputs.read_unigrams`)."""
    return dict(counts_from_table(pd.read_parquet(path)))


def novelty_table(stories: pd.DataFrame, store: CorpusStore, unigrams: Mapping[str, int], embedder: TextEmbedder,
                  scorer: Backend, *, tokenizer: Tokenizer = "whitespace", alpha: float = 1.0, volume_eps: float = 1e-6,
                  kl_mode: str = "windowed", kl_window: int = KL_WINDOW, surprisal_words: int = 0,
                  surprisal_context: str = "prompt", progress: bool = True) -> pd.DataFrame:
    """The four novelty metrics of every story (rows of `stories` with story_id, prompt, story).

    surprisal = -(1/L) sum_j log p(x_j | prompt, x_<j) under `scorer`; lexical_kl = KL(p_story || q_corpus)
    of Lidstone-smoothed unigrams, by default the mean over windows of `kl_window` tokens (length-controlled,
    NaN for a story shorter than one window; `kl_mode="whole"` is the whole-story value, see
    `metrics.divergence`); novelty = 1 - max_i cos(e_story, e_chunk_i); volume_gain =
    logdet(Cov(R + story) + eps I) - logdet(Cov(R) + eps I). Both lexical KLs are kept as well, in
    `kl_column("windowed")` and `kl_column("whole")`; `lexical_kl` is the `kl_mode` one. `embedder` must be the one
    the corpus store was embedded with, or the cosines compare different spaces. `surprisal_words` > 0 scores the
    surprisal of each story's first `surprisal_words` words only (`metrics.first_words`; 0 = the whole story).
    `surprisal_context` "none" scores it without the prompt, S = -(1/L) sum_j log p(x_j | x_<j) (the LLM Review
    summary's form, `metrics.story_surprisal`).
    """
    if embedder.identity != store.embedder:
        raise ValueError(f"embedder {embedder.identity!r} differs from the corpus store's {store.embedder!r}: "
                         "pass the embedder the corpus notebook used (its meta.json names it)")
    missing = {"story_id", "prompt", "story"} - set(stories.columns)
    if missing:
        raise ValueError(f"stories lacks columns {sorted(missing)}: load it with load_story_table")
    texts = stories["story"].tolist()
    kl_column(kl_mode)  # refuses an unknown mode before any metric is computed
    check_surprisal_context(surprisal_context)
    kl = {m: lexical_kl(texts, unigrams, mode=m, window=kl_window, alpha=alpha, tokenizer=tokenizer) for m in KL_MODES}
    E = embedder.encode(texts)
    nov = semantic_novelty_batch(E, store.embeddings)
    gain = VolumeReference.fit(store.embeddings, volume_eps).gain(E)
    surprisal = [story_surprisal(scorer, t, p, context=surprisal_context, max_words=surprisal_words).mean
                 for p, t in tqdm(list(zip(stories["prompt"], texts, strict=True)), desc="surprisal",
                                  disable=not progress)]
    return pd.DataFrame({
        "story_id": stories["story_id"].to_numpy(), "surprisal": surprisal,
        "lexical_kl": kl[kl_mode], "novelty": [n.novelty for n in nov], "volume_gain": np.asarray(gain, dtype=float),
        **{kl_column(m): kl[m] for m in KL_MODES},
        "nearest_chunk": store.chunks["chunk_id"].to_numpy()[[n.nearest for n in nov]],
    })


def judge_table(scores: Sequence[RubricScore]) -> pd.DataFrame:
    """Rubric scores as one row per story: story_id, the five dimensions, judge_mean, judge_missing.

    judge_mean is the mean of the dimensions that have a score; judge_missing counts those that
    have none (then judge_mean rests on fewer dimensions, which the count makes visible).
    """
    if not scores:
        raise ValueError("scores is empty: run the rubric judge first")
    modes = {s.mode for s in scores}
    if len(modes) > 1:
        raise ValueError(f"scores mix modes {sorted(modes)}: build one table per mode")
    long = pd.DataFrame([{"story_id": s.story_id, "dimension": s.dimension, "score": s.score} for s in scores])
    wide = long.pivot(index="story_id", columns="dimension", values="score").astype(float)
    wide = wide.reindex(columns=[c for c in JUDGE_COLUMNS if c in wide.columns])
    wide["judge_mean"] = wide.mean(axis=1)
    wide["judge_missing"] = wide[[c for c in JUDGE_COLUMNS if c in wide.columns]].isna().sum(axis=1)
    return wide.reset_index()


def mode_comparison(expected: Sequence[RubricScore], sampled: Sequence[RubricScore]) -> pd.DataFrame:
    """Expected-score vs sampled-mean estimates on the stories graded both ways, per dimension.

    Columns: stories, expected (mean), sampled (mean), mean_abs_diff, spearman (across stories),
    within_sd (mean over stories of the sd of the repeats: the sampling noise the expected mode
    avoids), missing_repeats (repeats with no readable score), retries.
    """
    e = {(s.story_id, s.dimension): s for s in expected}
    rows = []
    for dim in JUDGE_COLUMNS:
        pairs = [(e[(s.story_id, dim)], s) for s in sampled if s.dimension == dim and (s.story_id, dim) in e]
        if not pairs:
            continue
        ex = np.array([a.score for a, _ in pairs], dtype=float)
        sa = np.array([np.nan if b.score is None else b.score for _, b in pairs], dtype=float)
        sds = [np.std([v for v in b.samples if v is not None], ddof=1) for _, b in pairs
               if sum(v is not None for v in b.samples) >= 2]
        ok = ~np.isnan(sa)
        rows.append({
            "dimension": dim, "stories": len(pairs), "expected": float(ex.mean()),
            "sampled": float(np.nanmean(sa)) if ok.any() else np.nan,
            "mean_abs_diff": float(np.mean(np.abs(ex[ok] - sa[ok]))) if ok.any() else np.nan,
            "spearman": spearman(ex[ok], sa[ok])[0] if ok.sum() >= 3 else np.nan,
            "within_sd": float(np.mean(sds)) if sds else np.nan,
            "missing_repeats": sum(v is None for _, b in pairs for v in b.samples),
            "retries": sum(b.retries for _, b in pairs),
        })
    return pd.DataFrame(rows)
