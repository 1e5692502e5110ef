"""Local sentence embedders through `sentence-transformers`, on the CPU or a CUDA GPU (`device`)."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .device import EMBED_BATCH, device_kind

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class SentenceTransformersEmbedder:
    """A sentence-transformers model, loaded on the first `encode`; `encode` returns L2-normalized float32 rows.

    It runs in float32 on every device (`device`: "cpu" or "cuda:N"), where GPU and CPU rows differ only by the
    rounding of a different summation order, far below any similarity threshold in use; so the identity stays the
    model's name and cached rows serve every device (the provenance names the device). Calls are serialised by a
    lock (threads may share it).
    """

    def __init__(self, name: str, path: Path, device: str = "cpu"):
        self.identity = name
        self.path = path
        self.dim = _embedding_dim(path)
        self.device = device
        self._lock = threading.Lock()

    @property
    def recipe(self) -> dict[str, str | int]:
        """How another process builds this embedder again (`local_models.from_recipe`)."""
        return {"engine": "sentence-transformers", "model": self.identity, "device": self.device}

    @functools.cached_property
    def model(self) -> SentenceTransformer:
        """The loaded SentenceTransformer."""
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(self.path), device=self.device)
        if model.get_embedding_dimension() != self.dim:
            raise ValueError(f"{self.path}: the model gives {model.get_embedding_dimension()}-dim rows, "
                             f"its pooling config says {self.dim}")
        return model

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = False) -> np.ndarray:
        """Embeddings of `texts`, shape (len(texts), dim), unit-norm rows (`batch_size` None: the device's default,
        `device.EMBED_BATCH`)."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs: np.ndarray = self.model.encode(list(texts),
                                                 batch_size=batch_size or EMBED_BATCH[device_kind(self.device)],
                                                 show_progress_bar=show_progress, convert_to_numpy=True,
                                                 normalize_embeddings=True)
        return vecs.astype(np.float32)


def _embedding_dim(path: Path) -> int:
    """Row size of a sentence-transformers folder, from its pooling config (read without loading the model)."""
    config = Path(path) / "1_Pooling" / "config.json"
    if not config.exists():
        raise FileNotFoundError(f"{config} not found: {path} is not a sentence-transformers model folder")
    return int(json.loads(config.read_text())["word_embedding_dimension"])
