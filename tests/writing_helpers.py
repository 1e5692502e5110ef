"""Shared test doubles for the writing tests: a scripted model that counts batched calls."""

from __future__ import annotations

import itertools

from llmcreativity.llm.cached_backend import CachedBackend
from llmcreativity.llm.scripted import ScriptedBackend, prompt_text


class CountingBackend(CachedBackend):
    """A ScriptedBackend behind CachedBackend without a cache (what a stage hands the frameworks), with the size of
    every generate batch the model got in `batches`."""

    def __init__(self, responder):
        super().__init__(ScriptedBackend(responder), cache=None)

    @property
    def batches(self) -> list[int]:
        return self.inner.batches


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
