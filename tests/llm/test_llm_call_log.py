"""The call log, cache-only replay misses, and the wrappers' handling of stored answers."""

import numpy as np
import pytest

from llmcreativity.context import variable
from llmcreativity.llm import CachedBackend, GenerateConfig, ScriptedBackend, ScriptedEmbedder, cache_key, call_log
from llmcreativity.llm.cached_embedder import CachedEmbedder
from llmcreativity.llm.call_log import CacheMiss, CallLog, LoggedCall, flush_call_logs, log_call, read_call_log
from llmcreativity.llm.call_policy import CallPolicy
from llmcreativity.llm.response_cache import ResponseCache

CHAT = [{"role": "system", "content": "You are a writer."}, {"role": "user", "content": "Write about a lighthouse."}]


def counting_backend():
    calls = []

    def respond(prompt, i):
        calls.append(i)
        return f"sample {i} of {len(calls)}"

    return ScriptedBackend(respond), calls


def test_every_call_is_logged_once_with_its_inputs_role_and_stage(tmp_path, monkeypatch):
    monkeypatch.setenv(variable("call_log"), str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv(variable("stage"), "review")
    backend = CachedBackend(ScriptedBackend(lambda p, i: "story"), ResponseCache(tmp_path / "c.sqlite"),
                            role="writer")
    config = GenerateConfig(n=2, max_tokens=8, logprobs=False)
    backend.generate([CHAT], config)
    backend.generate([CHAT], config)  # a cache hit asks for the same keys: not logged again
    backend.answer_probs("Is it good?", ["yes", "no"])
    calls = read_call_log(tmp_path / "calls.jsonl")
    assert [(c.method, c.role, c.stage, len(c.keys)) for c in calls] == [("generate", "writer", "review", 2),
                                                                        ("answer_probs", "writer", "review", 1)]
    assert calls[0].inputs == {"prompt": CHAT, "config": config.to_dict()}
    assert calls[1].inputs == {"prompt": "Is it good?", "answers": ["yes", "no"]}


def test_a_replay_miss_names_stage_role_method_and_prompt(tmp_path, monkeypatch):
    monkeypatch.setenv(variable("stage"), "baselines")
    monkeypatch.setenv(variable("cache_only"), "1")
    backend = CachedBackend(ScriptedBackend(lambda p, i: "x"), ResponseCache(tmp_path / "c.sqlite"),
                            role="large_writer")
    with pytest.raises(CacheMiss) as e:
        backend.generate([CHAT], GenerateConfig(max_tokens=8))
    text = str(e.value)
    for part in ("'baselines'", "'large_writer'", "generate of scripted", "Write about a lighthouse.",
                 "re-record stage 'baselines'"):
        assert part in text


def test_cache_only_without_a_cache_is_refused(monkeypatch):
    with pytest.raises(ValueError, match="needs a cache"):
        CachedBackend(ScriptedBackend(lambda p, i: "x"), None, cache_only=True)


def test_a_partial_hit_recomputes_the_prompt_but_never_rewrites_a_stored_sample(tmp_path):
    inner, _ = counting_backend()
    cache = ResponseCache(tmp_path / "c.sqlite")
    backend = CachedBackend(inner, cache)
    config = GenerateConfig(n=2, max_tokens=8)
    first = backend.generate([CHAT], config)[0]
    assert [c.text for c in first] == ["sample 0 of 1", "sample 1 of 2"]
    key_1 = cache_key(backend.identity, "generate", CHAT, config.to_dict(), 1)
    cache._conn().execute("DELETE FROM calls WHERE key = ?", (key_1,))  # as if killed between the two stores
    again = backend.generate([CHAT], config)[0]
    assert [c.text for c in again] == ["sample 0 of 1", "sample 1 of 4"]  # sample 0 as stored, sample 1 fresh
    assert [c.text for c in CachedBackend(inner, cache).generate([CHAT], config)[0]] == ["sample 0 of 1",
                                                                                         "sample 1 of 4"]


def test_the_embedder_logs_texts_and_misses_in_cache_only_mode(tmp_path, monkeypatch):
    monkeypatch.setenv(variable("call_log"), str(tmp_path / "calls.jsonl"))
    cache = ResponseCache(tmp_path / "c.sqlite")
    inner = ScriptedEmbedder(identity="toy-embedder")
    live = CachedEmbedder(inner, cache)
    live.roles.add("embedder")
    first = live.encode(["a", "bb"])
    replay = CachedEmbedder(inner, cache, cache_only=True)
    assert np.array_equal(replay.encode(["bb", "a"]), first[::-1])
    assert inner.seen == ["a", "bb"]
    with pytest.raises(CacheMiss, match="encode of toy-embedder on 'ccc'"):
        replay.encode(["ccc"])
    flush_call_logs()  # a replay-only wrapper's rows are appended in batches
    logged = read_call_log(tmp_path / "calls.jsonl")
    assert [(c.kind, c.inputs["text"], c.role) for c in logged] == [("embedder", "a", "embedder"),
                                                                     ("embedder", "bb", "embedder"),
                                                                     ("embedder", "ccc", "")]


def _call(text):
    return LoggedCall("embedder", "toy", "encode", [cache_key("toy", "encode", text)], {"text": text})


def test_a_batched_log_appends_at_most_once_per_interval_in_order_and_on_flush(tmp_path):
    now = [0.0]
    log = CallLog(tmp_path / "calls.jsonl", every_s=10.0, clock=lambda: now[0])
    texts = lambda: [c.inputs["text"] for c in read_call_log(tmp_path / "calls.jsonl")]  # noqa: E731
    log.add(_call("a"), batched=True)  # the first row is written at once
    log.add(_call("b"), batched=True)
    log.add(_call("a"), batched=True)  # logged already: never again
    assert texts() == ["a"]
    now[0] = 10.0
    log.add(_call("c"), batched=True)
    assert texts() == ["a", "b", "c"]
    log.add(_call("d"), batched=True)
    log.flush()
    log.flush()  # nothing left: nothing written twice
    assert texts() == ["a", "b", "c", "d"]


def test_only_a_replay_only_wrapper_s_rows_wait_and_the_exit_flush_writes_them(tmp_path, monkeypatch):
    monkeypatch.setattr(call_log, "WRITE_EVERY_S", 3600.0)  # no second append by the clock during the test
    cache = ResponseCache(tmp_path / "c.sqlite")
    live = CachedEmbedder(ScriptedEmbedder(identity="toy"), cache, policy=CallPolicy(call_log=tmp_path / "live.jsonl"))
    live.encode(["a", "b"])
    assert len(read_call_log(tmp_path / "live.jsonl")) == 2  # a live wrapper's log holds every row at once
    replay = CachedEmbedder(ScriptedEmbedder(identity="toy"), cache, policy=CallPolicy(
        "replay-only", call_log=tmp_path / "replay.jsonl"))
    replay.encode(["a"])
    replay.encode(["b"])
    assert len(read_call_log(tmp_path / "replay.jsonl")) == 1  # the first row at once, the next one waits
    log_call(tmp_path / "replay.jsonl", _call("c"))  # a row that is not batched takes the waiting one with it
    assert [c.inputs["text"] for c in read_call_log(tmp_path / "replay.jsonl")] == ["a", "b", "c"]
    log_call(tmp_path / "replay.jsonl", _call("d"), batched=True)
    flush_call_logs()
    assert [c.inputs["text"] for c in read_call_log(tmp_path / "replay.jsonl")] == ["a", "b", "c", "d"]
