"""Check that the local engine runs on a GPU and agrees with the CPU (for anyone with a GPU; not a test).

For each registry architecture (Llama: SmolLM2; Qwen2: Qwen2.5-Coder; Gemma 3, with a sliding-window layer)
it builds a tiny randomly initialised model on the spot (the packaged weights may be too large to bring
along), loads it twice, once on the CPU in float32 (the reference) and once on the device in each dtype, and
compares what the project uses a local model for:

* placement: the weights are on the device (and, on CUDA, the device allocated memory);
* scoring: teacher-forced log p(x_j | context, x_<j), max |device - CPU| over tokens;
* answer probabilities: p(a | prompt) over single-token and multi-token answers, max |device - CPU|;
* generation: greedy (temperature 0) and seeded sampling (temperature 1, two samples); every generated
  token's log-probability on the device against the CPU's teacher-forced score of the same text, and in
  float32 the greedy texts must be the same on both.

The tolerances (`TOLERANCE`) are in nats for log-probabilities and absolute for probabilities. Without CUDA
the script says so and exits with status 2; `--device cpu` compares the CPU with itself, which checks the
comparison (every deviation is 0 up to rounding).

    .venv/bin/python scripts/check_gpu.py                    # cuda:0, float32 and bfloat16
    .venv/bin/python scripts/check_gpu.py --device cuda:1 --arch gemma3
    .venv/bin/python scripts/check_gpu.py --device cpu       # the comparison itself, on any machine

Exit status: 0 every check passed, 1 a check failed, 2 no such device here.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from llmcreativity.llm.generate_config import GenerateConfig
from llmcreativity.llm.device import device_kind, resolve_device
from llmcreativity.llm.tiny_models import ARCHITECTURES, tiny_model_dir
from llmcreativity.llm.transformers_local import TransformersBackend


@dataclass(frozen=True)
class Tolerance:
    """How far the device may be from the CPU float32 reference."""

    logprob: float
    """Largest |difference| of a token log-probability, in nats."""
    prob: float
    """Largest |difference| of an answer probability."""


TOLERANCE = {"float32": Tolerance(logprob=2e-3, prob=1e-3), "bfloat16": Tolerance(logprob=0.15, prob=0.03)}
"""float32: rounding of a different summation order only (CPU against itself: below 2e-6 nats). bfloat16
(8 bits of mantissa, about 0.4 % per weight): CPU bfloat16 against CPU float32 measured up to 0.029 nats and
0.0064 in probability on the three tiny models; the bounds leave about 5x room for GPU kernels."""

PROMPTS = ["The cat sat on the", "Rain fell on the old town while", "1, 2, 3, 4,"]
SCORE_CASES = [("The cat sat on the", " mat and slept."), ("Q: what is 2+2?\nA:", " 4, of course.")]
ANSWER_SETS = [["A", "B", "C"], ["yes", "no", "maybe"]]
GREEDY = GenerateConfig(temperature=0.0, max_tokens=12)
SAMPLED = GenerateConfig(n=2, temperature=1.0, max_tokens=12, seed=7)


@dataclass(frozen=True)
class Check:
    """One comparison of the device against the CPU reference."""

    arch: str
    """Tiny architecture."""
    dtype: str
    """The device model's dtype."""
    what: str
    """What was compared."""
    deviation: float
    """The largest difference found (a count for text mismatches)."""
    tolerance: float
    """The largest difference allowed."""
    detail: str = ""
    """What a failure means."""

    @property
    def passed(self) -> bool:
        """Whether the deviation is within the tolerance."""
        return bool(self.deviation <= self.tolerance)


def _max_abs(a: list[float], b: list[float]) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if a else 0.0


def _placement(candidate: TransformersBackend) -> float:
    """0 when every weight is on the candidate's device (and CUDA allocated memory), else 1."""
    want = torch.device(candidate.device)
    on_device = all(p.device.type == want.type and (want.index is None or p.device.index == want.index)
                    for p in candidate.model.parameters())
    allocated = device_kind(candidate.device) == "cpu" or torch.cuda.max_memory_allocated(want) > 0
    return 0.0 if on_device and allocated else 1.0


def _generation(reference: TransformersBackend, candidate: TransformersBackend, config: GenerateConfig
                ) -> tuple[float, int, int]:
    """(max |device generation log-prob - CPU teacher-forced score|, texts unlike the CPU's greedy texts,
    completions whose tokens do not survive a round trip through text)."""
    got = candidate.generate(PROMPTS, config)
    ref = reference.generate(PROMPTS, config)
    worst, unlike, torn = 0.0, 0, 0
    for prompt, completions, ref_completions in zip(PROMPTS, got, ref, strict=True):
        for c, r in zip(completions, ref_completions, strict=True):
            unlike += c.text != r.text
            if not c.text:
                continue
            scored = reference.score(prompt, c.text)
            if scored.tokens != c.tokens:
                torn += 1
                continue
            worst = max(worst, _max_abs(c.logprobs, scored.logprobs))
    return worst, unlike, torn


