"""Machine-independent identities: a recorded profile's models get the same identity (so the same cache keys) on
an AVX2 CPU, a CPU with native bfloat16 and a machine with a GPU; a llama.cpp identity names the GGUF's digest and
the llama-cpp-python version.

No model is loaded and no GPU is needed: the CPU flags and torch's CUDA count are replaced per pretend machine, and
the GGUF files of the plan-wide test are small stand-ins (the real GGUF is hashed in the last test).
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llmcreativity import hashing
from llmcreativity.context import kernel_environment
from llmcreativity.llm import device, registry
from llmcreativity.llm.registry import GGUF_DIGEST_CHARS, get_spec, llamacpp_identity
from llmcreativity.llm.roles import get_role_backend, is_endpoint_spec
from llmcreativity.pipeline.execution import PORTABLE_ARITHMETIC_ENV, stage_context
from llmcreativity.pipeline.planning import plan

RECORDED_PROFILES = ("default", "paper", "smoke", "pilot", "published")
"""The profiles whose calls are recorded and replayed on other machines (CI replays a smoke record)."""

MACHINES = {"avx2 cpu": (False, 0), "bf16 cpu": (True, 0), "bf16 cpu with a gpu": (True, 1)}
"""Pretend machine -> (native bfloat16 CPU flags, CUDA devices torch sees)."""


def pretend_machine(monkeypatch, bf16: bool, gpus: int) -> None:
    """Make `resolve_dtype` and `resolve_device` answer as they would on that machine."""
    monkeypatch.setattr(device, "cpu_has_native_bf16", lambda cpuinfo=None: bf16)
    monkeypatch.setattr(device, "_torch_cuda_count", lambda: gpus)
    monkeypatch.setattr(device, "_cuda_bf16", lambda where: True)


@pytest.fixture
def stand_in_ggufs(tmp_path, monkeypatch):
    """`materialize(name)` gives a small stand-in GGUF named as the real one (its digest cache in a fresh folder)."""
    def materialize(name: str) -> Path:
        path = tmp_path / "models" / name / get_spec(name).filename
        if not path.exists():
            path.parent.mkdir(parents=True)
            path.write_bytes(b"GGUF stand-in for " + name.encode())
        return path

    monkeypatch.setattr(registry, "materialize", materialize)
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))


def role_identities(profile: str, overrides: list[tuple[str, str]], tmp_path: Path) -> dict[tuple, str]:
    """(stage, role, spec) -> the identity each local language-model role of the plan gets in its stage kernel's
    environment (the run settings set as the runner sets them); nothing is loaded."""
    found = {}
    for p in plan(profile, overrides):
        with kernel_environment(stage_context(p, "test-run", "", tmp_path / "usage.jsonl", None),
                                PORTABLE_ARITHMETIC_ENV):
            for name, param in p.declared.items():
                value = p.parameters.get(name, param.default)
                for spec in value if isinstance(value, list) else [value]:
                    if param.registry == "model" and spec and not is_endpoint_spec(spec):
                        found[p.stage.name, name, spec] = get_role_backend(name, spec, cache=None).identity
    return found


def identities_per_machine(monkeypatch, profile, overrides, tmp_path) -> dict[str, dict[tuple, str]]:
    per_machine = {}
    for machine, (bf16, gpus) in MACHINES.items():
        with monkeypatch.context() as m:
            pretend_machine(m, bf16, gpus)
            per_machine[machine] = role_identities(profile, overrides, tmp_path)
    return per_machine


@pytest.mark.parametrize("profile", RECORDED_PROFILES)
def test_a_recorded_profile_gives_every_model_role_the_same_identity_on_every_machine(
        profile, monkeypatch, tmp_path, stand_in_ggufs):
    per_machine = identities_per_machine(monkeypatch, profile, [], tmp_path)
    avx2 = per_machine["avx2 cpu"]
    assert len(avx2) >= 5 and {i.split(":")[0] for i in avx2.values()} == {"transformers", "llama.cpp"}
    for machine, identities in per_machine.items():
        assert identities == avx2, f"{profile}: identities on the {machine} differ from the AVX2 CPU's"
    for role, identity in avx2.items():
        assert "bfloat16" not in identity and "cuda" not in identity, (role, identity)


def test_without_pinned_settings_the_identities_depend_on_the_machine(monkeypatch, tmp_path, stand_in_ggufs):
    """The check above can fail: with dtype and device left to "auto" the same plan gives other identities."""
    per_machine = identities_per_machine(monkeypatch, "smoke", [("dtype", "auto"), ("device", "auto")], tmp_path)
    [key] = [k for k in per_machine["avx2 cpu"] if k[:2] == ("backends", "writer")]
    assert [ids[key] for ids in per_machine.values()] == [
        "transformers:smollm2-135m:float32:row-seeded", "transformers:smollm2-135m:bfloat16:row-seeded",
        "transformers:smollm2-135m:bfloat16:row-seeded:cuda"]


def test_a_profile_may_ask_for_the_gpu_explicitly_and_then_its_identities_say_so(monkeypatch, tmp_path,
                                                                                   stand_in_ggufs):
    pretend_machine(monkeypatch, False, 1)
    identities = role_identities("smoke", [("device", "cuda"), ("dtype", "bfloat16")], tmp_path)
    assert identities[next(k for k in identities if k[:2] == ("backends", "writer"))] == \
        "transformers:smollm2-135m:bfloat16:row-seeded:cuda"
    assert all("cuda" not in i for i in identities.values() if i.startswith("llama.cpp:"))  # llama.cpp: CPU only


# -- the llama.cpp identity --------------------------------------------------------------------------------
@pytest.fixture
def gguf(tmp_path, monkeypatch):
    """A stand-in GGUF file, its digest remembered under a fresh cache folder."""
    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 10)
    return path


def test_a_llamacpp_identity_names_the_gguf_digest_and_the_engine_version(gguf):
    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()[:GGUF_DIGEST_CHARS]
    assert llamacpp_identity("smollm2-135m", gguf) == (
        f"llama.cpp:smollm2-135m:model.gguf:sha256-{digest}:llama-cpp-python-{md.version('llama-cpp-python')}"
        ":row-seeded")


def test_the_gguf_is_hashed_once_and_a_changed_file_changes_the_identity(gguf, monkeypatch):
    reads = []
    real = hashing.sha256_file
    monkeypatch.setattr(hashing, "sha256_file", lambda path: reads.append(path) or real(path))
    first = llamacpp_identity("smollm2-135m", gguf)
    assert [llamacpp_identity("smollm2-135m", gguf) for _ in range(3)] == [first] * 3
    assert len(reads) == 1  # later calls read the remembered digest
    gguf.write_bytes(b"GGUF other weights")
    changed = llamacpp_identity("smollm2-135m", gguf)
    assert changed != first and len(reads) == 2
    assert changed.split(":")[3] == f"sha256-{hashlib.sha256(b'GGUF other weights').hexdigest()[:16]}"


def test_a_damaged_digest_record_is_not_trusted(gguf, tmp_path):
    first = llamacpp_identity("smollm2-135m", gguf)
    [record] = (tmp_path / "cache" / "digests").glob("*.json")
    record.write_text(json.dumps({**json.loads(record.read_text()), "size": 1}))  # stale: another file's size
    assert llamacpp_identity("smollm2-135m", gguf) == first
    record.write_text("{half a rec")
    assert llamacpp_identity("smollm2-135m", gguf) == first


def test_without_llama_cpp_python_the_identity_names_the_fix(gguf, monkeypatch):
    def missing(name):
        raise md.PackageNotFoundError(name)

    monkeypatch.setattr(registry.md, "version", missing)
    with pytest.raises(ImportError, match="needs llama-cpp-python.*scripts/setup_env.py"):
        llamacpp_identity("smollm2-135m", gguf)


def test_a_deferred_llamacpp_backend_knows_its_identity_without_importing_llama_cpp(tmp_path):
    """The real packaged GGUF, hashed in a fresh process that never imports llama_cpp (nor loads the weights)."""
    code = ("import sys, json; from llmcreativity.llm import get_backend; "
            "lm = get_backend('smollm2-135m', engine='llama.cpp', cache=None); "
            "print(json.dumps([lm.identity, 'llama_cpp' in sys.modules, 'backend' in vars(lm.inner)]))")
    env = {**os.environ, "LLMCREATIVITY_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    identity, imported, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert (imported, loaded) == (False, False)
    gguf = registry.materialize("smollm2-135m")
    assert identity == llamacpp_identity("smollm2-135m", gguf)
    assert identity.startswith("llama.cpp:smollm2-135m:SmolLM2-135M-Instruct.Q4_1.gguf:sha256-")


def test_stage_kernels_add_with_the_blas_kernels_and_simd_loops_every_cpu_here_has(tmp_path, monkeypatch):
    """A replay's statistics match the record's to the last bit on an AVX2 and an AVX-512 machine alike only if both
    add in one order: a stage's kernel gets OpenBLAS's Haswell kernels and numpy's loops up to AVX2
    (`execution.PORTABLE_ARITHMETIC_ENV`), unless the user set those variables."""
    import json
    import subprocess
    import sys

    probe = ("import json, threadpoolctl; from numpy._core._multiarray_umath import __cpu_features__ as f; "
             "print(json.dumps({'blas': sorted({i.get('architecture') for i in threadpoolctl.threadpool_info() "
             "if i['internal_api'] == 'openblas'}), 'avx512': [k for k in ('X86_V4', 'AVX512_ICL', 'AVX512_SPR') "
             "if f.get(k)]}))")
    [p, *_] = plan("smoke", [])
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    monkeypatch.delenv("NPY_DISABLE_CPU_FEATURES", raising=False)
    with kernel_environment(stage_context(p, "test-run", "", tmp_path / "usage.jsonl", None),
                            PORTABLE_ARITHMETIC_ENV):
        seen = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                         check=True).stdout)
    assert seen == {"blas": ["Haswell"], "avx512": []}
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Zen")
    with kernel_environment(stage_context(p, "test-run", "", tmp_path / "usage.jsonl", None), PORTABLE_ARITHMETIC_ENV):
        assert os.environ["OPENBLAS_CORETYPE"] == "Zen"
