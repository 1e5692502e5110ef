import numpy as np
import pytest

from llmcreativity.llm import ScriptedEmbedder
from llmcreativity.llm.cached_embedder import CachedEmbedder
from llmcreativity.llm.response_cache import ResponseCache


def test_only_missing_texts_reach_the_encoder_and_rows_round_trip_exactly(tmp_path):
    inner = ScriptedEmbedder(identity="counting")
    emb = CachedEmbedder(inner, ResponseCache(tmp_path / "c.sqlite"))
    first = emb.encode(["alpha", "beta", "alpha"])
    assert inner.batches == [["alpha", "beta"]]  # a repeated text is encoded once
    again = CachedEmbedder(ScriptedEmbedder(identity="counting"), ResponseCache(tmp_path / "c.sqlite"))  # a new process
    second = again.encode(["beta", "gamma", "alpha"])
    assert again.inner.batches == [["gamma"]] and again.hits == 2
    np.testing.assert_array_equal(second[[0, 2]], first[[1, 0]])  # bit for bit
    np.testing.assert_array_equal(second[1], inner.encode(["gamma"])[0])


def test_without_a_cache_every_call_reaches_the_encoder(tmp_path):
    inner = ScriptedEmbedder(identity="counting")
    emb = CachedEmbedder(inner, None)
    emb.encode(["x"])
    emb.encode(["x"])
    assert inner.batches == [["x"], ["x"]] and emb.identity == "counting" and emb.dim == inner.dim


def test_a_single_string_is_refused():
    with pytest.raises(TypeError, match="list of strings"):
        CachedEmbedder(ScriptedEmbedder(identity="counting"), None).encode("one text")
