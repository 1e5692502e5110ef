"""The embedded reference corpus: a chunk table plus an embedding matrix, computed once and cached.

The cache key hashes the content of every book (SHA-256 of its bytes), the cleaning and chunking
parameters, the version of the cleaning/chunking rules and the embedder's identity, so a change to
any of them makes a new entry while re-runs with the same inputs read the stored files in seconds.

Layout of one entry (`store_root()/<key>/`), the same as the corpus stage's export (`output_files`): the chunk
table (`CORPUS_CHUNKS`, one row per chunk, see `Chunk`), `parts/<k>.npy` (embeddings of shard k, written as they
are computed, so an interrupted run resumes at the first missing shard), then the embedding matrix
(`CORPUS_EMBEDDINGS`, float32, rows aligned with the chunk table) and the metadata (`CORPUS_META`), written last as
the completion marker.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from llmcreativity.corpus.books import Book, read_books
from llmcreativity.corpus.chunking import chunk_book
from llmcreativity.corpus.gutenberg import clean_book
from llmcreativity.llm.backend import TextEmbedder
from llmcreativity.output_files import CORPUS_CHUNKS, CORPUS_EMBEDDINGS, CORPUS_META, CORPUS_STORE_FOLDER
from llmcreativity.paths import results_dir

RULES_VERSION = 1
"""Version of the cleaning and chunking rules; bump it when they change so old cache entries are not reused."""


@dataclass(frozen=True)
class ChunkingParams:
    """Everything that decides the chunk table."""

    chunk_words: int = 250
    """Target chunk length in words; chunks end at sentence boundaries and stay within it."""
    min_words: int | None = None
    """A book's last chunk shorter than this is merged into the one before (None: chunk_words // 5)."""
    prose_words: int = 30
    """Front matter ends at the first paragraph with at least this many words."""


@dataclass(frozen=True)
class CorpusStore:
    """The chunk table and its embedding matrix."""

    chunks: pd.DataFrame
    """One row per chunk: chunk_id, book, author, year, index, start, end, n_words, text."""
    embeddings: np.ndarray
    """float32 matrix (n_chunks x dim), L2-normalized rows aligned with `chunks`."""
    key: str
    """Cache key (hex) of corpus content + chunking parameters + rules version + embedder."""
    embedder: str
    """Identity of the embedder that produced `embeddings`."""
    path: Path
    """Cache folder holding this entry."""


def chunk_table(books: list[Book], params: ChunkingParams = ChunkingParams()) -> pd.DataFrame:
    """Clean and chunk every book; one row per chunk with its provenance."""
    rows: list[dict[str, Any]] = []
    for b in books:
        text = clean_book(b.raw, params.prose_words)
        if not text:
            raise ValueError(f"{b.file}: no prose paragraph was found after cleaning; is it a plain-text book?")
        chunks = chunk_book(
            text, book=b.file, author=b.author, year=b.year, chunk_words=params.chunk_words, min_words=params.min_words
        )
        rows.extend({"chunk_id": f"{Path(b.file).stem}:{c.index}", **asdict(c)} for c in chunks)
    table = pd.DataFrame(rows)
    table["year"] = table["year"].astype("Int64")
    return table


def store_key(books: list[Book], params: ChunkingParams, embedder_identity: str) -> str:
    """SHA-256 (first 16 hex digits) of book contents, chunking parameters, rules version and embedder."""
    payload = {
        "books": sorted((b.file, b.sha256) for b in books),
        "params": asdict(params),
        "rules": RULES_VERSION,
        "embedder": embedder_identity,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _atomic_save(path: Path, array: np.ndarray) -> None:
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, array)
    os.replace(tmp, path)


