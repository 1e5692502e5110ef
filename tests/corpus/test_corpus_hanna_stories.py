"""The corpus chapter's human-vs-LLM comparison on HANNA stories, its neighbour table and its figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from llmcreativity.corpus import corpus_figures, hanna_stories


@pytest.fixture
def hanna_csv(tmp_path):
    path = tmp_path / "hanna_llm_stories.csv"
    pd.DataFrame({"Model": ["A", "B", "A", "A"], "Prompt": ["p0", "p0", "p1", "p2"],
                  "Human": [" the cat sat ", "x", "a dog ran far", "the sun rose"],
                  "Story": ["the cat sat down", "y", "a dog ran", "moons rose over seas"]}).to_csv(path, index=False)
    return path


def test_hanna_pairs_puts_each_prompts_human_and_llm_story_side_by_side(hanna_csv):
    pairs = hanna_stories.hanna_pairs("A", 2, hanna_csv)
    assert list(pairs["group"]) == ["human", "human", "A", "A"] and list(pairs["prompt_id"]) == [0, 1, 0, 1]
    assert pairs["text"].iloc[0] == "the cat sat"
    with pytest.raises(ValueError, match="llm_system='Z' has no stories"):
        hanna_stories.hanna_pairs("Z", 2, hanna_csv)


def test_story_metrics_and_paired_differences(hanna_csv):
    stories = hanna_stories.hanna_pairs("A", 3, hanna_csv)
    rng = np.random.default_rng(0)
    chunks = rng.normal(size=(20, 4))
    chunks /= np.linalg.norm(chunks, axis=1, keepdims=True)
    S = np.vstack([chunks[:3], -chunks[:3]])  # human stories are corpus chunks, LLM stories their opposites
    unigrams = Counter("the cat sat a dog ran the sun rose".split())
    out = hanna_stories.story_metrics(stories, S, chunks, [f"c{i}" for i in range(20)], unigrams)
    assert out["novelty"].iloc[:3].to_numpy() == pytest.approx(0.0, abs=1e-6)
    assert list(out["nearest_chunk"].iloc[:3]) == ["c0", "c1", "c2"]
    diffs = hanna_stories.paired_differences(out, "A").set_index("metric")
    assert diffs.loc["novelty", "mean (LLM - human)"] > 0 and diffs.loc["novelty", "n pairs"] == 3
    assert out["lexical_kl"].isna().all()  # every story is shorter than one 50-token window
    assert diffs.loc["lexical_kl", "n pairs"] == 0
    whole = hanna_stories.story_metrics(stories, S, chunks, [f"c{i}" for i in range(20)], unigrams, kl_mode="whole")
    assert whole["lexical_kl"].notna().all()
    windowed = hanna_stories.story_metrics(stories, S, chunks, [f"c{i}" for i in range(20)], unigrams, kl_window=2)
    assert windowed["lexical_kl"].notna().all()
    sweep = hanna_stories.smoothing_sweep(whole, unigrams, [1.0, 0.01], kl_mode="whole")
    assert list(sweep.index) == [0.01, 1.0] and set(sweep.columns) == {"A", "human"}


def chunk_table():
    return pd.DataFrame({"chunk_id": ["a0", "a1", "b0"], "book": ["a", "a", "b"], "author": ["x", "x", "y"],
                         "year": [1901, 1901, 1925], "n_words": [10, 12, 9], "text": ["one", "two", "three"]})


def test_nearest_other_book_skips_chunks_of_the_same_book():
    E = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]])
    table = hanna_stories.nearest_other_book(chunk_table(), E, [0])
    assert table["nearest (other book)"].iloc[0] == "b0" and table["cosine"].iloc[0] == pytest.approx(0.6)


def test_corpus_figures():
    chunks = chunk_table()
    assert list(corpus_figures.words_per_book(chunks)["words"]) == [22, 9]
    assert len(corpus_figures.plot_chunks(chunks, 250).axes) == 2
    assert corpus_figures.plot_zipf({"words": Counter("a a b".split())}).axes[0].get_xscale() == "log"
    view = corpus_figures.projection(chunks, np.eye(3), 2, np.random.default_rng(0))
    assert len(view) == 2 and set(view["decade"]) <= {"1900", "1920"}
    assert len(corpus_figures.plot_projection(view).axes) >= 2
    stories = pd.DataFrame({"group": ["h", "l"], "novelty": [0.1, 0.2]})
    assert len(corpus_figures.plot_groups(stories, ["novelty"]).axes) == 1
