"""Items of a stage sent to an endpoint overlap up to max_concurrency; resume files stay correct; traffic is counted.

Every test talks to the fake OpenAI-compatible server on loopback (`fake_endpoint`) that sleeps a little per
request and records how many requests it held at once; its backends are built as a stage builds them, probe first
(`get_role_backend`), and the server forgets the probes before a test counts requests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from entropy_helpers import FirstWordJudge
from fake_endpoint import FakeServer
from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings, run_chains
from llmcreativity.entropy.domains import MACGYVER_PROMPT, Problem
from llmcreativity.entropy.entailment import EmbeddingSimilarityJudge, LLMEntailmentJudge
from llmcreativity.evaluation.rubric_estimators import grade_both
from llmcreativity.jsonl import read_jsonl
from llmcreativity.judges import MACGYVER_VALID, AnswerProbabilityJudge, JudgeItem, run_judge
from llmcreativity.judges.rubric import DIMENSIONS, RubricJudge
from llmcreativity.llm import GenerateConfig, ScriptedBackend, ScriptedEmbedder
from llmcreativity.llm.cached_backend import CachedBackend
from llmcreativity.llm.concurrency import endpoint_concurrency, item_workers
from llmcreativity.llm.request_stats import request_stats
from llmcreativity.llm.roles import get_role_backend
from llmcreativity.pipeline.provenance import collect, to_markdown
from locations import REPO

LIB = REPO / "lib"


@pytest.fixture(autouse=True)
def probe_reports(tmp_path, monkeypatch):
    """A fresh cache folder for the endpoint probes' reports (inherited by a test's subprocess)."""
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def server():
    with FakeServer(delay=0.05) as s:
        yield s


def endpoint(server: FakeServer, max_concurrency: int, role: str = "convergent_judge"):
    """The backend that plays `role` on `server`; the server then forgets the probes it answered."""
    lm = get_role_backend(role, f"{server.url}#fake-model", max_concurrency=max_concurrency, cache=None)
    server.reset()
    return lm


def test_generation_asks_the_server_for_logprobs_only_when_the_config_does(server):
    lm = endpoint(server, 8, "writer")
    chat = [{"role": "user", "content": "Grade it."}]
    (plain,), (weighed,) = (lm.generate([chat], GenerateConfig(max_tokens=4, logprobs=on))[0] for on in (False, True))
    assert "logprobs" not in server.posts()[-2] and server.posts()[-1]["logprobs"] is True
    assert plain.text == weighed.text and (plain.tokens, plain.logprobs) == ([], [])
    assert weighed.tokens == ["Score:", " " + weighed.text.split()[1]] and weighed.logprobs == [-0.1, -0.2]
    assert plain.usage.completion_tokens == weighed.usage.completion_tokens == 2


def items(n: int) -> list[JudgeItem]:
    return [JudgeItem(f"item-{i:02d}", f"Task {i}: open a jar with a towel.", f"Solution {i}: grip it.")
            for i in range(n)]


def judged(path: Path) -> list[tuple[str, bool | None]]:
    """(item id, verdict) of each row of a judgements file, in file order."""
    return [(r["item_id"], r["verdict"]) for r in read_jsonl(path)]


def test_a_stage_runs_items_concurrently_only_on_an_endpoint(server):
    local = CachedBackend(ScriptedBackend(lambda p, i: "x"), cache=None)
    http = endpoint(server, 6)
    assert endpoint_concurrency(local) == 1 and endpoint_concurrency(http) == 6
    assert item_workers(http) == 6 and item_workers(http, local) == 1 and item_workers(http, None) == 6
    assert item_workers() == 1


@pytest.mark.parametrize("limit", [1, 8])
def test_judge_items_overlap_up_to_max_concurrency_and_the_file_keeps_item_order(server, tmp_path, limit):
    lm = endpoint(server, limit)
    judge = AnswerProbabilityJudge(lm=lm, criteria=(MACGYVER_VALID,))
    got = run_judge(judge, items(16), tmp_path / "j.jsonl", progress=False)
    assert [j.item_id for j in got] == [it.item_id for it in items(16)]
    assert [i for i, _ in judged(tmp_path / "j.jsonl")] == [it.item_id for it in items(16)]
    counts = request_stats(lm).counts()
    assert len(server.posts()) == counts.requests == 16
    if limit == 1:
        assert server.max_in_flight == 1 and counts.max_in_flight == 1
    else:
        assert 4 <= server.max_in_flight <= 8 and counts.max_in_flight <= 8
        # requests overlapped (the counter agrees with the server); how much depends on the machine's load
        assert counts.mean_in_flight > 1


def test_concurrent_and_sequential_judging_give_the_same_file(server, tmp_path):
    for limit in (1, 8):
        judge = AnswerProbabilityJudge(lm=endpoint(server, limit), criteria=(MACGYVER_VALID,))
        run_judge(judge, items(12), tmp_path / f"{limit}.jsonl", progress=False)
    assert judged(tmp_path / "1.jsonl") == judged(tmp_path / "8.jsonl")


@pytest.mark.parametrize("limit", [1, 8])
def test_rubric_stories_overlap_on_an_endpoint(server, tmp_path, limit):
    """One dimension, so one request per story and mode: any overlap comes from stories graded together."""
    judge = RubricJudge(endpoint(server, limit), dimensions=DIMENSIONS[:1])
    expected, sampled = grade_both(judge, items(6), tmp_path / "r.jsonl")
    assert [s.story_id for s in expected] == [s.story_id for s in sampled] == [it.item_id for it in items(6)]
    order = [(r["mode"], r["story_id"]) for r in read_jsonl(tmp_path / "r.jsonl")]
    if limit == 1:  # a local-like judge: story by story, both modes (a prefix-reusing model reads a story once)
        assert order == [(m, it.item_id) for it in items(6) for m in ("expected", "sampled")]
        assert server.max_in_flight == 1
    else:  # an endpoint: every story of a mode at once
        assert order == [(m, it.item_id) for m in ("expected", "sampled") for it in items(6)]
        assert server.max_in_flight > 2


@pytest.mark.parametrize("limit", [1, 8])
def test_stepwise_chains_overlap_on_an_endpoint(server, tmp_path, limit):
    lm = endpoint(server, limit)
    problems = [Problem(f"macgyver-{i}", "macgyver", f"Open jar {i}. Tools available: a towel.") for i in range(6)]
    settings = [StepwiseSettings(STEP_SAMPLING.merge(n=3, max_tokens=8), step_cap=2)]
    chains = run_chains(lm, LLMEntailmentJudge(lm), problems, MACGYVER_PROMPT, settings, tmp_path / "c.jsonl",
                        progress=False)
    assert [c.problem_id for c in chains] == [p.id for p in problems]
    assert [r["problem_id"] for r in read_jsonl(tmp_path / "c.jsonl")] == [p.id for p in problems]
    assert (server.max_in_flight == 1) if limit == 1 else (server.max_in_flight > 2)


def test_retries_tokens_and_a_measured_window_are_counted(tmp_path):
    with FakeServer(delay=0.05) as server:
        lm = endpoint(server, 8)
        server.busy = 2
        stats = request_stats(lm)
        lm.answer_probs_batch([f"Is {i} even?" for i in range(8)], ["yes", "no"])
        first = stats.counts()
        assert first.requests == 8 and first.retries == 2 and first.failures == 0
        assert first.completion_tokens == 8 * 2 and first.prompt_tokens > 0 and first.tokens_per_second > 0
        assert first.max_in_flight > 2
        with stats.measure() as window:
            for i in range(3):
                lm.answer_probs(f"Is {i} odd?", ["yes", "no"])
        assert window().requests == 3 and window().max_in_flight == 1  # the block's own peak, not the total's
        assert stats.counts().requests == 11 and stats.counts().max_in_flight == first.max_in_flight
        assert "11 requests, at most" in stats.counts().summary() and "2 retries" in stats.counts().summary()


def test_the_provenance_reports_each_endpoint_s_traffic(server):
    lm = endpoint(server, 4)
    lm.answer_probs_batch(["A?", "B?", "C?", "D?"], ["yes", "no"])
    text = to_markdown(collect("test", {}))
    row = next(line for line in text.splitlines() if f"`{lm.identity}`" in line and line.startswith("|"))
    assert "| endpoint | 4 requests, at most" in row and "tokens/s, 0 retries |" in row


KILLED_RUN = """
import sys
from llmcreativity.judges import MACGYVER_VALID, AnswerProbabilityJudge, JudgeItem, run_judge
from llmcreativity.llm import get_role_backend
lm = get_role_backend("convergent_judge", sys.argv[1] + "#fake-model", max_concurrency=4, cache=None)
items = [JudgeItem(f"item-{i:02d}", f"Task {i}: open a jar with a towel.", f"Solution {i}: grip it.")
         for i in range(int(sys.argv[3]))]
