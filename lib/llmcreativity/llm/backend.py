"""The two model interfaces: `Backend` (a language model) and `TextEmbedder` (a sentence embedder)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from .generate_config import GenerateConfig
from .types import AnswerDistribution, Completion, Prompt, TokenScores


@runtime_checkable
class Backend(Protocol):
    """A language model that samples, scores and reads answer probabilities.

    `identity` names the model and every setting that changes its outputs; the cache hashes it.
    """

    identity: str

    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """Sample `config.n` completions for each prompt; result[i] belongs to prompts[i]."""
        ...

    def score(self, context: Prompt, continuation: str) -> TokenScores:
        """Teacher-forced log p(continuation tokens | context), one value per token."""
        ...

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        """Probability that the model's reply to `prompt` is each of `answers` (e.g. ["yes", "no"])."""
        ...

    def count_tokens(self, text: str) -> int:
        """Number of tokens of `text` under this model's tokenizer (an estimate where none is known)."""
        ...


@runtime_checkable
class TextEmbedder(Protocol):
    """A sentence embedder (`llmcreativity.llm.get_embedder` returns one).

    `identity` names the model (the caches hash it); `encode` returns one unit-norm float32 row of
    length `dim` per text.
    """

    identity: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dim), rows of unit norm."""
        ...


def check_prompt(prompt: Prompt) -> None:
    """Raise a ValueError that names the problem when `prompt` is empty or malformed."""
    if isinstance(prompt, str):
        if not prompt.strip():
            raise ValueError("prompt is empty: pass a non-empty string or a list of chat messages")
        return
    if not isinstance(prompt, list) or not prompt:
        raise ValueError(f"prompt={prompt!r}: expected a non-empty string or a non-empty list of messages")
    for m in prompt:
        if not isinstance(m, dict) or m.get("role") not in {"system", "user", "assistant"} or "content" not in m:
            raise ValueError(f"message {m!r}: each message needs role in system/user/assistant and a content")
    if not any(str(m["content"]).strip() for m in prompt):
        raise ValueError("prompt messages are all empty: give at least one message some content")


def answer_probs_batch(lm: Backend, prompts: list[Prompt], answers: list[str]) -> list[AnswerDistribution]:
    """`lm.answer_probs(p, answers)` for every prompt p; one batched call where the backend has `answer_probs_batch`.

    A local model then reads the prompts' shared prefix once and their suffixes in one forward pass.
    """
    batched = getattr(lm, "answer_probs_batch", None)
    return batched(list(prompts), answers) if batched is not None else [lm.answer_probs(p, answers) for p in prompts]
