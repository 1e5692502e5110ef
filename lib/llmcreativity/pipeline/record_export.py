"""A run's record: every model call and embedding its stages used, with their inputs, in a compact folder.

`llmcreativity record export DEST` writes, for every stage of a profile that ran, what its kernel's call log
(`llm.call_log`) says it asked for, and the cached answers of those calls; `llmcreativity run --replay DEST`
rebuilds the stages from the record alone (`execution.prepare_replay`); with `-p NAME VALUE` of analysis parameters
it re-analyses the record (`check_parameters` refuses generating ones), and `llmcreativity run --from-record DEST`
runs live against it, computing only the calls it lacks (`execution.prepare_from_record`). The folder:

    record.json                      format, version, the exporting commit, CPU, and per stage: the commit it ran
                                     at, parameters (as run and
                                     resolved) and their hash, run id, time, tokens, calls per role and method,
                                     the stage's output-file hashes and claims, and its files with SHA-256
    <stage>/keys.<k>.jsonl.gz        the calls the stage asked for: identity, method, role, keys and inputs
    <stage>/calls.<k>.jsonl.gz       {key, payload} of the language-model answers first stored by this stage
    <stage>/embeddings.<k>.npz       keys and float32 rows of the embeddings first stored by this stage

A key two stages share is stored once (in the first stage exported) and listed in both stages' keys files.
Files are only ever added: exporting a stage again after it re-ran writes `<k+1>` files and points the stage's
entry at them, so a run recorded over several sittings grows by appending, and a sitting's export never rewrites
what an earlier one committed. Every file is gzip-compressed or a compressed NumPy archive; `record.json` lists
each one's SHA-256, so a truncated or altered file is refused by `import_record` before anything runs.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import platform
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..dataclass_json import to_json
from ..hashing import sha256_file
from ..jsonl import read_jsonl
from ..llm.call_log import LoggedCall, read_call_log
from ..llm.response_cache import ResponseCache
from ..paths import REPO_ROOT, cache_dir, results_dir
from ..record_file import (
    RECORD_FILE,
    CallCounts,
    Machine,
    Record,
    RecordedStage,
    RecordError,
    Sitting,
    StoredFile,
    read_record,
    write_record,
)
from .manifest import executed_dir, read_manifest
from .planning import Plan
from .provenance import parameters_hash
from .record_compare import output_digests, resolved_parameters

SIZE_CAP_BYTES = 150 * 1024 * 1024
"""A record larger than this is refused at export (records are committed to the repository)."""


def call_log_file(stage: str, profile: str = "default") -> Path:
    """Where `stage`'s kernel logs the calls it asks for (`executed/calls/<stage>.jsonl`)."""
    return executed_dir(profile) / "calls" / f"{stage}.jsonl"


def spot_check_file(stage: str, profile: str = "default") -> Path:
    """Where a replay's kernel appends its spot-check comparisons (`executed/spot_check/<stage>.jsonl`)."""
    return executed_dir(profile) / "spot_check" / f"{stage}.jsonl"


def calls_by_role(calls: list[LoggedCall]) -> CallCounts:
    """Distinct keys asked, per role and method (`role` empty -> "(none)")."""
    counts: Counter[tuple[str, str]] = Counter()
    seen: set[str] = set()
    for c in calls:
        new = [k for k in c.keys if k not in seen]
        seen.update(new)
        counts[(c.role or "(none)", c.method)] += len(new)
    out: CallCounts = {}
    for (role, method), n in sorted(counts.items()):
        out.setdefault(role, {})[method] = n
    return out


