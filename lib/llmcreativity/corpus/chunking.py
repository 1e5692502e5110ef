"""Split a cleaned book into chunks of about `chunk_words` words that end at sentence boundaries.

Sentences are found with a rule: a sentence ends at ``.``, ``!``, ``?`` or ``…`` (with any closing
quotes or brackets) followed by white space and a capital letter, digit or opening quote, unless the
word ending there is a common abbreviation (Mr., Dr., St., ...). Paragraph ends also end sentences.

Chunks are packed greedily: sentences are added while the chunk stays within `chunk_words` words; a
single sentence longer than that is cut at word boundaries into pieces of `chunk_words` words; a
book's last chunk shorter than `min_words` is merged into the one before it. Every chunk is an
exact slice of the cleaned book, so ``book[start:end] == text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENT_END = re.compile(r"[.!?\u2026]+[\"'\u2019\u201d)\]]*(?=\s+[\"'\u2018\u201c(\[]?[A-Z0-9])")
_ABBREV = frozenset(
    "mr mrs ms dr st prof capt col gen lt sgt rev hon jr sr vs etc no mt ft sq messrs mme mlle".split()
)
_WORD_SPAN = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    """One passage of a book, with its provenance."""

    book: str
    """File name of the book the passage comes from."""
    author: str
    """Author as given by the corpus manifest ("" when unknown)."""
    year: int | None
    """Year of first publication from the manifest (None when unknown)."""
    index: int
    """Position of the chunk within its book, from 0."""
    start: int
    """Character offset of the chunk in the cleaned book (`clean_book` of the raw file)."""
    end: int
    """Character offset just after the chunk in the cleaned book."""
    n_words: int
    """Number of white-space separated words in the chunk."""
    text: str
    """The passage, an exact slice of the cleaned book."""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`; paragraph breaks ("\\n\\n") end sentences."""
    spans: list[tuple[int, int]] = []
    for para in re.finditer(r"[^\n]+(?:\n(?!\n)[^\n]+)*", text):
        base, p = para.start(), para.group()
        start = 0
        for m in _SENT_END.finditer(p):
            before = p[start : m.start()].rsplit(None, 1)
            last_word = before[-1].lower().rstrip(".") if before else ""
            if last_word in _ABBREV or (len(last_word) == 1 and last_word.isalpha()):
                continue
            spans.append((base + start, base + m.end()))
            start = m.end()
            while start < len(p) and p[start].isspace():
                start += 1
        if start < len(p):
            spans.append((base + start, base + len(p)))
    return spans


def _split_long(text: str, span: tuple[int, int], limit: int) -> list[tuple[int, int, int]]:
    """Cut one over-long sentence into (start, end, words) pieces of at most `limit` words."""
    words = [(m.start(), m.end()) for m in _WORD_SPAN.finditer(text, span[0], span[1])]
    return [
        (words[i][0], words[min(i + limit, len(words)) - 1][1], min(limit, len(words) - i))
        for i in range(0, len(words), limit)
    ]


def chunk_spans(text: str, chunk_words: int = 250, min_words: int | None = None) -> list[tuple[int, int, int]]:
    """(start, end, n_words) of the chunks of `text` (see the module docstring for the packing rule)."""
    if not isinstance(chunk_words, int) or chunk_words < 1:
        raise ValueError(f"chunk_words={chunk_words!r}: must be an integer >= 1")
    min_words = chunk_words // 5 if min_words is None else min_words
    if min_words < 0 or min_words > chunk_words:
        raise ValueError(f"min_words={min_words!r}: must lie in [0, chunk_words={chunk_words}]")
    pieces: list[tuple[int, int, int]] = []
    for s, e in sentence_spans(text):
        n = len(text[s:e].split())
        pieces.extend(_split_long(text, (s, e), chunk_words) if n > chunk_words else [(s, e, n)])
    chunks: list[tuple[int, int, int]] = []
    cur: tuple[int, int, int] | None = None
    for s, e, n in pieces:
        if cur is not None and cur[2] + n > chunk_words:
            chunks.append(cur)
            cur = None
        cur = (s, e, n) if cur is None else (cur[0], e, cur[2] + n)
    if cur is not None:
        if chunks and cur[2] < min_words:
            prev = chunks.pop()
            cur = (prev[0], cur[1], prev[2] + cur[2])
        chunks.append(cur)
    return chunks


def chunk_book(
    text: str,
    *,
    book: str,
    author: str = "",
    year: int | None = None,
    chunk_words: int = 250,
    min_words: int | None = None,
) -> list[Chunk]:
    """Chunks of one cleaned book, each with its provenance."""
    return [
        Chunk(book, author, year, i, s, e, n, text[s:e])
        for i, (s, e, n) in enumerate(chunk_spans(text, chunk_words, min_words))
    ]
