"""The tiny randomly initialised causal LM of the tests (`llm.tiny_models`) and a backend over it."""

from __future__ import annotations

from pathlib import Path

from llmcreativity.llm.tiny_models import tiny_model_dir, tiny_tokenizer
from llmcreativity.llm.transformers_local import TransformersBackend

__all__ = ["tiny_backend", "tiny_model_dir", "tiny_tokenizer"]


def tiny_backend(root: Path, **kwargs) -> TransformersBackend:
    """A TransformersBackend over the tiny model saved in `root`."""
    return TransformersBackend(root, name="tiny-llama", **kwargs)
