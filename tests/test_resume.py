"""The one resumable-record loop: skip what the file holds, append what is new, survive a torn last line."""

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