def embed_resumable(texts: list[str], embedder: TextEmbedder, parts_dir: Path, shard_size: int = 256) -> np.ndarray:
    """Embed `texts` shard by shard into `parts_dir`, skipping shards already there; return the stacked matrix."""
    parts_dir.mkdir(parents=True, exist_ok=True)
    starts = range(0, len(texts), shard_size)
    for k, s in enumerate(tqdm(starts, desc=f"embedding {len(texts)} chunks", unit="shard")):
        part = parts_dir / f"{k:05d}.npy"
        if part.exists():
            continue
        vecs = np.asarray(embedder.encode(texts[s : s + shard_size]), dtype=np.float32)
        if vecs.shape != (len(texts[s : s + shard_size]), embedder.dim):
            raise ValueError(f"embedder {embedder.identity} returned shape {vecs.shape} for shard {k}")
        _atomic_save(part, vecs)
    return np.concatenate([np.load(parts_dir / f"{k:05d}.npy") for k in range(len(starts))])


def store_root() -> Path:
    """Where built stores are kept: `results_dir()/corpus-store`, beside the run that built them (a smoke run's in
    its own folder, a replay's in the replay's).

    Each results folder builds its own store, so every chunk's embedding is asked of the embedder (and answered by
    the call cache where it holds it) in the run that uses it: the run's call log holds them all, its record can
    answer a replay, and a replay builds its store from the record whatever this machine built before (a run
    against a record clears the store first, as it clears the stage's own folder: `Stage.caches`).
    """
    return results_dir() / CORPUS_STORE_FOLDER


def build_store(
    folder: str | Path,
    embedder: TextEmbedder,
    params: ChunkingParams = ChunkingParams(),
    *,
    max_books: int | None = None,
    root: Path | None = None,
    shard_size: int = 256,
) -> CorpusStore:
    """Read, clean, chunk and embed the corpus in `folder`, or load it from the cache when already built.

    `max_books` keeps that many books spread over the years (None: all); `root` defaults to `store_root()`;
    embeddings are saved every `shard_size` chunks (the unit of resumption).
    """
    books = read_books(folder, max_books)
    key = store_key(books, params, embedder.identity)
    path = (root or store_root()) / key
    meta_file = path / CORPUS_META.path
    if meta_file.exists():
        return CorpusStore(pd.read_parquet(path / CORPUS_CHUNKS.path), np.load(path / CORPUS_EMBEDDINGS.path), key,
                           embedder.identity, path)
    path.mkdir(parents=True, exist_ok=True)
    chunks_file = path / CORPUS_CHUNKS.path
    if chunks_file.exists():
        chunks = pd.read_parquet(chunks_file)
    else:
        chunks = chunk_table(books, params)
        chunks.to_parquet(path / "chunks.tmp.parquet", index=False)
        os.replace(path / "chunks.tmp.parquet", chunks_file)
    embeddings = embed_resumable(chunks["text"].tolist(), embedder, path / "parts", shard_size)
    _atomic_save(path / CORPUS_EMBEDDINGS.path, embeddings)
    shutil.rmtree(path / "parts")
    meta = {"key": key, "embedder": embedder.identity, "params": asdict(params), "rules": RULES_VERSION,
            "books": [b.file for b in books], "n_chunks": len(chunks), "dim": int(embeddings.shape[1])}
    meta_file.write_text(json.dumps(meta, indent=1))
    return CorpusStore(chunks, embeddings, key, embedder.identity, path)


def export_store(store: CorpusStore, out_dir: Path) -> dict[str, Path]:
    """Copy the store's chunk table, matrix and metadata into `out_dir` (a stage's results folder)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"chunks": out_dir / CORPUS_CHUNKS.path, "embeddings": out_dir / CORPUS_EMBEDDINGS.path,
             "meta": out_dir / CORPUS_META.path}
    for target in files.values():
        shutil.copyfile(store.path / target.name, target)
    return files


def load_exported(out_dir: Path) -> CorpusStore:
    """Read a store written by `export_store` (what later stages use)."""
    meta_file = out_dir / CORPUS_META.path
    if not meta_file.exists():
        raise FileNotFoundError(f"no corpus store in {out_dir}: run the corpus notebook (stage 'corpus') first")
    meta = json.loads(meta_file.read_text())
    return CorpusStore(pd.read_parquet(out_dir / CORPUS_CHUNKS.path), np.load(out_dir / CORPUS_EMBEDDINGS.path),
                       meta["key"], meta["embedder"], out_dir)
