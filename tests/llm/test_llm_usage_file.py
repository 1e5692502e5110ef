"""The usage file: calls, cache hits and tokens counted by the cached wrappers and handed over through a file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from llmcreativity.context import variable
from llmcreativity.llm import CachedBackend, GenerateConfig, ResponseCache, ScriptedBackend, ScriptedEmbedder
from llmcreativity.llm.cached_embedder import CachedEmbedder
from llmcreativity.llm.usage_file import (
    ModelUsage,
    UsageAccount,
    flush_usage,
    read_usage,
)


@pytest.fixture
def usage(tmp_path, monkeypatch):
    """The usage file this test process counts into (as a stage's kernel does)."""
    path = tmp_path / "executed" / "usage" / "stage.jsonl"
    monkeypatch.setenv(variable("usage_file"), str(path))
    return path


def words(p, i):
    return f"reply number {i}"


def counted(path) -> dict[str, ModelUsage]:
    flush_usage()
    return {u.identity: u for u in read_usage(path)}


def test_nothing_is_counted_or_written_without_the_runner_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(variable("usage_file"), raising=False)
    lm = CachedBackend(ScriptedBackend(words), ResponseCache(tmp_path / "c.sqlite"))
    lm.generate(["a b"], GenerateConfig())
    flush_usage()
    assert list(tmp_path.rglob("*.jsonl")) == []


def test_a_cache_hit_is_counted_as_a_hit_and_its_tokens_apart_from_computed_ones(tmp_path, usage):
    lm = CachedBackend(ScriptedBackend(words), ResponseCache(tmp_path / "c.sqlite"))
    lm.generate(["one two", "three four five"], GenerateConfig(n=2))  # 2 + 3 prompt tokens, 2 x 3 completion each
    lm.generate(["one two", "six"], GenerateConfig(n=2))  # "one two" from the cache, "six" computed
    [u] = counted(usage).values()
    assert (u.identity, u.kind, u.calls, u.cache_hits) == ("scripted", "language model", 4, 1)
    assert (u.prompt_tokens, u.completion_tokens) == (2 + 3 + 1, 3 * 6)
    assert (u.cached_prompt_tokens, u.cached_completion_tokens) == (2, 6)


def test_the_account_matches_the_backends_own_usage_records(tmp_path, usage):
    lm = CachedBackend(ScriptedBackend(words), ResponseCache(tmp_path / "c.sqlite"))
    lm.generate(["a b c"], GenerateConfig(n=3))
    lm.answer_probs_batch(["is it x", "is it y"], ["yes", "no"])
    lm.answer_probs_batch(["is it x"], ["yes", "no"])
    lm.score("context here", "a continuation")
    lm.score("context here", "a continuation")
    [u] = counted(usage).values()
    summary = lm.usage_summary()
    assert u.calls == summary.calls.sum() == 6
    assert u.cache_hits == summary.cache_hits.sum() == 2
    assert u.prompt_tokens + u.cached_prompt_tokens == summary.prompt_tokens.sum()
    assert u.completion_tokens + u.cached_completion_tokens == summary.completion_tokens.sum()


def test_each_model_identity_has_its_own_row(tmp_path, usage):
    cache = ResponseCache(tmp_path / "c.sqlite")
    small, large = ScriptedBackend(words), ScriptedBackend(words)
    large.identity = "scripted-large"
    CachedBackend(small, cache).generate(["a"], GenerateConfig())
    CachedBackend(large, cache).generate(["a", "b"], GenerateConfig())
    rows = counted(usage)
    assert {k: v.calls for k, v in rows.items()} == {"scripted": 1, "scripted-large": 2}
    assert rows["scripted-large"].cache_hits == 0  # another identity's answer is not a hit


def test_an_embedder_counts_texts_and_the_texts_the_cache_answered(tmp_path, usage):
    emb = CachedEmbedder(ScriptedEmbedder(identity="unit"), ResponseCache(tmp_path / "c.sqlite"))
    emb.encode(["x", "y"])
    emb.encode(["x", "y", "z"])
    u = counted(usage)["unit"]
    assert (u.kind, u.calls, u.cache_hits, u.prompt_tokens) == ("embedder", 5, 2, 0)


def test_the_file_is_rewritten_at_most_once_per_interval_and_flush_writes_the_rest(tmp_path):
    now = [0.0]
    account = UsageAccount(tmp_path / "u.jsonl", every_s=1.0, clock=lambda: now[0])
    row = ModelUsage("m", "language model", calls=1)
    account.add(row)  # the first call is written at once
    account.add(row)
    assert read_usage(tmp_path / "u.jsonl")[0].calls == 1
    now[0] = 1.5
    account.add(row)
    assert read_usage(tmp_path / "u.jsonl")[0].calls == 3
    account.add(row)
    account.flush()
    assert read_usage(tmp_path / "u.jsonl")[0].calls == 4


def test_adding_another_models_usage_is_refused_naming_both():
    with pytest.raises(ValueError, match="'b' .* 'a'"):
        ModelUsage("a", "language model").plus(ModelUsage("b", "language model"))


KERNEL = textwrap.dedent("""
    import sys
    from llmcreativity.llm import CachedBackend, GenerateConfig, ResponseCache, ScriptedBackend
    from llmcreativity.llm import usage_file
    usage_file.WRITE_EVERY_S = 0.0  # rewrite on every call: the most writes a kill can interrupt
    lm = CachedBackend(ScriptedBackend(lambda p, i: "a reply"), ResponseCache(sys.argv[1]))
    for k in range(int(sys.argv[2])):
        lm.generate([f"prompt {k}"], GenerateConfig())
        if k == 0:
            print("started", flush=True)
""")


def _kernel(cache, calls: int, usage) -> subprocess.Popen:
    env = {**os.environ, variable("usage_file"): str(usage)}
    return subprocess.Popen([sys.executable, "-c", KERNEL, str(cache), str(calls)], env=env,
                            stdout=subprocess.PIPE, text=True)


@pytest.mark.kernel
def test_a_kernel_killed_mid_stage_leaves_a_whole_account_and_the_resumed_stage_counts_hits(tmp_path):
    cache, usage = tmp_path / "c.sqlite", tmp_path / "usage.jsonl"
    killed = _kernel(cache, 100_000, usage)
    assert killed.stdout.readline() == "started\n"
    time.sleep(0.3)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    [before] = read_usage(usage)  # whole JSON: the kill left the old file or the new one, never a torn one
    answered = len(ResponseCache(cache))  # a call is cached before it is counted, so at most one more
    assert 1 <= before.calls <= answered <= before.calls + 1 < 100_000
    usage.unlink()  # what the runner does when the stage starts again
    resumed = _kernel(cache, answered + 5, usage)
    resumed.communicate(timeout=120)
    [after] = read_usage(usage)
    assert (after.calls, after.cache_hits) == (answered + 5, answered)
    assert (after.prompt_tokens, after.completion_tokens) == (2 * 5, 2 * 5)  # "prompt k" -> "a reply"
    assert after.cached_prompt_tokens == 2 * answered
