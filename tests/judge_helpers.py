"""Test doubles for the judge tests: a bag-of-words embedder and scripted agents."""

from __future__ import annotations

import re
import zlib

import numpy as np

from llmcreativity.llm.cached import CachedBackend
from llmcreativity.llm.scripted import ScriptedBackend, prompt_text


class WordEmbedder:
    """Hashes each lower-cased word into one of `dim` buckets; rows are L2-normalized counts."""

    identity = "test-bag-of-words"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z]+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def scripted(responder, answer_logprobs: dict[str, float] | None = None) -> CachedBackend:
    """A ScriptedBackend behind CachedBackend (no persistent cache), as the notebooks would wrap a real model."""
    return CachedBackend(ScriptedBackend(responder, answer_logprobs=answer_logprobs), cache=None)


def system_of(prompt) -> str:
    return prompt[0]["content"] if isinstance(prompt, list) else ""


def user_of(prompt) -> str:
    return prompt_text(prompt)