def code_commit() -> str:
    """The project's git commit (empty outside a git checkout)."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def cpu_description() -> Machine:
    """The recording machine: processor model, cores and the flags that change arithmetic (AVX2, AVX-512, bf16)."""
    model = ""
    flags: set[str] = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and not model:
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    wanted = sorted(f for f in flags if f.startswith(("avx", "amx", "fma", "f16c")))
    return Machine(model, platform.machine(), os.cpu_count(), tuple(wanted))


def _write_gz_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _read_gz_jsonl(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _save_embeddings(path: Path, keys: list[str], rows: list[np.ndarray]) -> None:
    """One compressed archive of float32 rows, one pair of arrays (`keys_<dim>`, `vectors_<dim>`) per row size
    (a stage may use embedders of several sizes); written beside the target and renamed into place."""
    by_dim: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        by_dim.setdefault(len(row), []).append(i)
    arrays = {}
    for dim, idx in by_dim.items():
        arrays[f"keys_{dim}"] = np.array([keys[i] for i in idx])
        arrays[f"vectors_{dim}"] = np.stack([rows[i] for i in idx]).astype(np.float32)
    tmp = path.with_name(f".{path.stem}.tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]  # mypy matches **arrays to allow_pickle too
    os.replace(tmp, path)


def _load_embeddings(path: Path) -> list[tuple[str, np.ndarray]]:
    """The (key, float32 row) pairs of an archive written by `_save_embeddings`."""
    with np.load(path) as z:
        dims = [name.removeprefix("keys_") for name in z.files if name.startswith("keys_")]
        return [(str(k), np.asarray(v, dtype=np.float32)) for d in dims
                for k, v in zip(z[f"keys_{d}"], z[f"vectors_{d}"], strict=True)]


def stored_keys(folder: Path, record: Record) -> set[str]:
    """Keys whose answers some shard of the record at `folder` holds: the calls a run against it finds answered."""
    keys: set[str] = set()
    for entry in record.stages.values():
        for shard in entry.shards:
            path = folder / shard
            if path.suffix == ".npz":
                keys.update(k for k, _ in _load_embeddings(path))
            else:
                keys.update(row["key"] for row in _read_gz_jsonl(path))
    return keys


def _next_index(folder: Path, stage: str) -> int:
    existing = [int(p.name.split(".")[1]) for p in (folder / stage).glob("keys.*.jsonl.gz")] if (
        folder / stage).exists() else []
    return max(existing, default=0) + 1


def _write_calls(stage: str, calls: list[LoggedCall], previous: RecordedStage | None, folder: Path,
                 record: Record, cache: ResponseCache) -> tuple[str, tuple[str, ...]]:
    """Write a sitting's numbered files: the keys of every call of the stage (`calls`) and the answers the record
    does not hold yet, from `cache`; return (keys file, answer shards)."""
    rows = [to_json(c) for c in calls]
    stored = stored_keys(folder, record)
    k = _next_index(folder, stage)
    (folder / stage).mkdir(parents=True, exist_ok=True)
    lm_rows, emb_keys, emb_rows, missing = [], [], [], []
    for c in calls:
        for key in c.keys:
            if key in stored:
                continue
            value = cache.get(key)
            if value is None:
                missing.append((c, key))
                continue
            stored.add(key)
            if c.kind == "embedder":
                emb_keys.append(key)
                emb_rows.append(np.frombuffer(base64.b64decode(value), dtype=np.float32))
            else:
                lm_rows.append({"key": key, "payload": value})
    if missing:
        c, key = missing[0]
        raise RecordError(f"stage {stage!r}: {len(missing)} logged call(s) have no answer in the call cache "
                          f"{cache.path} (first: {c.method} of {c.identity}, key {key[:12]}…): run the stage again "
                          "with this cache, then export")
    keys_file = f"{stage}/keys.{k}.jsonl.gz"
    _write_gz_jsonl(folder / keys_file, rows)
    shards = list(previous.shards) if previous else []
    if lm_rows:
        shards.append(f"{stage}/calls.{k}.jsonl.gz")
        _write_gz_jsonl(folder / shards[-1], lm_rows)
    if emb_rows:
        shards.append(f"{stage}/embeddings.{k}.npz")
        _save_embeddings(folder / shards[-1], emb_keys, emb_rows)
    return keys_file, tuple(shards)


def export_stage(stage: str, plan: Plan, folder: Path, record: Record, cache: ResponseCache,
                 profile: str) -> RecordedStage | None:
    """Add `stage`'s calls to the record in `folder` (new numbered files); its entry, or None when the record holds
    every call it logged already.

    A stage recorded over several sittings holds the calls of all of them: a sitting that resumes a stage (a larger
    size after an interim one, or a run killed and started again) asks only for what it does not read back from its
    results folder, so its call log alone would under-count what a replay of the stage asks. The entry's keys file is
    therefore the union of the earlier one and this sitting's calls, and `sittings` lists each sitting's run id,
    commit, wall time and the calls it added. A stage computed again from scratch under other generating parameters
    belongs in a new record folder, or the earlier sittings' calls would count as asked."""
    entry = read_manifest(profile).stages.get(stage)
    if entry is None or entry.status != "ok":
        raise RecordError(f"stage {stage!r} has not run successfully under profile {profile!r}: run it "
                          f"(`llmcreativity run --profile {profile} --stage {stage}`) before exporting it")
    log = call_log_file(stage, profile)
    calls = read_call_log(log)
    unique: dict[tuple[str, ...], LoggedCall] = {}
    for c in calls:
        unique.setdefault(tuple(c.keys), c)
    calls = list(unique.values())
    previous = record.stages.get(stage)
    if previous and not (folder / previous.keys_file).exists():
        raise RecordError(f"{folder / previous.keys_file}: the keys file of the recorded stage {stage!r} is "
                          "missing; restore the record from git (`git checkout -- <folder>`) before exporting into it")
    earlier = [LoggedCall(**row) for row in _read_gz_jsonl(folder / previous.keys_file)] if previous else []
    known = {tuple(c.keys) for c in earlier}
    added = [c for c in calls if tuple(c.keys) not in known]
    calls = earlier + added
    ran = resolved_parameters(plan, entry.parameters)
    if previous and not added:  # no new call: the record's files stand; its outputs may still have changed
        keys_file, shards = previous.keys_file, previous.shards
    else:
        keys_file, shards = _write_calls(stage, calls, previous, folder, record, cache)
    claims = tuple(r for r in read_jsonl(results_dir(profile) / "claims.jsonl") if r.get("stage") == stage)
    validity = tuple(r for r in read_jsonl(results_dir(profile) / "judge_validity.jsonl") if r.get("stage") == stage)
    exported = RecordedStage(
        run_id=entry.run_id, profile=profile, notebook=entry.notebook, source_sha256=entry.source_sha256,
        commit=entry.commit, parameters=entry.parameters, parameters_sha256=entry.parameters_sha256,
        resolved_parameters=ran, resolved_sha256=parameters_hash(ran), seconds=entry.seconds, usage=entry.usage,
        items=entry.items, items_unit=entry.items_unit, outputs=entry.outputs,
        output_digests=output_digests(entry.outputs, results_dir(profile)),
        calls=calls_by_role(calls), keys_file=keys_file, shards=shards, exported=time.strftime("%Y-%m-%dT%H:%M:%S"),
        claims=claims, judge_validity=validity)
    if previous and not added and all(getattr(exported, k) == getattr(previous, k) for k in _SAME_SITTING):
        return None
    made = Sitting(exported.run_id, exported.commit, exported.seconds, exported.exported,
                   calls_by_role(added) if previous else exported.calls)
    return replace(exported, sittings=(*(previous.all_sittings() if previous else ()), made))


