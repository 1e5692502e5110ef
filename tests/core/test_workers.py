"""`make test`'s workers (`tests/workers.py`): a process told one thread ($OMP_NUM_THREADS) starts one compute
thread in every pool a test's model uses, while a stage kernel keeps the two OpenBLAS threads every record was made
with; the slow groups start longest first."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from llmcreativity.pipeline.execution import PORTABLE_ARITHMETIC_ENV
from workers import FIRST, SERVED_RUN, SMOKE_READERS, SMOKE_REPLAY, ModuleGroups, group_of, rank, unlisted_readers

PROBE = """
import json
import threadpoolctl, torch
from llmcreativity.llm.llamacpp_local import compute_threads
print(json.dumps({"torch": torch.get_num_threads(), "llama.cpp": compute_threads(),
                  "openblas": max(p["num_threads"] for p in threadpoolctl.threadpool_info()
                                  if p["internal_api"] == "openblas")}))
"""


def _threads(**env: str) -> dict[str, int]:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if "NUM_THREADS" not in k} | env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_one_variable_gives_a_worker_one_thread_in_every_pool_but_a_stage_kernel_keeps_two_for_openblas():
    assert _threads(OMP_NUM_THREADS="1") == {"torch": 1, "llama.cpp": 1, "openblas": 1}
    kernel = _threads(OMP_NUM_THREADS="1", **PORTABLE_ARITHMETIC_ENV)
    assert kernel == {"torch": 1, "llama.cpp": 1, "openblas": min(2, len(os.sched_getaffinity(0)))}


def test_the_smoke_replays_readers_share_one_group_and_the_longest_groups_start_first():
    reader, other = sorted(SMOKE_READERS)[0], "tests/llm/test_a.py"
    groups = [group_of(m) for m in (other, reader, SERVED_RUN, sorted(SMOKE_READERS)[1], "tests/llm/test_b.py")]
    assert groups.count(SMOKE_REPLAY) == 2 and other in groups
    assert sorted(groups, key=rank)[:2] == [SERVED_RUN, SMOKE_REPLAY] == list(FIRST[:2])
    assert sorted(groups, key=rank)[-2:] == [other, "tests/llm/test_b.py"]  # the rest keep their order
    assert unlisted_readers({reader, other}) == [other]


def test_the_scheduler_gives_each_group_to_one_worker():
    scheduler = object.__new__(ModuleGroups)  # _split_scope reads no state
    ids = [f"{m}::test_{i}" for i, m in enumerate(sorted(SMOKE_READERS))] + [f"{SERVED_RUN}::test_x[a-b]"]
    assert {scheduler._split_scope(i) for i in ids} == {SMOKE_REPLAY, SERVED_RUN}
