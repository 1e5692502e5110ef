"""Read a folder of plain-text books (e.g. the Gutenberg science-fiction set, or SFGram) with their metadata."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

MANIFEST = "manifest.tsv"
"""Optional tab-separated file in the book folder with columns `file`, `author`, `year`."""


@dataclass(frozen=True)
class Book:
    """One raw book file and what the manifest says about it."""

    file: str
    """File name inside the corpus folder (its identity in chunk provenance)."""
    author: str
    """Author from the manifest, "" when the folder has no manifest row for the file."""
    year: int | None
    """Year of first publication from the manifest, None when unknown."""
    raw: str
    """The file's full text, decoded as UTF-8."""
    sha256: str
    """SHA-256 of the file's bytes: part of the cache key of anything derived from the corpus."""


def _manifest(folder: Path) -> dict[str, tuple[str, int | None]]:
    path = folder / MANIFEST
    if not path.exists():
        return {}
    table = pd.read_csv(path, sep="\t", dtype=str).fillna("")
    missing = {"file", "author", "year"} - set(table.columns)
    if missing:
        raise ValueError(f"{path} lacks the columns {sorted(missing)}: it needs file, author and year")
    return {r.file: (r.author, int(r.year) if r.year.strip().isdigit() else None) for r in table.itertuples()}


def list_book_files(folder: str | Path) -> list[Path]:
    """The `.txt` files of `folder`, sorted by name; errors name the folder and the fix."""
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(
            f"corpus folder {root} does not exist: pass the folder of .txt books "
            "(default: llmcreativity.paths.data_dir() / 'corpus/gutenberg-sf')"
        )
    files = sorted(root.glob("*.txt"))
    if not files:
        raise ValueError(f"corpus folder {root} holds no .txt files: put one plain-text book per .txt file there")
    return files


def subset_files(files: list[Path], n: int | None) -> list[Path]:
    """`n` files spread evenly over the name-sorted list (names start with the year, so this spans the decades).

    n = None or n >= len(files) keeps all.
    """
    if n is None or n >= len(files):
        return files
    if n < 1:
        raise ValueError(f"max_books={n!r}: must be >= 1, or None for the whole corpus")
    picks = np.unique(np.linspace(0, len(files) - 1, n).round().astype(int))
    return [files[i] for i in picks]


def read_book(path: Path, meta: dict[str, tuple[str, int | None]]) -> Book:
    """Read one book file; a non-UTF-8 or empty file is an error naming the file and the fix."""
    data = path.read_bytes()
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path} is not valid UTF-8 (byte {exc.start}): convert it, e.g. `iconv -f latin1 -t utf-8`"
        ) from exc
    if not raw.strip():
        raise ValueError(f"{path} is empty: remove it from the corpus folder or replace it with the book's text")
    author, year = meta.get(path.name, ("", None))
    return Book(path.name, author, year, raw, hashlib.sha256(data).hexdigest())


def read_books(folder: str | Path, max_books: int | None = None) -> list[Book]:
    """All books of `folder` (or `max_books` of them spread over the years), with manifest metadata."""
    root = Path(folder)
    files = subset_files(list_book_files(root), max_books)
    meta = _manifest(root)
    return [read_book(f, meta) for f in files]
