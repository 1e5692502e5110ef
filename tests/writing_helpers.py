"""Shared test doubles for the writing tests: a scripted model that counts batched calls, a bag-of-words embedder."""

from __future__ import annotations

import itertools
import re

import numpy as np

from llmcreativity.llm.cached import CachedBackend
from llmcreativity.llm.scripted import ScriptedBackend, prompt_text


class CountingBackend(CachedBackend):
    """CachedBackend over a ScriptedBackend that also records the size of every generate batch."""

    def __init__(self, responder):
        super().__init__(ScriptedBackend(responder), cache=None)
        self.batches: list[int] = []

    def generate(self, prompts, config):
        self.batches.append(len(prompts))
        return super().generate(prompts, config)


def unique_story_responder():
    """Replies with a distinct, marker-wrapped text on every call (feedback requests get plain text)."""
    counter = itertools.count()

    def respond(prompt, i):
        n = next(counter)
        text = prompt_text(prompt)
        if "Begin your reply with the line STORY:" in text:
            return f"STORY:\nTale number {n}: a lighthouse keeper on orbit {n} hears the station hum in key {n}."
        return f"Feedback note {n}: the speculative logic of this piece needs work in place {n}."

    return respond


class BagOfWordsEmbedder:
    """Deterministic embedder for tests: L2-normalized counts over a fixed vocabulary built on the fly."""

    identity = "bag-of-words"

    def __init__(self):
        self.vocab: dict[str, int] = {}

    def encode(self, texts):
        rows = []
        for t in texts:
            for w in re.findall(r"[a-z]+", t.lower()):
                self.vocab.setdefault(w, len(self.vocab))
        for t in texts:
            v = np.zeros(max(len(self.vocab), 1), dtype=np.float32)
            for w in re.findall(r"[a-z]+", t.lower()):
                v[self.vocab[w]] += 1
            rows.append(v / (np.linalg.norm(v) or 1.0))
        return np.vstack(rows)
