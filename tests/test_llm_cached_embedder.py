import numpy as np
import pytest

from llmcreativity.llm.cache import ResponseCache
from llmcreativity.llm.cached_embedder import CachedEmbedder


class CountingEmbedder:
    """Deterministic unit rows from the text's characters; records every batch it is asked for."""

    identity = "counting"
    dim = 4

    def __init__(self):
        self.batches: list[list[str]] = []

    def encode(self, texts, **kwargs):
        self.batches.append(list(texts))
        v = np.array([[len(t), t.count("a"), t.count("e"), 1.0 / 3] for t in texts], dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_only_missing_texts_reach_the_encoder_and_rows_round_trip_exactly(tmp_path):
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, ResponseCache(tmp_path / "c.sqlite"))
    first = emb.encode(["alpha", "beta", "alpha"])
    assert inner.batches == [["alpha", "beta"]]  # a repeated text is encoded once
    again = CachedEmbedder(CountingEmbedder(), ResponseCache(tmp_path / "c.sqlite"))  # a new process
    second = again.encode(["beta", "gamma", "alpha"])
    assert again.inner.batches == [["gamma"]] and again.hits == 2
    np.testing.assert_array_equal(second[[0, 2]], first[[1, 0]])  # bit for bit
    np.testing.assert_array_equal(second[1], inner.encode(["gamma"])[0])


def test_without_a_cache_every_call_reaches_the_encoder(tmp_path):
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, None)
    emb.encode(["x"])
    emb.encode(["x"])
    assert inner.batches == [["x"], ["x"]] and emb.identity == "counting" and emb.dim == 4


def test_a_single_string_is_refused():
    with pytest.raises(TypeError, match="list of strings"):
        CachedEmbedder(CountingEmbedder(), None).encode("one text")
