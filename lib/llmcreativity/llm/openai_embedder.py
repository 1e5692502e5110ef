"""A sentence embedder on an OpenAI-compatible `/embeddings` endpoint (vLLM, llama.cpp, OpenAI).

Rows are L2-normalized here, v / ||v||, so they compare by dot product like the local embedders' rows. Requests
are retried and bounded in flight as the chat backend's are (`http_client.HttpClient`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .http_client import HttpClient, endpoint_identity

BATCH = 64
"""Texts per request."""


class OpenAIEmbedder(HttpClient):
    """`encode(texts)` through `POST {base_url}/embeddings`; `identity` is `openai-embed:URL:MODEL`, followed by
    `@SERVED` when the server names its weights otherwise (`served_model`). `dim`: the row length the probe read."""

    def __init__(self, base_url: str, model: str, *, dim: int, served_model: str = "", api_key: str | None = None,
                 max_concurrency: int = 8, timeout: float = 120.0, max_retries: int = 5):
        if dim < 1:
            raise ValueError(f"dim={dim!r}: the endpoint's embedding length must be >= 1")
        super().__init__(base_url, api_key=api_key, max_concurrency=max_concurrency, timeout=timeout,
                         max_retries=max_retries)
        self.model = model
        self.identity = endpoint_identity("openai-embed", self.base_url, model, served_model)
        self.dim = dim

    def _batch(self, texts: list[str]) -> np.ndarray:
        data = self._post("/embeddings", {"model": self.model, "input": texts})
        rows = sorted(data["data"], key=lambda d: d.get("index", 0))
        vecs = np.asarray([d["embedding"] for d in rows], dtype=np.float32)
        if vecs.shape != (len(texts), self.dim):
            raise RuntimeError(f"{self.base_url}/embeddings returned embeddings of shape {vecs.shape}, expected "
                               f"({len(texts)}, {self.dim})")
        return vecs

    def encode(self, texts: Sequence[str], **_: object) -> np.ndarray:
        """Unit-norm float32 rows, shape (len(texts), dim); batches of `BATCH` texts are sent concurrently."""
        if isinstance(texts, str):
            raise TypeError("texts must be a list of strings, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        chunks = [list(texts[i:i + BATCH]) for i in range(0, len(texts), BATCH)]
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            vecs = np.concatenate(list(pool.map(self._batch, chunks)))
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return (vecs / np.where(norms == 0, 1.0, norms)).astype(np.float32)
