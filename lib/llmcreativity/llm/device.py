"""Where a local model runs: the device, the dtype it computes in there, and the batch sizes that suit it.

`device="auto"` picks the first CUDA device when torch sees one, else the CPU. On a machine without a GPU driver
the answer is found without importing torch, so a run that the call cache answers completely still never loads
it. A language model on CUDA computes in bfloat16 where the GPU supports it (every GPU since Ampere), else in
float32; on the CPU the dtype rule of `resolve_dtype` holds (bfloat16 only where the CPU computes it natively,
`cpu_has_native_bf16`).

Both "auto"s depend on the machine, and so do the cache identities made from their answers. The defaults of
`get_backend(dtype=, device=)` and `get_embedder(device=)` are therefore the run's settings,
the context's `dtype` and `device` (`run_dtype`, `run_device`; `$LLMCREATIVITY_DTYPE`, `$LLMCREATIVITY_DEVICE`),
which `llmcreativity run` sets
for every stage kernel from `-p dtype` / `-p device` or the profile (the recorded profiles pin "float32" on the
"cpu", so their identities are the same on every machine); "auto" where they are unset.

Batch sizes follow the device: a CPU gains little from batches larger than a few prompts, a GPU needs
many rows to be busy.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from ..context import kernel_context, variable

DTYPE_NAMES = ("float32", "bfloat16")
"""The dtypes a local model computes in; "auto" picks one per machine (`resolve_dtype`), so its identity is
machine-dependent: a run meant to be replayed elsewhere names one (`llmcreativity run -p dtype`; the recorded
profiles pin "float32")."""

NATIVE_BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""CPU flags (Linux /proc/cpuinfo) of native bfloat16 arithmetic."""


def cpu_has_native_bf16(cpuinfo: str | None = None) -> bool:
    """Whether this CPU computes bfloat16 natively (AMX-BF16 or AVX512-BF16), read from /proc/cpuinfo's flags.

    Without it torch emulates bfloat16 and is several times slower than float32 (measured: 4.8x slower
    scoring on an AVX2-only EPYC); with AMX it is 1.8x-4.3x faster (issue 15).
    """
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    flags = {f for line in cpuinfo.splitlines() if line.startswith("flags") for f in line.split(":", 1)[1].split()}
    return any(f in flags for f in NATIVE_BF16_FLAGS)


def resolve_dtype(dtype: str, cpuinfo: str | None = None) -> str:
    """The dtype to compute in: "auto" gives "bfloat16" on a CPU with native bfloat16, else "float32".

    An explicit "float32" or "bfloat16" is checked and kept. "auto" depends on the machine, and so does the
    identity made from its answer (`local_identity`): a call cached on a bfloat16 CPU misses on an AVX2 one.
    """
    if dtype == "auto":
        return "bfloat16" if cpu_has_native_bf16(cpuinfo) else "float32"
    if dtype not in DTYPE_NAMES:
        raise ValueError(f"dtype={dtype!r}: choose one of {[*DTYPE_NAMES, 'auto']}")
    return dtype


DEVICE_CHOICES = ("auto", "cpu", "cuda", "cuda:N")
"""What `device` accepts (N: a CUDA device index)."""

DTYPE_CHOICES = (*DTYPE_NAMES, "auto")
"""What `dtype` accepts."""


LOCAL_BATCH = {"cpu": 4, "cuda": 32}
"""Prompts a local language model samples in one batch, by device kind."""

EMBED_BATCH = {"cpu": 32, "cuda": 256}
"""Texts a sentence embedder encodes in one batch, by device kind."""

GPU_DRIVER_FILES = ("/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/kfd")
"""Files present where a GPU driver is installed (NVIDIA, or ROCm's /dev/kfd, which torch also calls CUDA)."""

_CUDA = re.compile(r"cuda(?::(\d+))?")


def gpu_driver_present() -> bool:
    """Whether any GPU driver file exists; without one, torch cannot see a CUDA device."""
    return any(Path(p).exists() for p in GPU_DRIVER_FILES)


