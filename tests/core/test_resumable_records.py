"""The one resumable-record loop: skip what the file holds, append what is new, survive a torn last line."""

import threading
import time

import pytest

from llmcreativity.jsonl import append_jsonl, read_jsonl
from llmcreativity.resume import run_resumable, unique_keys


def _run(path, jobs, computed):
    def compute(job):
        computed.append(job)
        return [{"id": job, "part": k} for k in range(2)]

    return run_resumable(path, jobs, key=str, done=lambda rows: {r["id"] for r in rows}, compute=compute,
                         progress=False)


def test_fresh_run_computes_every_job_once_in_order(tmp_path):
    computed = []
    assert _run(tmp_path / "r.jsonl", ["a", "b", "a", "c"], computed) == ["a", "b", "c"]
    assert computed == ["a", "b", "c"]
    assert [(r["id"], r["part"]) for r in read_jsonl(tmp_path / "r.jsonl")] == [
        ("a", 0), ("a", 1), ("b", 0), ("b", 1), ("c", 0), ("c", 1)]


def test_resume_after_a_torn_write_redoes_only_the_torn_job(tmp_path):
    p = tmp_path / "r.jsonl"
    append_jsonl(p, [{"id": "a", "part": 0}, {"id": "a", "part": 1}])
    with p.open("a") as f:
        f.write('{"id": "b", "pa')  # killed while writing job b
    computed = []
    assert _run(p, ["a", "b", "c"], computed) == ["b", "c"]
    rows = read_jsonl(p)
    assert [(r["id"], r["part"]) for r in rows] == [("a", 0), ("a", 1), ("b", 0), ("b", 1), ("c", 0), ("c", 1)]
    assert _run(p, ["a", "b", "c"], computed) == [] and computed == ["b", "c"]


def test_done_may_refuse_rows_of_another_setup(tmp_path):
    p = tmp_path / "r.jsonl"
    append_jsonl(p, [{"id": "a", "model": "other"}])

    def done(rows):
        raise ValueError(f"{p} holds rows of model {rows[0]['model']!r}")

    with pytest.raises(ValueError, match="model 'other'"):
        run_resumable(p, ["a"], key=str, done=done, compute=lambda j: [], progress=False)


def test_unique_keys_names_the_repeated_values():
    unique_keys(["a", "b"], "item_id")
    with pytest.raises(ValueError, match=r"duplicate item_id values \['a'\]"):
        unique_keys(["a", "b", "a"], "item_id")


def test_concurrent_jobs_run_together_but_are_written_in_job_order(tmp_path):
    """Later jobs finish first (they sleep less); the file still lists the jobs in order."""
    lock, running, peak = threading.Lock(), [0], [0]

    def compute(job):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01 * (8 - int(job)))
        with lock:
            running[0] -= 1
        return [{"id": job, "part": k} for k in range(2)]

    jobs = [str(i) for i in range(8)]
    run_resumable(tmp_path / "r.jsonl", jobs, key=str, done=lambda rows: {r["id"] for r in rows}, compute=compute,
                  progress=False, workers=4)
    assert peak[0] == 4
    assert [(r["id"], r["part"]) for r in read_jsonl(tmp_path / "r.jsonl")] == [(j, k) for j in jobs for k in (0, 1)]


def test_a_failing_concurrent_job_leaves_the_jobs_before_it_and_a_rerun_completes_the_rest_in_order(tmp_path):
    p, jobs, fail = tmp_path / "r.jsonl", [str(i) for i in range(10)], {"5"}

    def compute(job):
        if job in fail:
            raise RuntimeError(f"job {job} failed")
        return [{"id": job}]

    def run():
        return run_resumable(p, jobs, key=str, done=lambda rows: {r["id"] for r in rows}, compute=compute,
                             progress=False, workers=3)

    with pytest.raises(RuntimeError, match="job 5 failed"):
        run()
    assert [r["id"] for r in read_jsonl(p)] == jobs[:5]  # nothing after the failed job, nothing twice
    fail.clear()
    assert run() == jobs[5:]
    assert [r["id"] for r in read_jsonl(p)] == jobs


def test_workers_must_be_a_positive_integer(tmp_path):
    with pytest.raises(ValueError, match="workers=0"):
        run_resumable(tmp_path / "r.jsonl", ["a"], key=str, done=lambda rows: set(), compute=lambda j: [],
                      progress=False, workers=0)
