import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from llmcreativity.llm import CachedBackend, CacheMiss, GenerateConfig, ResponseCache, ScriptedBackend


def scripted() -> ScriptedBackend:
    """Replies "reply i to <prompt>"; `sum(batches)` counts the prompts that reached the model."""
    return ScriptedBackend(lambda p, i: f"reply {i} to {p if isinstance(p, str) else p[-1]['content']}")


def test_identical_call_is_answered_from_the_cache(tmp_path):
    inner = scripted()
    lm = CachedBackend(inner, ResponseCache(tmp_path / "c.sqlite"))
    first = lm.generate(["a", "b"], GenerateConfig(n=3))
    second = lm.generate(["a", "b"], GenerateConfig(n=3))
    assert sum(inner.batches) == 2
    assert [c.text for c in first[1]] == [c.text for c in second[1]]
    assert all(c.usage.cached for c in second[0])


def test_changed_parameter_recomputes_only_what_it_touches(tmp_path):
    inner = scripted()
    lm = CachedBackend(inner, ResponseCache(tmp_path / "c.sqlite"))
    lm.generate(["a", "b"], GenerateConfig(temperature=0.5))
    lm.generate(["a", "b", "c"], GenerateConfig(temperature=0.5))
    assert sum(inner.batches) == 3
    lm.generate(["a"], GenerateConfig(temperature=0.9))
    assert sum(inner.batches) == 4


def test_n_samples_are_distinct_cache_entries(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    lm = CachedBackend(scripted(), cache)
    out = lm.generate(["a"], GenerateConfig(n=4))
    assert len(cache) == 4
    assert len({c.text for c in out[0]}) == 4


def test_corrupted_row_is_detected_and_recomputed(tmp_path):
    path = tmp_path / "c.sqlite"
    inner = scripted()
    lm = CachedBackend(inner, ResponseCache(path))
    lm.generate(["a"], GenerateConfig())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE calls SET payload = replace(payload, 'reply', 'REPLY')")
    lm2 = CachedBackend(inner, ResponseCache(path))
    out = lm2.generate(["a"], GenerateConfig())
    assert out[0][0].text.startswith("reply")
    assert sum(inner.batches) == 2
    assert lm2.cache.corrupt_rows == 1


def test_cache_can_be_switched_off():
    inner = scripted()
    lm = CachedBackend(inner, cache=None)
    lm.generate(["a"], GenerateConfig())
    lm.generate(["a"], GenerateConfig())
    assert sum(inner.batches) == 2


def test_cache_only_mode_raises_on_a_miss(tmp_path):
    lm = CachedBackend(scripted(), ResponseCache(tmp_path / "c.sqlite"), cache_only=True)
    with pytest.raises(CacheMiss):
        lm.generate(["never seen"], GenerateConfig())


def test_usage_is_summarized_per_tag_with_cache_hits(tmp_path):
    lm = CachedBackend(scripted(), ResponseCache(tmp_path / "c.sqlite"))
    with lm.tagged("review"):
        lm.generate(["a b c"], GenerateConfig(n=2))
        lm.generate(["a b c"], GenerateConfig(n=2))
    with lm.tagged("judge"):
        lm.answer_probs("yes or no?", ["yes", "no"])
    summary = lm.usage_summary().set_index(["tag", "method"])
    assert summary.loc[("review", "generate"), "calls"] == 2
    assert summary.loc[("review", "generate"), "cache_hits"] == 1
    assert summary.loc[("review", "generate"), "prompt_tokens"] == 6
    assert summary.loc[("judge", "answer_probs"), "calls"] == 1


KILLABLE = textwrap.dedent("""
    import sys, time
    from llmcreativity.llm import CachedBackend, GenerateConfig, ResponseCache, ScriptedBackend

    class Slow(ScriptedBackend):
        def generate(self, prompts, config):
            with open(sys.argv[2], "a") as log:
                log.write(prompts[0] + "\\n")
            time.sleep(0.3)
            return super().generate(prompts, config)

    lm = CachedBackend(Slow(lambda p, i: "story about " + p), ResponseCache(sys.argv[1]))
    for k in range(12):
        lm.generate([f"prompt {k}"], GenerateConfig(n=2))
""")


def test_run_killed_with_sigkill_resumes_without_loss_or_duplicates(tmp_path):
    script, db, log = tmp_path / "run.py", tmp_path / "c.sqlite", tmp_path / "computed.log"
    script.write_text(KILLABLE)
    proc = subprocess.Popen([sys.executable, str(script), str(db), str(log)])
    deadline = time.time() + 60
    while time.time() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 4):
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    answered = len(ResponseCache(db)) // 2
    assert 2 <= answered < 12
    subprocess.run([sys.executable, str(script), str(db), str(log)], check=True)
    computed = log.read_text().splitlines()
    assert len(ResponseCache(db)) == 24
    # every prompt answered once, except at most the one in flight when the kill came
    assert len(computed) - len(set(computed)) <= 1
    assert set(computed) == {f"prompt {k}" for k in range(12)}