_SAME_SITTING = ("output_digests", "claims", "judge_validity", "resolved_sha256")
"""A sitting that adds no call and leaves these as recorded changes nothing; one that changes them (a test split
scored once its choice was committed, with every call answered from the record) is a sitting of its own."""


def _files(folder: Path, stages: dict[str, RecordedStage]) -> dict[str, StoredFile]:
    names = {n for e in stages.values() for n in [e.keys_file, *e.shards]}
    return {n: StoredFile(sha256_file(folder / n), (folder / n).stat().st_size) for n in sorted(names)}


def export_record(folder: str | Path, plans: list[Plan], profile: str, cache_path: str | Path | None = None,
                  log: Callable[[str], object] = print) -> Record:
    """Export the stages of `plans` (run under `profile`) into the record at `folder`; returns the record."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    record = read_record(folder) if (folder / RECORD_FILE).exists() else Record.new(profile)
    if record.profile != profile:
        raise RecordError(f"{folder}: a record of profile {record.profile!r}; export profile {profile!r} into "
                          "another folder")
    cache = ResponseCache(cache_path or cache_dir() / "calls.sqlite")
    before = {p for p in folder.rglob("*") if p.is_file()}
    stages = dict(record.stages)
    try:
        for p in plans:
            entry = export_stage(p.stage.name, p, folder, replace(record, stages=stages), cache, profile)
            if entry is None:
                log(f"[record] {p.stage.name}: unchanged")
                continue
            stages[p.stage.name] = entry
            log(f"[record] {p.stage.name}: {entry.call_count()} calls -> {entry.keys_file}")
    except BaseException:  # an export that fails leaves the record as it was: no file that record.json does not list
        for path in {p for p in folder.rglob("*") if p.is_file()} - before:
            path.unlink()
        raise
    files = _files(folder, stages)
    size = sum(f.bytes for f in files.values())
    record = replace(record, stages=stages, commit=code_commit(), cpu=cpu_description(),
                     updated=time.strftime("%Y-%m-%dT%H:%M:%S"), files=files, bytes=size)
    if size > SIZE_CAP_BYTES:
        raise RecordError(f"{folder}: the record would be {size / 2**20:.0f} MiB, over the cap of "
                          f"{SIZE_CAP_BYTES / 2**20:.0f} MiB; record fewer stages or smaller sizes")
    write_record(folder, record)
    for stage in record.stages:  # a keys file that a later sitting's (the union) superseded
        for path in (folder / stage).glob("keys.*.jsonl.gz"):
            if f"{stage}/{path.name}" not in record.files:
                path.unlink()
    return record


def verify_record(folder: str | Path, stages: list[str]) -> Record:
    """The record.json, after checking that every file it lists is whole and every stage in `stages` is in it;
    raises RecordError naming the file or stage and the fix."""
    folder = Path(folder)
    record = read_record(folder)
    absent = [s for s in stages if s not in record.stages]
    if absent:
        raise RecordError(f"{folder}: the record holds no stage {absent} (it has {sorted(record.stages)}): "
                          f"record them (`llmcreativity run --stage NAME`, then `llmcreativity record export "
                          f"{folder}`) or replay only the recorded stages (--stage)")
    for name, facts in record.files.items():
        path = folder / name
        if not path.exists():
            raise RecordError(f"{path}: listed in {RECORD_FILE} but missing: restore it from git or export the "
                              "record again")
        if path.stat().st_size != facts.bytes or sha256_file(path) != facts.sha256:
            raise RecordError(f"{path}: truncated or altered (its SHA-256 differs from {RECORD_FILE}'s): restore it "
                              "from git (`git checkout -- <path>`) or export the record again")
    return record


def import_record(folder: str | Path, target: str | Path, stages: list[str] | None = None, *,
                  fresh: bool = True) -> ResponseCache:
    """Load the answers of the record at `folder` into the call cache `target`, after `verify_record`.

    `fresh`: make `target` anew (a replay's own cache); False adds the answers to an existing cache (the user's).
    `stages`: those that must be in the record (None: every recorded stage).
    """
    folder = Path(folder)
    record = verify_record(folder, stages or [])
    stages = list(record.stages) if stages is None else stages
    target = Path(target)
    if fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    cache = ResponseCache(target)
    shards = sorted({s for e in record.stages.values() for s in e.shards})
    for shard in shards:
        path = folder / shard
        if path.suffix == ".npz":
            items = [(k, base64.b64encode(v.tobytes()).decode("ascii")) for k, v in _load_embeddings(path)]
        else:
            items = [(row["key"], row["payload"]) for row in _read_gz_jsonl(path)]
        cache.put_many(items)
    for stage in stages:
        wanted = {k for row in _read_gz_jsonl(folder / record.stages[stage].keys_file) for k in row["keys"]}
        held = {k for k in wanted if cache.get(k) is not None}
        if held != wanted:
            raise RecordError(f"{folder}: stage {stage!r} lists {len(wanted - held)} call(s) whose answers no shard "
                              "holds: the record is incomplete; export it again")
    return cache


