"""Word tokenization for unigram distributions and n-gram diversity.

Two schemes, chosen by name:

- ``"whitespace"``: ``text.split()``, case-sensitive, punctuation kept attached to words. This is
  what the LLM Review reference code did, so "Mars," and "mars" are different tokens.
- ``"words"``: lower-cased word tokens; a token is a run of letters or digits, optionally joined by
  inner apostrophes or hyphens ("don't", "air-lock"); punctuation is dropped.
"""

from __future__ import annotations

import re
from typing import Literal

Tokenizer = Literal["whitespace", "words"]
"""Name of a tokenization scheme (see the module docstring)."""

TOKENIZERS: tuple[str, ...] = ("whitespace", "words")
"""All accepted scheme names."""

_WORD = re.compile(r"[^\W_]+(?:['\u2019\-][^\W_]+)*")


def tokenize(text: str, tokenizer: Tokenizer = "words") -> list[str]:
    """Split `text` into tokens under the named scheme."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if tokenizer == "whitespace":
        return text.split()
    if tokenizer == "words":
        return _WORD.findall(text.lower())
    raise ValueError(f"tokenizer={tokenizer!r}: choose one of {TOKENIZERS}")
