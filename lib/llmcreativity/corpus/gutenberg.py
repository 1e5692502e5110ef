"""Turn a raw Project Gutenberg plain-text book into clean prose paragraphs.

Steps, in order:

1. Keep only the text between the ``*** START OF ...`` and ``*** END OF ...`` marker lines
   (files without markers are kept whole); drop a leading YAML block (``---`` ... ``---``/``...``).
2. Drop blocks that are not wrapped prose (boxes drawn with ``|`` and ``+--``; three or more lines
   all under 50 characters: contents and title pages, verse, errata tables), then remove editorial
   inserts: ``[Illustration: ...]``, ``[Footnote ...]``, ``[Transcriber's note ...]``, ``[Sidenote ...]``
   and footnote marks such as ``[12]``.
3. Unwrap markup: ``_italics_`` and ``*emphasis*`` keep their words; markdown ``#`` headings and
   ``>`` quote marks are dropped.
4. Split into paragraphs at blank lines and collapse all whitespace inside a paragraph to one space.
5. Drop headings (chapter titles, contents entries, title-page lines) and production credits, and
   drop the front matter: everything before the first paragraph of at least `prose_words` words.

The cleaned book is the kept paragraphs joined by a blank line (``"\\n\\n"``).
"""

from __future__ import annotations

import re

_START = re.compile(r"^\*\*\*\s*START OF.*$", re.IGNORECASE | re.MULTILINE)
_END = re.compile(r"^\*\*\*\s*END OF.*$", re.IGNORECASE | re.MULTILINE)
_YAML = re.compile(r"\A\s*---\n.*?\n(?:---|\.\.\.)\s*\n", re.DOTALL)
_INSERT = re.compile(
    r"\[(?:Illustration|Footnote|Sidenote|Note|[A-Z][a-z]+(?:'s|s')? [Nn]ote)[^\[\]]*\]", re.DOTALL
)
_FOOTMARK = re.compile(r"\[(?:\d+|[*\u2020])\]")
_ITALIC = re.compile(r"_([^_\n](?:[^_]*?[^_\s])?)_")
_EMPH = re.compile(r"\*{1,2}([^*\s](?:[^*]*?[^*\s])?)\*{1,2}")
_MD_HEADING = re.compile(r"^#{1,6}\s.*$", re.MULTILINE)
_QUOTE_MARK = re.compile(r"^>\s?", re.MULTILINE)
_BLANK = re.compile(r"\n[ \t]*\n")
_SPACE = re.compile(r"\s+")
_HEADING_WORD = re.compile(r"^(chapter|book|part|volume|contents|the end|finis)\b", re.IGNORECASE)
_CREDIT = re.compile(
    r"^(produced by|e-?text prepared by|transcribed by|note: project gutenberg|this e-?text|"
    r"\[?transcriber'?s? note|end of (the )?project gutenberg)",
    re.IGNORECASE,
)
_SENTENCE_END = tuple('.!?"\'\u2019\u201d)]\u2014:;,\u2026-')


def strip_gutenberg_boilerplate(raw: str) -> str:
    """The text between the START and END marker lines (the whole text when a marker is missing)."""
    start = _START.search(raw)
    body = raw[start.end() :] if start else raw
    end = _END.search(body)
    body = body[: end.start()] if end else body
    return _YAML.sub("", body, count=1)


def is_heading(paragraph: str) -> bool:
    """True for a title-like paragraph: at most 12 words and either a chapter/contents word at the start,
    no lower-case letter at all, or no closing punctuation."""
    words = paragraph.split()
    if len(words) > 12:
        return False
    if _HEADING_WORD.match(paragraph):
        return True
    if not any(c.islower() for c in paragraph):
        return True
    return not paragraph.endswith(_SENTENCE_END)


def is_list_block(block: str, max_line_chars: int = 50) -> bool:
    """True for a block that is not wrapped prose: a box drawn with `|`/`+`, or three or more lines
    that are all short (contents pages, title pages, verse, errata tables)."""
    lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
    if not lines:
        return False
    if sum(ln[0] in "|+" for ln in lines) >= max(1, len(lines) // 2):
        return True
    return len(lines) >= 3 and max(len(ln) for ln in lines) <= max_line_chars


def clean_paragraphs(raw: str, prose_words: int = 30) -> list[str]:
    """Clean prose paragraphs of a raw Gutenberg book (see the module docstring for the steps)."""
    body = strip_gutenberg_boilerplate(raw).replace("\r\n", "\n").replace("\r", "\n")
    body = _MD_HEADING.sub("", body)
    body = _QUOTE_MARK.sub("", body)
    blocks = [b for b in _BLANK.split(body) if not is_list_block(b)]
    body = "\n\n".join(blocks)
    body = _INSERT.sub(" ", body)
    body = _FOOTMARK.sub("", body)
    body = _ITALIC.sub(r"\1", body)
    body = _EMPH.sub(r"\1", body)
    paragraphs = []
    for block in _BLANK.split(body):
        p = _SPACE.sub(" ", block).strip()
        if p and not is_heading(p) and not _CREDIT.match(p):
            paragraphs.append(p)
    first_prose = next((i for i, p in enumerate(paragraphs) if len(p.split()) >= prose_words), len(paragraphs))
    return paragraphs[first_prose:]


def clean_book(raw: str, prose_words: int = 30) -> str:
    """The cleaned book: `clean_paragraphs(raw)` joined by blank lines."""
    return "\n\n".join(clean_paragraphs(raw, prose_words))
