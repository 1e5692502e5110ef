"""Figures of the corpus chapter: chunk lengths, words per book, the Zipf plot and a 2-D map of the chunks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from sklearn.decomposition import PCA


def words_per_book(chunks: pd.DataFrame) -> pd.DataFrame:
    """Chunks and words (after cleaning) per book, sorted by year."""
    per_book = chunks.groupby(["book", "year"], as_index=False).agg(chunks=("chunk_id", "size"),
                                                                     words=("n_words", "sum"))
    return per_book.sort_values("year")


def plot_chunks(chunks: pd.DataFrame, chunk_words: int) -> Figure:
    """Histogram of words per chunk (target `chunk_words`) beside the words per book."""
    per_book = words_per_book(chunks)
    fig, ax = plt.subplots(1, 2, figsize=(12, 3.5))
    ax[0].hist(chunks["n_words"], bins=40)
    ax[0].set(xlabel="words per chunk", ylabel="chunks", title=f"Chunk lengths (target {chunk_words})")
    ax[1].barh(per_book["book"].str.replace(".txt", "", regex=False), per_book["words"])
    ax[1].set(xlabel="words after cleaning", title="Words per book")
    fig.tight_layout()
    return fig


def plot_zipf(unigrams: Mapping[str, Counter]) -> Figure:
    """Relative frequency against rank (log-log), one line per tokenizer."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, counts in unigrams.items():
        freq = np.sort(np.fromiter(counts.values(), dtype=float))[::-1]
        ax.loglog(np.arange(1, len(freq) + 1), freq / freq.sum(), label=name)
    ax.set(xlabel="rank", ylabel="relative frequency", title="Zipf plot of the corpus unigrams")
    ax.legend()
    return fig


def projection(chunks: pd.DataFrame, embeddings: np.ndarray, sample: int, rng: np.random.Generator, *,
               seed: int = 0) -> pd.DataFrame:
    """A sample of at most `sample` chunks drawn with `rng`, with their first two principal components (pc1, pc2;
    PCA with random_state `seed`) and their decade."""
    pick = rng.choice(len(chunks), size=min(sample, len(chunks)), replace=False)
    xy = PCA(n_components=2, random_state=seed).fit_transform(embeddings[pick])
    view = chunks.iloc[pick]
    return view.assign(pc1=xy[:, 0], pc2=xy[:, 1], decade=(view["year"] // 10 * 10).astype(str))


def plot_projection(view: pd.DataFrame) -> Figure:
    """The `projection` coloured by author and by decade, side by side."""
    fig, ax = plt.subplots(1, 2, figsize=(13, 5))
    sns.scatterplot(data=view, x="pc1", y="pc2", hue="author", s=8, linewidth=0, ax=ax[0])
    sns.scatterplot(data=view, x="pc1", y="pc2", hue="decade", s=8, linewidth=0, palette="viridis", ax=ax[1])
    ax[0].set_title("Chunks by author")
    ax[1].set_title("Chunks by decade")
    for a in ax:
        a.legend(fontsize=7, markerscale=2)
    fig.tight_layout()
    return fig


def plot_groups(stories: pd.DataFrame, metrics: list[str]) -> Figure:
    """One box plot per metric of the stories by `group`, side by side."""
    fig, ax = plt.subplots(1, len(metrics), figsize=(13, 3.5))
    for a, metric in zip(np.atleast_1d(ax), metrics, strict=True):
        sns.boxplot(data=stories, x="group", y=metric, ax=a)
        a.set_title(metric)
    fig.tight_layout()
    return fig