def _torch_cuda_count() -> int:
    """CUDA devices torch sees (0 without CUDA); imports torch only when it is loaded already or a driver exists."""
    if "torch" not in sys.modules and not gpu_driver_present():
        return 0
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def check_dtype(dtype: str) -> str:
    """`dtype` when it is one of `DTYPE_CHOICES`, else a ValueError naming the choices (nothing is resolved)."""
    if dtype not in DTYPE_CHOICES:
        raise ValueError(f"dtype={dtype!r}: choose one of {list(DTYPE_CHOICES)}")
    return dtype


def check_device(device: str) -> str:
    """`device` when it is spelled as one of `DEVICE_CHOICES`, else a ValueError naming the choices.

    Only the spelling is checked: whether torch sees that CUDA device is `resolve_device`'s question.

    >>> check_device("cuda:1")
    'cuda:1'
    """
    if device in ("auto", "cpu") or (isinstance(device, str) and _CUDA.fullmatch(device)):
        return device
    raise ValueError(f"device={device!r}: choose one of {list(DEVICE_CHOICES)}")


def _run_setting(name: str, check: Callable[[str], str]) -> str:
    """The run setting `name` from the kernel context ("auto" when unset), checked."""
    value = getattr(kernel_context(), name) or "auto"
    try:
        return check(value)
    except ValueError as e:
        raise ValueError(f"${variable(name)}: {e} (set it to one of those, or unset it for 'auto')") from None


def run_dtype() -> str:
    """The run's dtype: the context's `dtype` ("float32", "bfloat16" or "auto"), "auto" when unset."""
    return _run_setting("dtype", check_dtype)


def run_device() -> str:
    """The run's device: the context's `device` ("cpu", "cuda", "cuda:N" or "auto"), "auto" when unset."""
    return _run_setting("device", check_device)


def resolve_device(device: str = "auto") -> str:
    """The device a local model runs on: "cpu" or "cuda:N".

    "auto" gives "cuda:0" when torch sees a CUDA device, else "cpu"; "cuda" means "cuda:0"; "cuda:N" is
    checked against the devices torch sees. Anything else is a ValueError naming the choices.
    """
    if check_device(device) == "auto":
        return "cuda:0" if _torch_cuda_count() > 0 else "cpu"
    if device == "cpu":
        return "cpu"
    cuda = _CUDA.fullmatch(device)
    assert cuda is not None  # check_device let it through, and it is neither "auto" nor "cpu"
    index = int(cuda.group(1) or 0)
    count = _torch_cuda_count()
    if count == 0:
        raise ValueError(f"device={device!r}, but torch sees no CUDA device here: use device='cpu' (or 'auto'), "
                         "or install a CUDA build of torch on a machine with a GPU")
    if index >= count:
        raise ValueError(f"device={device!r}, but torch sees {count} CUDA device(s) (cuda:0..cuda:{count - 1})")
    return f"cuda:{index}"


def device_kind(device: str) -> str:
    """"cpu" or "cuda" for a resolved device ("cpu", "cuda:N")."""
    return "cpu" if device == "cpu" else "cuda"


def _cuda_bf16(device: str) -> bool:
    import torch

    with torch.cuda.device(device):
        return bool(torch.cuda.is_bf16_supported())


def resolve_device_dtype(dtype: str, device: str, cpuinfo: str | None = None) -> str:
    """The dtype a language model computes in on the resolved `device`.

    On the CPU: `resolve_dtype` ("auto": bfloat16 only with native CPU bfloat16). On CUDA: "auto" gives
    "bfloat16" where the GPU supports it, else "float32"; an explicit "float32" or "bfloat16" is kept.
    """
    if device_kind(device) == "cpu":
        return resolve_dtype(dtype, cpuinfo)
    if check_dtype(dtype) == "auto":
        return "bfloat16" if _cuda_bf16(device) else "float32"
    return dtype


def local_batch_size(device: str, batch_size: int | None = None) -> int:
    """`batch_size` when given (checked), else the device's default (`LOCAL_BATCH`)."""
    if batch_size is None:
        return LOCAL_BATCH[device_kind(device)]
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}: must be >= 1")
    return batch_size
