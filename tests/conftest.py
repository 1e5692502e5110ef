"""Shared fixtures: the real 135M model, a real OpenAI-compatible server on loopback, and the committed smoke record
replayed once."""

from __future__ import annotations

from workers import ModuleGroups, group_of, rank, share_this_worker, unlisted_readers

share_this_worker()  # before anything below starts a thread pool: see `workers`

import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import requests  # noqa: E402

from llmcreativity.llm import get_backend, materialize  # noqa: E402
from llmcreativity.llm.llamacpp_local import compute_threads  # noqa: E402
from locations import TEST_DATA  # noqa: E402

REAL_MODEL = "smollm2-135m"

KERNEL_FIXTURES = frozenset({"book", "recorded_book", "recorded", "counted"})
"""Fixtures that run a stage notebook in a Jupyter kernel or open headless Chromium: every test that uses one is
marked `kernel` (`pytest_collection_modifyitems`), so that `make quick` leaves it out."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `kernel` each test that uses a fixture of `KERNEL_FIXTURES` (or a fixture that depends on one), and start
    the longest groups of `workers` first (`workers.rank`; each module's tests stay together and in order)."""
    for item in items:
        if KERNEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.kernel)
    readers = {item.nodeid.split("::")[0] for item in items if "smoke_replay" in getattr(item, "fixturenames", ())}
    if unlisted_readers(readers):
        raise pytest.UsageError(f"{unlisted_readers(readers)} read the smoke replay: add them to "
                                "tests/workers.py's SMOKE_READERS, so that the replay runs on one worker")
    order = {id(item): (rank(group_of(item.nodeid.split("::")[0])), i) for i, item in enumerate(items)}
    items.sort(key=lambda item: order[id(item)])


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup`: `workers.ModuleGroups` (every module its own group but the smoke replay's readers)."""
    return ModuleGroups(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.fixture(scope="session")
def real_lm():
    """The embedded SmolLM2-135M-Instruct on transformers in float32 (exact), with caching off.

    float32 because tests compare its generation log-probabilities with teacher-forced scores to 2e-3.
    """
    return get_backend(REAL_MODEL, dtype="float32", cache=None)


SERVER_CACHE_BYTES = 256 << 20
"""The server's prompt-cache capacity as llama-cpp-python counts it: the model states only. Each entry also keeps
its prompt's log-probabilities (n_tokens x vocabulary floats, about 8.5x the 135M model's state), which the count
leaves out, so the default 2 GiB grew the server past 20 GB in the served smoke run; with 256 MiB the server's
resident memory peaked at 4.8 GB over the whole run (2026-12-01)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server():
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1 serving the 135M GGUF under the name `REAL_MODEL`
    (what its /v1/models lists); yields its base URL."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(materialize(REAL_MODEL)), "--host", "127.0.0.1",
         "--port", str(port), "--model_alias", REAL_MODEL, "--n_ctx", "2048", "--logits_all", "true",
         "--n_threads", str(compute_threads()), "--cache", "true", "--cache_size", str(SERVER_CACHE_BYTES)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if requests.get(f"{url}/models", timeout=2).status_code == 200:
                break
        except requests.ConnectionError:
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("llama_cpp.server did not start within 120 s")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture
def results(tmp_path, monkeypatch):
    """A fresh results folder (`LLMCREATIVITY_RESULTS`) for one test, with no profile forced; returns it."""
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    monkeypatch.delenv("LLMCREATIVITY_PROFILE", raising=False)
    return tmp_path / "results"


SMOKE_RECORD = TEST_DATA / "records" / "smoke"
"""The committed record of a smoke run (`tests/notebooks/test_smoke_replay_guard.py`)."""


def start_kernel_trace(folder, mp: pytest.MonkeyPatch):
    """Make every stage kernel started under `mp` note which objects of `method_code.CHAPTER_OBJECTS` it calls:
    an IPython startup file (`tests/book/kernel_trace.py`, in a fresh IPYTHONDIR) and the code objects to look for;
    returns the folder where each stage's `<stage>.called` is written."""
    import json
    import shutil

    from llmcreativity_book.method_code import CHAPTER_OBJECTS, code_of

    targets: dict[str, list[int]] = {}
    for names in CHAPTER_OBJECTS.values():
        for name in names:
            code = code_of(name)
            targets.setdefault(code.co_filename, []).append(code.co_firstlineno)
    startup = folder / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    shutil.copyfile(Path(__file__).parent / "book" / "kernel_trace.py", startup / "00-kernel-trace.py")
    (folder / "targets.json").write_text(json.dumps(targets))
    (folder / "called").mkdir()
    mp.setenv("IPYTHONDIR", str(folder / "ipython"))
    mp.setenv("LLMC_TRACE_TARGETS", str(folder / "targets.json"))
    mp.setenv("LLMC_TRACE_OUT", str(folder / "called"))
    return folder / "called"


@pytest.fixture(scope="session")
def smoke_replay(tmp_path_factory):
    """Every stage of the smoke record replayed once into a fresh results folder as `make book` replays, two stages
    at a time and their spot checks left to the worker (`run_side_by_side`), shared by the replay guard, the
    exercises and the trace of the chapters' code (`tests/book/test_method_code.py`): (record, the replay's manifest
    entries, its `results_dir("smoke")`, the folder the replay wrote, the folder of each stage kernel's traced calls
    (`start_kernel_trace`))."""
    from llmcreativity.paths import results_dir, results_root
    from llmcreativity.pipeline.execution import new_run_id, prepare_replay, run_side_by_side
    from llmcreativity.pipeline.manifest import read_manifest

    mp = pytest.MonkeyPatch()
    mp.setenv("LLMCREATIVITY_RESULTS", str(tmp_path_factory.mktemp("guard") / "results"))
    trace = start_kernel_trace(tmp_path_factory.mktemp("trace"), mp)
    try:
        plans, replay = prepare_replay(SMOKE_RECORD)
        run_side_by_side(plans, new_run_id(), replay, log=lambda *_: None)
        replayed = replay.record, read_manifest("smoke").stages, results_dir("smoke"), results_root(), trace
    finally:
        mp.undo()  # the replay set the results folder in this process's environment: no later test sees it
    return replayed