run_judge(AnswerProbabilityJudge(lm=lm, criteria=(MACGYVER_VALID,)), items, sys.argv[2], progress=False)
"""


def test_a_concurrent_run_killed_mid_way_resumes_without_loss_or_duplication(tmp_path):
    path, n = tmp_path / "judged.jsonl", 24
    with FakeServer(delay=0.2) as server:
        env = {**os.environ, "PYTHONPATH": str(LIB)}
        proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, server.url, str(path), str(n)], env=env)
        deadline = time.time() + 120
        while time.time() < deadline and (not path.exists() or path.read_text().count("\n") < 6):
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        written = [i for i, _ in judged(path)]
        assert 6 <= len(written) < n, "kill the run mid-way"
        assert written == [it.item_id for it in items(n)][:len(written)]  # a prefix in item order, no gaps
        server.reset()
        lm = endpoint(server, 4)
        got = run_judge(AnswerProbabilityJudge(lm=lm, criteria=(MACGYVER_VALID,)), items(n), path, progress=False)
        assert len(server.posts()) == n - len(written)  # the written items were not asked again
    assert [i for i, _ in judged(path)] == [it.item_id for it in items(n)]  # each item once, in order
    with FakeServer() as fresh:
        again = run_judge(AnswerProbabilityJudge(lm=endpoint(fresh, 8), criteria=(MACGYVER_VALID,)), items(n),
                          tmp_path / "uninterrupted.jsonl", progress=False)
    assert [(j.item_id, j.verdict, j.criteria[0].confidence) for j in got] == \
        [(j.item_id, j.verdict, j.criteria[0].confidence) for j in again]


@pytest.mark.parametrize("judge_kind", ["embedding", "other"])
def test_chains_overlap_with_the_embedding_judge_but_not_with_a_judge_of_unknown_concurrency(server, tmp_path,
                                                                                           judge_kind):
    """The embedding approximation's encoder serialises itself, so chains may overlap; a judge that is neither an
    LLM judge nor the embedding one (an NLI cross-encoder on this machine, here a first-word double) keeps them
    one after another."""
    judge = EmbeddingSimilarityJudge(ScriptedEmbedder()) if judge_kind == "embedding" else FirstWordJudge()
    problems = [Problem(f"macgyver-{i}", "macgyver", f"Open jar {i}. Tools available: a towel.") for i in range(6)]
    settings = [StepwiseSettings(STEP_SAMPLING.merge(n=3, max_tokens=8), step_cap=1)]
    run_chains(endpoint(server, 8), judge, problems, MACGYVER_PROMPT, settings, tmp_path / "c.jsonl",
               progress=False)
    assert (server.max_in_flight > 2) if judge_kind == "embedding" else (server.max_in_flight == 1)
