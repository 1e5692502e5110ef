"""The call policy: each model wrapper answers and reports its calls by the policy it was made with, read from the
run's context once, never per call; the policy shows in the wrapper's repr and changes no key or identity."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import llmcreativity
from llmcreativity.context import variable
from llmcreativity.llm import (
    CachedBackend,
    GenerateConfig,
    ResponseCache,
    ScriptedBackend,
    ScriptedEmbedder,
    spot_check,
    usage_file,
)
from llmcreativity.llm.cached_embedder import CachedEmbedder
from llmcreativity.llm.call_log import CacheMiss, flush_call_logs, read_call_log
from llmcreativity.llm.call_policy import CallPolicy
from llmcreativity.llm.response_cache import cache_key
from llmcreativity.llm.spot_check import read_spot_checks
from llmcreativity.llm.usage_file import flush_usage, read_usage

LIB = Path(llmcreativity.__file__).parent
CONFIG = GenerateConfig(n=1, max_tokens=8)
RECORDED, UNRECORDED = "Write about a lighthouse.", "Write about a glacier."


def _move_the_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point every variable of the call policy elsewhere, as if another stage's runner had written them."""
    monkeypatch.setenv(variable("cache_only"), "1")
    monkeypatch.setenv(variable("spot_check"), str(tmp_path / "elsewhere-spot.jsonl"))
    monkeypatch.setenv(variable("call_log"), str(tmp_path / "elsewhere-calls.jsonl"))
    monkeypatch.setenv(variable("usage_file"), str(tmp_path / "elsewhere-usage.jsonl"))
    monkeypatch.setenv(variable("stage"), "elsewhere")


def test_two_wrappers_in_one_process_each_follow_their_own_policy(tmp_path, monkeypatch):
    recorded = ResponseCache(tmp_path / "record.sqlite")
    CachedBackend(ScriptedBackend(lambda p, i: "recorded"), recorded, policy=CallPolicy()).generate([RECORDED], CONFIG)
    replay_inner, live_inner = ScriptedBackend(lambda p, i: "fresh"), ScriptedBackend(lambda p, i: "fresh")
    replay = CachedBackend(replay_inner, recorded, role="writer", policy=CallPolicy(
        "replay-only", spot_check=tmp_path / "spot.jsonl", call_log=tmp_path / "a.jsonl", stage="replayed"))
    live = CachedBackend(live_inner, ResponseCache(tmp_path / "live.sqlite"), role="writer", policy=CallPolicy(
        "cached", call_log=tmp_path / "b.jsonl", stage="live"))
    _move_the_context(tmp_path, monkeypatch)

    assert replay.generate([RECORDED], CONFIG)[0][0].text == "recorded"
    with pytest.raises(CacheMiss, match="'replayed'"):
        replay.generate([UNRECORDED], CONFIG)
    assert live.generate([UNRECORDED], CONFIG)[0][0].text == "fresh"

    assert replay_inner.seen == [] and live_inner.seen == [UNRECORDED]
    [checked] = read_spot_checks(tmp_path / "spot.jsonl")
    assert (checked.stage, checked.role, checked.method) == ("replayed", "writer", "generate")
    flush_call_logs()  # a replay-only wrapper's rows are appended in batches
    assert [(c.inputs["prompt"], c.stage) for c in read_call_log(tmp_path / "a.jsonl")] == [
        (RECORDED, "replayed"), (UNRECORDED, "replayed")]
    assert [(c.inputs["prompt"], c.stage) for c in read_call_log(tmp_path / "b.jsonl")] == [(UNRECORDED, "live")]
    assert not list(tmp_path.glob("elsewhere-*"))


def test_two_embedders_in_one_process_each_follow_their_own_policy(tmp_path, monkeypatch):
    recorded = ResponseCache(tmp_path / "record.sqlite")
    CachedEmbedder(ScriptedEmbedder(), recorded, policy=CallPolicy()).encode(["a moon that hums"])
    replay = CachedEmbedder(ScriptedEmbedder(), recorded, policy=CallPolicy(
        "replay-only", spot_check=tmp_path / "spot.jsonl", call_log=tmp_path / "a.jsonl", stage="replayed"))
    live_inner = ScriptedEmbedder()
    live = CachedEmbedder(live_inner, ResponseCache(tmp_path / "live.sqlite"),
                          policy=CallPolicy(call_log=tmp_path / "b.jsonl", stage="live"))
    _move_the_context(tmp_path, monkeypatch)

    assert np.array_equal(replay.encode(["a moon that hums"]), live.encode(["a moon that hums"]))
    with pytest.raises(CacheMiss, match="'replayed'"):
        replay.encode(["a glacier"])
    [checked] = read_spot_checks(tmp_path / "spot.jsonl")
    assert (checked.stage, checked.method, checked.compared, checked.matched) == ("replayed", "encode", True, True)
    flush_call_logs()  # a replay-only wrapper's rows are appended in batches
    assert [c.inputs["text"] for c in read_call_log(tmp_path / "a.jsonl")] == ["a moon that hums", "a glacier"]
    assert [(c.inputs["text"], c.stage) for c in read_call_log(tmp_path / "b.jsonl")] == [("a moon that hums", "live")]
    assert live_inner.seen == ["a moon that hums"]
    assert not list(tmp_path.glob("elsewhere-*"))


