"""Where a local model runs: device selection, the dtype and batch sizes that follow it, identity and provenance.

No GPU is needed: torch's CUDA queries are replaced where a test pretends one is visible.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

from llm_tiny import tiny_model_dir
from llmcreativity.context import variable
from llmcreativity.llm import GenerateConfig, get_backend, get_embedder
from llmcreativity.llm.cache_wrapping import loaded_models
from llmcreativity.llm.device import (
    EMBED_BATCH,
    LOCAL_BATCH,
    check_device,
    check_dtype,
    local_batch_size,
    resolve_device,
    resolve_device_dtype,
    resolve_dtype,
    run_device,
    run_dtype,
)
from llmcreativity.llm.local_models import DeferredLocalBackend
from llmcreativity.llm.row_sampling import next_tokens, row_generators, sampling_probs
from llmcreativity.llm.transformers_local import TransformersBackend
from llmcreativity.pipeline.provenance import collect, to_markdown

AMX = "flags\t\t: fpu sse avx2 amx_bf16 avx512_bf16\n"
AVX2 = "flags\t\t: fpu sse avx2\n"

DTYPE_ENV, DEVICE_ENV = variable("dtype"), variable("device")


@pytest.fixture
def gpus(monkeypatch):
    """Pretend torch sees `count` CUDA devices (bf16 support as given); returns the setter."""
    def pretend(count: int, bf16: bool = True) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)
        monkeypatch.setattr(torch.cuda, "device", lambda d: contextlib.nullcontext())
    return pretend


def test_auto_picks_the_first_cuda_device_when_torch_sees_one_and_the_cpu_otherwise(gpus):
    gpus(0)
    assert resolve_device("auto") == "cpu"
    gpus(2)
    assert resolve_device("auto") == "cuda:0"
    assert resolve_device("cpu") == "cpu"  # an explicit CPU stays on the CPU next to a GPU


def test_cuda_names_are_checked_against_the_devices_torch_sees(gpus):
    gpus(2)
    assert resolve_device("cuda") == "cuda:0" and resolve_device("cuda:1") == "cuda:1"
    with pytest.raises(ValueError, match=r"sees 2 CUDA device\(s\) \(cuda:0..cuda:1\)"):
        resolve_device("cuda:2")
    gpus(0)
    with pytest.raises(ValueError, match="no CUDA device here: use device='cpu'"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match=r"device='gpu': choose one of \['auto', 'cpu', 'cuda', 'cuda:N'\]"):
        resolve_device("gpu")


def test_auto_on_a_machine_without_a_gpu_driver_does_not_import_torch():
    """A run that the cache answers completely still never loads torch (no driver files on this machine)."""
    code = ("import sys; from llmcreativity.llm.device import gpu_driver_present, resolve_device; "
            "print(gpu_driver_present(), resolve_device('auto'), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    if out[0] == "True":  # a machine with a GPU driver asks torch, which is right there
        assert out[2] == "True"
    else:
        assert out[1:] == ["cpu", "False"]


def test_dtype_follows_the_device(gpus):
    gpus(1, bf16=True)
    assert resolve_device_dtype("auto", "cuda:0") == "bfloat16"
    assert resolve_device_dtype("float32", "cuda:0") == "float32"  # an explicit dtype is kept on a GPU
    gpus(1, bf16=False)
    assert resolve_device_dtype("auto", "cuda:0") == "float32"  # a GPU without bf16 (before Ampere)
    assert resolve_device_dtype("auto", "cpu", AVX2) == "float32" == resolve_dtype("auto", AVX2)
    assert resolve_device_dtype("auto", "cpu", AMX) == "bfloat16"
    with pytest.raises(ValueError, match="dtype='float16'"):
        resolve_device_dtype("float16", "cuda:0")


def test_batch_sizes_follow_the_device_unless_given():
    assert local_batch_size("cpu") == LOCAL_BATCH["cpu"] == 4
    assert local_batch_size("cuda:1") == LOCAL_BATCH["cuda"] == 32
    assert local_batch_size("cuda:0", 6) == 6
    with pytest.raises(ValueError, match="batch_size=0"):
        local_batch_size("cpu", 0)


def test_identity_is_unchanged_on_the_cpu_and_names_cuda_on_a_gpu(gpus):
    """The call cache hashes the identity: CPU identities must stay byte-identical to those before devices."""
    gpus(0)
    cpu = DeferredLocalBackend("smollm2-135m", "float32", None)
    assert cpu.identity == "transformers:smollm2-135m:float32:row-seeded"
    assert cpu.device == "cpu" and cpu._args == ("smollm2-135m", "float32", 4, "cpu")
    assert get_backend("smollm2-135m", cache=None).identity == \
        f"transformers:smollm2-135m:{resolve_dtype('auto')}:row-seeded"
    gpus(1)
    gpu = DeferredLocalBackend("smollm2-135m", "auto", None)
    assert gpu.identity == "transformers:smollm2-135m:bfloat16:row-seeded:cuda"
    assert gpu._args == ("smollm2-135m", "bfloat16", 32, "cuda:0")
    assert DeferredLocalBackend("smollm2-135m", "float32", 8, "cuda:0").identity == \
        "transformers:smollm2-135m:float32:row-seeded:cuda"
    assert DeferredLocalBackend("smollm2-135m", "auto", None, "cpu").identity == cpu.identity.replace(
        "float32", resolve_dtype("auto"))  # an explicit CPU next to a GPU keeps the CPU identity


def test_provenance_names_the_device_of_each_local_model(gpus):
    gpus(1)
    lm = get_backend("gemma3-270m", device="cuda", dtype="float32", cache=None)
    assert loaded_models()[-1].device == "cuda:0"
    text = to_markdown(collect("test", {}))
    assert f"| `{lm.identity}` | CachedBackend | 0 | cuda:0 |" in text
    gpus(0)
    cpu = get_backend("gemma3-270m", device="cpu", dtype="float32", cache=None)
    assert f"| `{cpu.identity}` | CachedBackend | 0 | cpu |" in to_markdown(collect("test", {}))


def test_embedder_takes_a_device_and_its_batch_size_follows_it(gpus, tmp_path):
    gpus(1)
    emb = get_embedder("all-minilm-l6-v2", device="auto", cache=tmp_path / "e.sqlite")
    assert emb.inner.device == "cuda:0" and emb.identity == "all-minilm-l6-v2"  # cached rows serve every device
    seen = []

    class Model:  # stands in for the SentenceTransformer so nothing is loaded on the pretend GPU
        def encode(self, texts, batch_size, **kwargs):
            seen.append(batch_size)
            return torch.ones(len(texts), emb.dim).numpy()

    emb.inner.__dict__["model"] = Model()
    emb.encode(["a", "b"])
    assert seen == [EMBED_BATCH["cuda"]]
    gpus(0)
    assert get_embedder("all-minilm-l6-v2", cache=tmp_path / "e.sqlite").inner.device == "cpu"


def test_an_unavailable_device_is_refused_before_any_weights_load(gpus, tmp_path):
    gpus(0)
    with pytest.raises(ValueError, match="no CUDA device"):
        TransformersBackend(Path(tmp_path / "never-read"), name="x", device="cuda:0")
    with pytest.raises(ValueError, match="no CUDA device"):
        get_backend("smollm2-135m", device="cuda", cache=None)


def test_the_run_settings_are_read_from_the_environment_and_auto_where_unset(monkeypatch):
    monkeypatch.delenv(DTYPE_ENV, raising=False)
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    assert (run_dtype(), run_device()) == ("auto", "auto")
    monkeypatch.setenv(DTYPE_ENV, "float32")
    monkeypatch.setenv(DEVICE_ENV, "cuda:1")
    assert (run_dtype(), run_device()) == ("float32", "cuda:1")


@pytest.mark.parametrize(("env", "value", "message"), [
    (DTYPE_ENV, "float16", r"\$LLMCREATIVITY_DTYPE: dtype='float16': choose one of \['float32', 'bfloat16', 'auto'\]"),
    (DEVICE_ENV, "gpu", r"\$LLMCREATIVITY_DEVICE: device='gpu': choose one of \['auto', 'cpu', 'cuda', 'cuda:N'\]"),
])
def test_a_bad_run_setting_in_the_environment_names_the_variable_and_the_choices(monkeypatch, env, value, message):
    monkeypatch.setenv(env, value)
    with pytest.raises(ValueError, match=message):
        run_dtype() if env == DTYPE_ENV else run_device()


def test_the_spelling_checks_accept_exactly_the_documented_choices():
    assert [check_dtype(d) for d in ("float32", "bfloat16", "auto")] == ["float32", "bfloat16", "auto"]
    assert [check_device(d) for d in ("auto", "cpu", "cuda", "cuda:3")] == ["auto", "cpu", "cuda", "cuda:3"]
    for bad in ("fp32", "float16", ""):
        with pytest.raises(ValueError, match=r"dtype=.*: choose one of"):
            check_dtype(bad)
    for bad in ("cuda:", "cuda:x", "cuda:-1", "CPU", "mps"):
        with pytest.raises(ValueError, match=r"device=.*: choose one of"):
            check_device(bad)


def test_the_run_settings_are_the_defaults_of_get_backend_and_explicit_arguments_win(monkeypatch, gpus):
    gpus(1)
    monkeypatch.setattr("llmcreativity.llm.device.cpu_has_native_bf16", lambda cpuinfo=None: True)
    monkeypatch.setenv(DTYPE_ENV, "float32")
    monkeypatch.setenv(DEVICE_ENV, "cpu")
    assert get_backend("smollm2-135m", cache=None).identity == "transformers:smollm2-135m:float32:row-seeded"
    assert get_backend("smollm2-135m", dtype="auto", device="auto", cache=None).identity == \
        "transformers:smollm2-135m:bfloat16:row-seeded:cuda"
    monkeypatch.delenv(DTYPE_ENV)
    monkeypatch.delenv(DEVICE_ENV)  # unset: "auto", as before run settings existed
    assert get_backend("smollm2-135m", cache=None).identity == "transformers:smollm2-135m:bfloat16:row-seeded:cuda"


def test_the_run_device_is_the_default_of_get_embedder_and_an_explicit_one_wins(monkeypatch, gpus, tmp_path):
    gpus(1)
    monkeypatch.setenv(DEVICE_ENV, "cpu")
    assert get_embedder("all-minilm-l6-v2", cache=tmp_path / "e.sqlite").inner.device == "cpu"
    assert get_embedder("all-minilm-l6-v2", cache=tmp_path / "e.sqlite", device="auto").inner.device == "cuda:0"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return tiny_model_dir(tmp_path_factory.mktemp("tiny"))


def test_a_tiny_model_on_an_explicit_cpu_lives_there_and_batches_like_a_cpu(tiny_dir):
    lm = TransformersBackend(tiny_dir, name="tiny", dtype="float32", device="cpu")
    assert lm.device == "cpu" and lm.batch_size == LOCAL_BATCH["cpu"]
    assert lm.identity == "transformers:tiny:float32:row-seeded"
    assert {p.device.type for p in lm.model.parameters()} == {"cpu"}


def test_sampling_draws_from_cpu_generators_and_returns_tokens_on_the_logits_device():
    """The row generators are CPU generators whatever the device: a draw is the CPU draw of the same nucleus."""
    logits = torch.randn(2, 50, generator=torch.Generator().manual_seed(0))
    config = GenerateConfig(n=1, temperature=0.8, top_p=0.9, seed=3)
    probs = sampling_probs(logits, 0.8, 0.9)
    expected = torch.cat([torch.multinomial(probs[r], 1, generator=g)
                          for r, g in enumerate(row_generators([[1, 2], [3]], config))])
    drawn = next_tokens(logits, config, row_generators([[1, 2], [3]], config), [[], []])
    assert drawn.device == logits.device and torch.equal(drawn, expected)


def test_threads_sharing_one_local_model_get_the_answers_of_sequential_calls(tiny_dir):
    """Items of a stage may share a backend from several threads; its lock keeps each call whole."""
    lm = TransformersBackend(tiny_dir, name="tiny", dtype="float32", device="cpu")
    prompts = [f"Story {i}: once upon a time" for i in range(6)]
    config = GenerateConfig(temperature=0.0, max_tokens=6)
    sequential = [lm.generate([p], config)[0][0].text for p in prompts]
    lm.prefixes.clear()
    got: dict[int, str] = {}

    def work(i: int) -> None:
        got[i] = lm.generate([prompts[i]], config)[0][0].text

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[i] for i in range(len(prompts))] == sequential