def compare(reference: TransformersBackend, candidate: TransformersBackend, arch: str = "?") -> list[Check]:
    """Every check of `candidate` (the device model) against `reference` (the CPU float32 model)."""
    tol = TOLERANCE[candidate.dtype]
    dt = candidate.dtype
    checks = [Check(arch, dt, f"weights on {candidate.device}", _placement(candidate), 0.0,
                    "the model did not run where it was asked to")]
    score = max(_max_abs(candidate.score(c, x).logprobs, reference.score(c, x).logprobs) for c, x in SCORE_CASES)
    checks.append(Check(arch, dt, "scoring: token log-probabilities (nats)", score, tol.logprob))
    probs = 0.0
    for answers in ANSWER_SETS:
        for got, ref in zip(candidate.answer_probs_batch(PROMPTS, answers),
                            reference.answer_probs_batch(PROMPTS, answers), strict=True):
            probs = max(probs, _max_abs([got.probs[a] for a in answers], [ref.probs[a] for a in answers]))
    checks.append(Check(arch, dt, "answer probabilities", probs, tol.prob))
    for label, config in (("greedy", GREEDY), ("sampled", SAMPLED)):
        worst, unlike, torn = _generation(reference, candidate, config)
        checks.append(Check(arch, dt, f"{label} generation log-probabilities vs CPU teacher forcing (nats)", worst,
                            tol.logprob))
        checks.append(Check(arch, dt, f"{label} generation: tokens lost in a text round trip", torn, 0,
                            "the tiny ASCII tokenizer should round-trip every generated text"))
        if label == "greedy" and dt == "float32":
            checks.append(Check(arch, dt, "greedy generation: texts unlike the CPU's", unlike, 0,
                                "float32 greedy decoding should pick the same tokens on every device"))
    return checks


def device_dtypes(device: str) -> list[str]:
    """float32, plus bfloat16 on a CUDA device that supports it."""
    if device_kind(device) == "cuda" and torch.cuda.is_bf16_supported():
        return ["float32", "bfloat16"]
    return ["float32"]


def run(device: str, dtypes: list[str], archs: list[str], workdir: Path) -> list[Check]:
    """Build each tiny model, load it on the CPU (float32) and on `device` (each dtype), and compare."""
    checks: list[Check] = []
    for arch in archs:
        path = tiny_model_dir(workdir / arch, seed=0, arch=arch, ascii_only=True)
        reference = TransformersBackend(path, name=f"tiny-{arch}", chat=False, dtype="float32", device="cpu")
        for dtype in dtypes:
            t0 = time.perf_counter()
            candidate = TransformersBackend(path, name=f"tiny-{arch}", chat=False, dtype=dtype, device=device)
            found = compare(reference, candidate, arch)
            print(f"{arch:>6} {dtype:>8} on {device}: {sum(c.passed for c in found)}/{len(found)} checks passed "
                  f"({time.perf_counter() - t0:.1f} s)")
            checks += found
    return checks


def report(checks: list[Check]) -> str:
    """One line per check: PASS/FAIL, what, the deviation and its tolerance."""
    lines = []
    for c in checks:
        line = (f"{'PASS' if c.passed else 'FAIL'}  {c.arch:>6} {c.dtype:>8}  {c.what}: {c.deviation:.3g} "
                f"(allowed {c.tolerance:.3g})")
        lines.append(line + (f"  <- {c.detail}" if c.detail and not c.passed else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N, or cpu (compares the CPU with itself)")
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], action="append",
                        help="dtype(s) of the device model (default: float32, plus bfloat16 on a GPU with it)")
    parser.add_argument("--arch", choices=sorted(ARCHITECTURES), action="append",
                        help="tiny architecture(s) to check (default: all)")
    args = parser.parse_args(argv)
    try:
        device = resolve_device(args.device)
    except ValueError as e:
        print(f"check_gpu: no device to check: {e}\n  torch {torch.__version__} (built for CUDA "
              f"{torch.version.cuda or 'none: a CPU-only build'}). On a machine with an NVIDIA GPU install a CUDA "
              "build of torch; `--device cpu` checks the comparison itself.", file=sys.stderr)
        return 2
    if device_kind(device) == "cuda":
        print(f"device {device}: {torch.cuda.get_device_name(device)}, torch {torch.__version__}, "
              f"CUDA {torch.version.cuda}")
    else:
        print(f"device cpu (compared with itself), torch {torch.__version__}")
    archs = args.arch or sorted(ARCHITECTURES)
    with tempfile.TemporaryDirectory(prefix="check-gpu-") as tmp:
        checks = run(device, args.dtype or device_dtypes(device), archs, Path(tmp))
    print(report(checks))
    failed = [c for c in checks if not c.passed]
    print(f"{len(checks) - len(failed)}/{len(checks)} checks passed" + (f"; {len(failed)} FAILED" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
