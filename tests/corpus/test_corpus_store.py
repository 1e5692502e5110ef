import hashlib
import itertools

import numpy as np
import pandas as pd
import pytest

from llmcreativity.corpus.books import read_books, subset_files
from llmcreativity.corpus.store import ChunkingParams, build_store, export_store, load_exported
from llmcreativity.llm import ScriptedEmbedder

PROSE = " ".join(f"The ship number {i} sailed past the red moon of Mars and nobody saw it." for i in range(40))


def sha_row(text: str) -> np.ndarray:
    """A deterministic row of 8 from the text's SHA-256 (its first 8 bytes, centred)."""
    return np.frombuffer(hashlib.sha256(text.encode()).digest()[:8], dtype=np.uint8) - 127.5


def hash_embedder(identity: str = "hash-8") -> ScriptedEmbedder:
    return ScriptedEmbedder(sha_row, identity=identity)


def interrupted_after(n: int):
    """`sha_row` for the first `n` texts, then an error (a run killed mid-way)."""
    embedded = itertools.count()

    def embed(text: str) -> np.ndarray:
        if next(embedded) >= n:
            raise RuntimeError("interrupted")
        return sha_row(text)

    return embed


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "books"
    folder.mkdir()
    for name in ["1900-a-smith.txt", "1910-b-jones.txt"]:
        (folder / name).write_text(f"*** START OF X ***\n\nTITLE\n\n{PROSE}\n\n*** END OF X ***\n", encoding="utf-8")
    (folder / "manifest.tsv").write_text("file\tyear\tauthor\n1900-a-smith.txt\t1900\tsmith\n", encoding="utf-8")
    return folder


def test_store_holds_chunks_with_provenance_and_aligned_embeddings(corpus, tmp_path):
    store = build_store(corpus, hash_embedder(), ChunkingParams(chunk_words=50), root=tmp_path / "cache")
    assert store.embeddings.shape == (len(store.chunks), 8)
    first = store.chunks.iloc[0]
    assert (first.book, first.author, first.year) == ("1900-a-smith.txt", "smith", 1900)
    unknown = store.chunks[store.chunks.book == "1910-b-jones.txt"].iloc[0]
    assert unknown.author == "" and pd.isna(unknown.year)


def test_second_build_reads_the_cache_without_embedding(corpus, tmp_path):
    build_store(corpus, hash_embedder(), ChunkingParams(chunk_words=50), root=tmp_path / "cache")
    again = hash_embedder()
    build_store(corpus, again, ChunkingParams(chunk_words=50), root=tmp_path / "cache")
    assert again.seen == []


def test_cache_key_changes_with_params_embedder_and_content(corpus, tmp_path):
    root = tmp_path / "cache"
    base = build_store(corpus, hash_embedder(), ChunkingParams(chunk_words=50), root=root).key
    assert build_store(corpus, hash_embedder(), ChunkingParams(chunk_words=60), root=root).key != base
    assert build_store(corpus, hash_embedder("other"), ChunkingParams(chunk_words=50), root=root).key != base
    (corpus / "1910-b-jones.txt").write_text(PROSE + " Changed.", encoding="utf-8")
    assert build_store(corpus, hash_embedder(), ChunkingParams(chunk_words=50), root=root).key != base


def test_interrupted_embedding_resumes_without_redoing_saved_shards(corpus, tmp_path):
    root, params = tmp_path / "cache", ChunkingParams(chunk_words=50)
    interrupted = ScriptedEmbedder(interrupted_after(4), dim=8, identity="hash-8")
    with pytest.raises(RuntimeError, match="interrupted"):
        build_store(corpus, interrupted, params, root=root, shard_size=2)
    resumed = hash_embedder()
    store = build_store(corpus, resumed, params, root=root, shard_size=2)
    assert len(resumed.seen) == len(store.chunks) - 4
    fresh = build_store(corpus, hash_embedder(), params, root=tmp_path / "fresh", shard_size=2)
    np.testing.assert_array_equal(store.embeddings, fresh.embeddings)


def test_exported_store_round_trips(corpus, tmp_path):
    store = build_store(corpus, hash_embedder(), ChunkingParams(chunk_words=50), root=tmp_path / "cache")
    export_store(store, tmp_path / "results")
    loaded = load_exported(tmp_path / "results")
    assert loaded.key == store.key
    np.testing.assert_array_equal(loaded.embeddings, store.embeddings)


def test_missing_export_names_the_stage_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="corpus notebook"):
        load_exported(tmp_path)


def test_missing_folder_non_utf8_and_empty_files_give_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_books(tmp_path / "nope")
    with pytest.raises(ValueError, match="no .txt files"):
        read_books(tmp_path)
    (tmp_path / "bad.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ValueError, match="not valid UTF-8.*iconv"):
        read_books(tmp_path)
    (tmp_path / "bad.txt").unlink()
    (tmp_path / "empty.txt").write_text("  \n")
    with pytest.raises(ValueError, match="empty.txt is empty"):
        read_books(tmp_path)


def test_book_with_no_prose_is_refused(tmp_path):
    (tmp_path / "t.txt").write_text("TITLE\n\nby Someone\n")
    with pytest.raises(ValueError, match="no prose paragraph"):
        build_store(tmp_path, hash_embedder(), root=tmp_path / "cache")


def test_subset_spreads_books_over_the_sorted_list(tmp_path):
    files = [tmp_path / f"{y}.txt" for y in range(1900, 1910)]
    assert [f.name for f in subset_files(files, 3)] == ["1900.txt", "1904.txt", "1909.txt"]
    assert subset_files(files, None) == files


def test_each_results_folder_builds_its_own_store(tmp_path, monkeypatch):
    from llmcreativity.corpus.store import store_root

    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results" / "replay"))
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "default")
    assert store_root() == tmp_path / "results" / "replay" / "corpus-store"
    monkeypatch.setenv("LLMCREATIVITY_PROFILE", "smoke")  # a scratch profile writes nothing outside its folder
    assert store_root() == tmp_path / "results" / "replay" / "smoke" / "corpus-store"
