"""scripts/check_gpu.py: the CPU-against-CPU path of the GPU check, its refusal without CUDA, and that it catches
a model that disagrees."""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch

from llmcreativity.llm.tiny_models import tiny_model_dir
from llmcreativity.llm.transformers_local import TransformersBackend
from locations import REPO

SCRIPT = REPO / "scripts" / "check_gpu.py"


@pytest.fixture(scope="module")
def check_gpu():
    spec = importlib.util.spec_from_file_location("check_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_gpu"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_cpu_against_itself_passes_every_check_with_zero_score_deviation(check_gpu, capsys):
    assert check_gpu.main(["--device", "cpu", "--arch", "gemma3"]) == 0
    out = capsys.readouterr().out
    assert "device cpu (compared with itself)" in out and "FAIL" not in out
    assert "PASS  gemma3  float32  scoring: token log-probabilities (nats): 0 (allowed 0.002)" in out
    assert "PASS  gemma3  float32  greedy generation: texts unlike the CPU's: 0 (allowed 0)" in out
    assert out.rstrip().endswith("8/8 checks passed")


def test_without_cuda_it_says_so_and_exits_with_status_2(check_gpu, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    assert check_gpu.main([]) == 2
    err = capsys.readouterr().err
    assert "no device to check" in err and "torch sees no CUDA device" in err and "--device cpu" in err


def test_a_model_that_disagrees_with_the_reference_fails_the_comparison(check_gpu, tmp_path):
    """A different set of weights stands in for a GPU that computes wrongly: scoring and answers must fail."""
    def load(seed: int) -> TransformersBackend:
        path = tiny_model_dir(tmp_path / f"s{seed}", seed=seed, arch="qwen2", ascii_only=True)
        return TransformersBackend(path, name="tiny-qwen2", chat=False, dtype="float32", device="cpu")

    checks = {c.what: c for c in check_gpu.compare(load(0), load(1), "qwen2")}
    assert checks["weights on cpu"].passed
    failed = {what for what, c in checks.items() if not c.passed}
    assert {"scoring: token log-probabilities (nats)", "answer probabilities",
            "greedy generation log-probabilities vs CPU teacher forcing (nats)"} <= failed
    assert checks["scoring: token log-probabilities (nats)"].deviation > 0.1


def test_the_bfloat16_tolerance_holds_for_cpu_bfloat16_with_room_to_spare(check_gpu, tmp_path):
    """The bfloat16 bounds are set from CPU bfloat16 against CPU float32; the measured deviation is well inside."""
    path = tiny_model_dir(tmp_path / "llama", seed=0, arch="llama", ascii_only=True)
    reference = TransformersBackend(path, name="t", chat=False, dtype="float32", device="cpu")
    candidate = TransformersBackend(path, name="t", chat=False, dtype="bfloat16", device="cpu")
    checks = check_gpu.compare(reference, candidate, "llama")
    assert all(c.passed for c in checks)
    scoring = next(c for c in checks if c.what.startswith("scoring"))
    assert 0 < scoring.deviation < scoring.tolerance / 3
