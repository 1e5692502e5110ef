"""Test doubles for the judge tests: scripted agents."""

from __future__ import annotations

from llmcreativity.llm.cached_backend import CachedBackend
from llmcreativity.llm.scripted import ScriptedBackend, prompt_text


def scripted(responder, answer_logprobs: dict[str, float] | None = None) -> CachedBackend:
    """A ScriptedBackend behind CachedBackend (no persistent cache), as the notebooks would wrap a real model."""
    return CachedBackend(ScriptedBackend(responder, answer_logprobs=answer_logprobs), cache=None)


def system_of(prompt) -> str:
    return prompt[0]["content"] if isinstance(prompt, list) else ""


def user_of(prompt) -> str:
    return prompt_text(prompt)