def test_a_wrapper_reads_the_run_context_once_when_it_is_made(tmp_path, monkeypatch):
    monkeypatch.setenv(variable("call_log"), str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv(variable("usage_file"), str(tmp_path / "usage.jsonl"))
    monkeypatch.setenv(variable("stage"), "writing")
    monkeypatch.delenv(variable("cache_only"), raising=False)
    monkeypatch.delenv(variable("spot_check"), raising=False)
    lm = CachedBackend(ScriptedBackend(lambda p, i: "fresh"), ResponseCache(tmp_path / "c.sqlite"), role="writer")
    emb = CachedEmbedder(ScriptedEmbedder(), ResponseCache(tmp_path / "c.sqlite"))
    _move_the_context(tmp_path, monkeypatch)

    assert lm.generate([UNRECORDED], CONFIG)[0][0].text == "fresh"  # still computes: the replay came later
    emb.encode(["a glacier"])
    flush_usage()
    assert [(c.kind, c.stage) for c in read_call_log(tmp_path / "calls.jsonl")] == [("lm", "writing"),
                                                                                   ("embedder", "writing")]
    assert {u.kind: u.calls for u in read_usage(tmp_path / "usage.jsonl")} == {"language model": 1, "embedder": 1}
    assert not list(tmp_path.glob("elsewhere-*"))
    assert lm.policy == CallPolicy("cached", None, tmp_path / "calls.jsonl", tmp_path / "usage.jsonl", "writing")


def test_the_run_policy_is_read_from_the_context(tmp_path, monkeypatch):
    _move_the_context(tmp_path, monkeypatch)
    assert CallPolicy.from_context() == CallPolicy("replay-only", tmp_path / "elsewhere-spot.jsonl",
                                                   tmp_path / "elsewhere-calls.jsonl",
                                                   tmp_path / "elsewhere-usage.jsonl", "elsewhere")
    monkeypatch.setenv(variable("cache_only"), "0")
    assert CallPolicy.from_context().mode == "cached"


def test_the_repr_shows_the_policy(tmp_path):
    policy = CallPolicy("replay-only", spot_check=tmp_path / "spot.jsonl", call_log=tmp_path / "calls.jsonl",
                        stage="baselines")
    lm = CachedBackend(ScriptedBackend(lambda p, i: "x"), ResponseCache(tmp_path / "c.sqlite"), role="writer",
                       policy=policy)
    assert repr(lm) == (f"CachedBackend(identity='scripted', role='writer', policy=CallPolicy(mode='replay-only', "
                        f"stage='baselines', spot_check='{tmp_path / 'spot.jsonl'}', "
                        f"call_log='{tmp_path / 'calls.jsonl'}', usage_file=None))")
    emb = CachedEmbedder(ScriptedEmbedder(), None, policy=CallPolicy())
    assert repr(emb) == ("CachedEmbedder(identity='scripted-embedder', roles=[], policy=CallPolicy(mode='computed', "
                         "stage='', spot_check=None, call_log=None, usage_file=None))")


def test_the_policy_enters_no_key_identity_or_logged_input(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    policies = [CallPolicy(call_log=tmp_path / "a.jsonl", stage="s"),
                CallPolicy("replay-only", spot_check=tmp_path / "spot.jsonl", call_log=tmp_path / "b.jsonl",
                           usage_file=tmp_path / "u.jsonl", stage="s")]
    wrappers = [CachedBackend(ScriptedBackend(lambda p, i: "x"), cache, policy=p) for p in policies]
    for lm in wrappers:
        lm.generate([RECORDED], CONFIG)
    a, b = read_call_log(tmp_path / "a.jsonl"), read_call_log(tmp_path / "b.jsonl")
    assert a == b
    assert a[0].keys == [cache_key("scripted", "generate", RECORDED, CONFIG.to_dict(), 0)]
    assert {lm.identity for lm in wrappers} == {"scripted"}


def test_a_wrapper_resolves_its_policy_by_its_cache(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    replaying = CallPolicy("replay-only", spot_check=tmp_path / "spot.jsonl")
    assert CachedBackend(ScriptedBackend(lambda p, i: "x"), None, policy=CallPolicy()).policy.mode == "computed"
    assert CachedBackend(ScriptedBackend(lambda p, i: "x"), cache, policy=replaying).policy.spot_checked
    relaxed = CachedBackend(ScriptedBackend(lambda p, i: "x"), cache, policy=replaying, cache_only=False).policy
    assert (relaxed.mode, relaxed.spot_check) == ("cached", None)  # a policy that computes checks nothing
    assert CachedBackend(ScriptedBackend(lambda p, i: "x"), cache, policy=CallPolicy(), cache_only=True).cache_only
    with pytest.raises(ValueError, match="needs a cache"):
        CachedEmbedder(ScriptedEmbedder(), None, policy=replaying)
    with pytest.raises(ValueError, match="cache=None"):
        CachedBackend(ScriptedBackend(lambda p, i: "x"), cache, policy=CallPolicy("computed"))
    with pytest.raises(ValueError, match="'live'"):
        CallPolicy("live")  # type: ignore[arg-type]


def test_the_policy_reads_in_words(tmp_path):
    words = CallPolicy("replay-only", spot_check=tmp_path / "spot.jsonl", call_log=tmp_path / "calls.jsonl",
                       stage="baselines").describe(lambda p: p.name)
    assert words == ("replay-only (the record's cache answers every call; a miss stops the stage), spot-checked "
                     "(a few answered calls computed again, filed in `spot.jsonl`), calls logged to `calls.jsonl` "
                     "and not counted")


# -- nothing reads the context on a call -----------------------------------------------------------------------------
CALL_PATHS = ("llm/cached_backend.py", "llm/cached_embedder.py", "llm/call_log.py", "llm/usage_file.py",
              "llm/spot_check.py", "entropy/entailment.py")
"""The modules a wrapper's call runs through (the NLI judge's included)."""
POLICY_FIELDS = {"cache_only", "spot_check", "call_log", "usage_file", "spot_check_later"}
"""The context's fields that make up a call policy."""


def _functions_calling(tree: ast.AST, name: str) -> set[str]:
    """The qualified names of the functions (methods as `Class.method`) in which `name(...)` or `x.name(...)` is
    called; a call outside any function is named `<module>`."""
    found: set[str] = set()

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
            if isinstance(child, ast.Call):
                func = child.func
                if (isinstance(func, ast.Name) and func.id == name) or (
                        isinstance(func, ast.Attribute) and func.attr == name):
                    found.add(scope)
            visit(child, inner)

    visit(tree, "<module>")
    return found


def test_no_wrapper_call_path_reads_the_run_context():
    readers = {f"{path}:{f}" for path in CALL_PATHS
               for f in _functions_calling(ast.parse((LIB / path).read_text()), "kernel_context")}
    assert readers == {"llm/call_log.py:calls_path"}  # the cache file, opened where a wrapper is made
    assert _functions_calling(ast.parse((LIB / "llm/call_policy.py").read_text()), "kernel_context") == {
        "CallPolicy.from_context"}


def test_the_wrappers_read_the_run_policy_only_when_they_are_made():
    callers = {f"{path}:{f}" for path in CALL_PATHS
               for f in _functions_calling(ast.parse((LIB / path).read_text()), "from_context")}
    assert callers == {"llm/cached_backend.py:CachedBackend.__init__", "llm/cached_embedder.py:CachedEmbedder.__init__",
                       "entropy/entailment.py:NLIEntailmentJudge.__init__"}


def _reads_context(node: ast.AST) -> bool:
    """Whether `node` is a call `kernel_context()`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "kernel_context"


def test_no_library_module_reads_a_policy_field_from_the_context_but_the_policy():
    offenders = []
    for path in sorted(LIB.rglob("*.py")):
        if path == LIB / "llm" / "call_policy.py":
            continue
        tree = ast.parse(path.read_text())
        contexts = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _reads_context(node.value)
                    for t in node.targets if isinstance(t, ast.Name)}
        offenders += [f"{path.relative_to(LIB)}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and node.attr in POLICY_FIELDS
                      and (_reads_context(node.value)
                           or (isinstance(node.value, ast.Name) and node.value.id in contexts))]
    assert offenders == []


def test_the_per_call_readers_of_the_context_are_gone():
    assert not hasattr(spot_check, "current_checker") and not hasattr(usage_file, "current_account")
    for path in LIB.rglob("*.py"):
        text = path.read_text()
        for gone in ("current_checker", "current_account", "cache_only_default"):
            assert gone not in text, f"{path.relative_to(LIB)} still names {gone}"
