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
from pathlib import Path
from typing import Any

import numpy as np

from ..hashing import sha256_file
from ..json_records import to_json
from ..jsonl import read_jsonl
from ..llm.cache import ResponseCache
from ..llm.call_log import LoggedCall, read_call_log
from ..paths import REPO_ROOT, cache_dir, results_dir
from ..record_file import FORMAT, RECORD_FILE, VERSION, RecordError, read_record
from .manifest import executed_dir, read_manifest
from .planning import Plan
from .provenance import parameters_hash

SIZE_CAP_BYTES = 150 * 1024 * 1024
"""A record larger than this is refused at export (records are committed to the repository)."""


def call_log_file(stage: str, profile: str = "default") -> Path:
    """Where `stage`'s kernel logs the calls it asks for (`executed/calls/<stage>.jsonl`)."""
    return executed_dir(profile) / "calls" / f"{stage}.jsonl"


def spot_check_file(stage: str, profile: str = "default") -> Path:
    """Where a replay's kernel appends its spot-check comparisons (`executed/spot_check/<stage>.jsonl`)."""
    return executed_dir(profile) / "spot_check" / f"{stage}.jsonl"


def resolved_parameters(p: Plan, ran: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every parameter the stage's notebook declares, with the value it runs with (defaults included); with `ran`
    (a manifest entry's parameters), the values that run used instead of the plan's: a sitting that ran a stage at
    an interim size (-p) is so recorded at that size, not at the profile's."""
    given = p.parameters if ran is None else ran
    return {name: given.get(name, param.default) for name, param in p.declared.items()}


def calls_by_role(calls: list[LoggedCall]) -> dict[str, dict[str, int]]:
    """Distinct keys asked, per role and method (`role` empty -> "(none)")."""
    counts: Counter[tuple[str, str]] = Counter()
    seen: set[str] = set()
    for c in calls:
        new = [k for k in c.keys if k not in seen]
        seen.update(new)
        counts[(c.role or "(none)", c.method)] += len(new)
    out: dict[str, dict[str, int]] = {}
    for (role, method), n in sorted(counts.items()):
        out.setdefault(role, {})[method] = n
    return out


def sitting(entry: dict[str, Any], calls: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:
    """One sitting of a recorded stage, from the export entry of the run that made it: its run id, code commit, wall
    time, export time and the calls it added to the record (`calls`, per role and method; default the entry's)."""
    return {"run_id": entry.get("run_id", ""), "commit": entry.get("commit", ""), "seconds": entry.get("seconds"),
            "exported": entry.get("exported", ""), "calls": entry.get("calls", {}) if calls is None else calls}


def sittings(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The sittings that built a recorded stage, oldest first (an entry exported before sittings were kept: its one
    run)."""
    return list(entry.get("sittings") or [sitting(entry)])


def stage_seconds(entry: dict[str, Any]) -> float:
    """A recorded stage's computing time: the wall times of all the sittings that built it, summed (a sitting's calls
    that the call cache answered count only the time they then took)."""
    return sum(float(s.get("seconds") or 0.0) for s in sittings(entry))


def code_commit() -> str:
    """The project's git commit (empty outside a git checkout)."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def cpu_description() -> dict[str, Any]:
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
    return {"model": model, "machine": platform.machine(), "cores": os.cpu_count(), "flags": wanted}


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


def stored_keys(folder: Path, record: dict[str, Any]) -> set[str]:
    """Keys whose answers some shard of the record at `folder` holds: the calls a run against it finds answered."""
    keys: set[str] = set()
    for entry in record.get("stages", {}).values():
        for shard in entry.get("shards", []):
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


def _write_calls(stage: str, calls: list[LoggedCall], previous: dict[str, Any] | None, folder: Path,
                 record: dict[str, Any], cache: ResponseCache) -> tuple[str, list[str]]:
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
    shards = list(previous.get("shards", [])) if previous else []
    if lm_rows:
        shards.append(f"{stage}/calls.{k}.jsonl.gz")
        _write_gz_jsonl(folder / shards[-1], lm_rows)
    if emb_rows:
        shards.append(f"{stage}/embeddings.{k}.npz")
        _save_embeddings(folder / shards[-1], emb_keys, emb_rows)
    return keys_file, shards


def export_stage(stage: str, plan: Plan, folder: Path, record: dict[str, Any], cache: ResponseCache,
                 profile: str) -> dict[str, Any] | None:
    """Add `stage`'s calls to the record in `folder` (new numbered files); its entry, or None when the record holds
    every call it logged already.

    A stage recorded over several sittings holds the calls of all of them: a sitting that resumes a stage (a larger
    size after an interim one, or a run killed and started again) asks only for what it does not read back from its
    results folder, so its call log alone would under-count what a replay of the stage asks. The entry's keys file is
    therefore the union of the earlier one and this sitting's calls, and `sittings` lists each sitting's run id,
    commit, wall time and the calls it added. A stage computed again from scratch under other generating parameters
    belongs in a new record folder, or the earlier sittings' calls would count as asked."""
    entry = read_manifest(profile)["stages"].get(stage)
    if not entry or entry.get("status") != "ok":
        raise RecordError(f"stage {stage!r} has not run successfully under profile {profile!r}: run it "
                          f"(`llmcreativity run --profile {profile} --stage {stage}`) before exporting it")
    log = call_log_file(stage, profile)
    calls = read_call_log(log)
    unique: dict[tuple[str, ...], LoggedCall] = {}
    for c in calls:
        unique.setdefault(tuple(c.keys), c)
    calls = list(unique.values())
    previous = record.get("stages", {}).get(stage)
    if previous and not (folder / previous["keys_file"]).exists():
        raise RecordError(f"{folder / previous['keys_file']}: the keys file of the recorded stage {stage!r} is "
                          "missing; restore the record from git (`git checkout -- <folder>`) before exporting into it")
    earlier = [LoggedCall(**row) for row in _read_gz_jsonl(folder / previous["keys_file"])] if previous else []
    known = {tuple(c.keys) for c in earlier}
    added = [c for c in calls if tuple(c.keys) not in known]
    calls = earlier + added
    ran = resolved_parameters(plan, entry.get("parameters", {}))
    if previous and not added:  # no new call: the record's files stand; its outputs may still have changed
        keys_file, shards = previous["keys_file"], list(previous.get("shards", []))
    else:
        keys_file, shards = _write_calls(stage, calls, previous, folder, record, cache)
    exported = {
        "run_id": entry.get("run_id", ""), "profile": profile, "notebook": entry.get("notebook", ""),
        "source_sha256": entry.get("source_sha256", ""), "commit": entry.get("commit", ""),
        "parameters": entry.get("parameters", {}),
        "parameters_sha256": entry.get("parameters_sha256", ""), "resolved_parameters": ran,
        "resolved_sha256": parameters_hash(ran), "seconds": entry.get("seconds"),
        "usage": entry.get("usage", []), "items": entry.get("items"), "items_unit": entry.get("items_unit", ""),
        "outputs": entry.get("outputs", {}), "output_digests": output_digests(entry.get("outputs", {}),
                                                                             results_dir(profile)),
        "calls": calls_by_role(calls), "keys_file": keys_file,
        "shards": shards, "exported": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "claims": [r for r in read_jsonl(results_dir(profile) / "claims.jsonl") if r.get("stage") == stage],
        "judge_validity": [r for r in read_jsonl(results_dir(profile) / "judge_validity.jsonl")
                           if r.get("stage") == stage],
    }
    if previous and not added and all(exported[k] == previous.get(k) for k in _SAME_SITTING):
        return None
    exported["sittings"] = [*(sittings(previous) if previous else []),
                            sitting(exported, calls_by_role(added) if previous else None)]
    return exported


_SAME_SITTING = ("output_digests", "claims", "judge_validity", "resolved_sha256")
"""A sitting that adds no call and leaves these as recorded changes nothing; one that changes them (a test split
scored once its choice was committed, with every call answered from the record) is a sitting of its own."""


def _files(folder: Path, record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    names = {n for e in record["stages"].values() for n in [e["keys_file"], *e["shards"]]}
    return {n: {"sha256": sha256_file(folder / n), "bytes": (folder / n).stat().st_size} for n in sorted(names)}


def export_record(folder: str | Path, plans: list[Plan], profile: str, cache_path: str | Path | None = None,
                  log: Any = print) -> dict[str, Any]:
    """Export the stages of `plans` (run under `profile`) into the record at `folder`; returns the record.json."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / RECORD_FILE).exists():
        record = read_record(folder)
    else:
        record = {"format": FORMAT, "version": VERSION, "profile": profile, "stages": {}}
    if record.get("profile") != profile:
        raise RecordError(f"{folder}: a record of profile {record.get('profile')!r}; export profile {profile!r} into "
                          "another folder")
    cache = ResponseCache(cache_path or cache_dir() / "calls.sqlite")
    before = {p for p in folder.rglob("*") if p.is_file()}
    try:
        for p in plans:
            entry = export_stage(p.stage.name, p, folder, record, cache, profile)
            if entry is None:
                log(f"[record] {p.stage.name}: unchanged")
                continue
            record["stages"][p.stage.name] = entry
            log(f"[record] {p.stage.name}: {sum(sum(m.values()) for m in entry['calls'].values())} calls -> "
                f"{entry['keys_file']}")
    except BaseException:  # an export that fails leaves the record as it was: no file that record.json does not list
        for path in {p for p in folder.rglob("*") if p.is_file()} - before:
            path.unlink()
        raise
    record.update(commit=code_commit(), cpu=cpu_description(), updated=time.strftime("%Y-%m-%dT%H:%M:%S"))
    record["files"] = _files(folder, record)
    size = sum(f["bytes"] for f in record["files"].values())
    record["bytes"] = size
    if size > SIZE_CAP_BYTES:
        raise RecordError(f"{folder}: the record would be {size / 2**20:.0f} MiB, over the cap of "
                          f"{SIZE_CAP_BYTES / 2**20:.0f} MiB; record fewer stages or smaller sizes")
    tmp = folder / f".{RECORD_FILE}.tmp"
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False))
    os.replace(tmp, folder / RECORD_FILE)
    for stage in record["stages"]:  # a keys file that a later sitting's (the union) superseded
        for path in (folder / stage).glob("keys.*.jsonl.gz"):
            if f"{stage}/{path.name}" not in record["files"]:
                path.unlink()
    return record


def verify_record(folder: str | Path, stages: list[str]) -> dict[str, Any]:
    """The record.json, after checking that every file it lists is whole and every stage in `stages` is in it;
    raises RecordError naming the file or stage and the fix."""
    folder = Path(folder)
    record = read_record(folder)
    absent = [s for s in stages if s not in record["stages"]]
    if absent:
        raise RecordError(f"{folder}: the record holds no stage {absent} (it has {sorted(record['stages'])}): "
                          f"record them (`llmcreativity run --stage NAME`, then `llmcreativity record export "
                          f"{folder}`) or replay only the recorded stages (--stage)")
    for name, facts in record.get("files", {}).items():
        path = folder / name
        if not path.exists():
            raise RecordError(f"{path}: listed in {RECORD_FILE} but missing: restore it from git or export the "
                              "record again")
        if path.stat().st_size != facts["bytes"] or sha256_file(path) != facts["sha256"]:
            raise RecordError(f"{path}: truncated or altered (its SHA-256 differs from {RECORD_FILE}'s): restore it "
                              "from git (`git checkout -- <path>`) or export the record again")
    return record


Change = tuple[Any, Any]
"""A parameter that differs from the record: (recorded value, value now)."""


def parameter_differences(recorded: dict[str, Any], p: Plan) -> tuple[dict[str, Change], dict[str, Change]]:
    """(generating, analysis): the parameters plan `p`'s notebook declares whose value differs from `recorded` (the
    stage's recorded resolved parameters), name -> (recorded, now), split by kind (`Parameter.analysis`).

    Values are compared as JSON. A generating parameter the record lacks is a difference (it may change a call),
    its recorded value shown as "(none)"; an analysis parameter the record lacks counts as its notebook default (it
    was added after the recording, and an added analysis parameter defaults to what the code did before). Not
    compared: a recorded parameter the notebook no longer declares, since no code reads it any more; for example the
    endpoint settings (`planning.ENDPOINT_OPTIONS`, operational and run-wide since) and minimum sample sizes that
    moved to the claim table (`claim_table.ClaimSpec.min_n`).
    """
    now = json.loads(json.dumps(resolved_parameters(p), default=str))
    generating: dict[str, Change] = {}
    analysis: dict[str, Change] = {}
    for name, value in now.items():
        param = p.declared[name]
        if param.analysis:
            was = recorded.get(name, json.loads(json.dumps(param.default, default=str)))
            if was != value:
                analysis[name] = (was, value)
        elif name not in recorded:
            if not (param.added and value == json.loads(json.dumps(param.default, default=str))):
                generating[name] = ("(none)", value)
        elif recorded[name] != value:
            generating[name] = (recorded[name], value)
    return dict(sorted(generating.items())), dict(sorted(analysis.items()))


def unreplayable_stages(folder: str | Path, plans: list[Plan]) -> dict[str, str]:
    """Stage -> why the record in `folder` does not hold it as `plans` would run it: no record, a record of another
    profile, a stage it lacks, or one recorded with other generating parameters (an interim sitting at a smaller
    size). Empty: the record is a complete run of the plans' profile, which a replay rebuilds without a live call."""
    if not (Path(folder) / RECORD_FILE).exists():
        return {p.stage.name: f"no record at {folder}" for p in plans}
    record = read_record(folder)
    why: dict[str, str] = {}
    for p in plans:
        entry = record["stages"].get(p.stage.name)
        if record["profile"] != p.profile:
            why[p.stage.name] = f"the record is of profile {record['profile']!r}, not {p.profile!r}"
        elif entry is None:
            why[p.stage.name] = "not recorded yet"
        elif generating := parameter_differences(entry["resolved_parameters"], p)[0]:
            why[p.stage.name] = f"recorded with other generating parameters ({describe_changes(generating, 3)})"
    return why


def describe_changes(changes: dict[str, Change], most: int | None = None) -> str:
    """`name: recorded X, now Y` for each change, comma-separated (the first `most` when given)."""
    shown = list(changes.items())[:most]
    return ", ".join(f"{k}: recorded {was!r}, now {now!r}" for k, (was, now) in shown)


def check_parameters(record: dict[str, Any], plans: list[Plan], folder: Path) -> None:
    """Refuse a replay whose planned *generating* parameters differ from the recorded ones (naming stage, parameters
    and the fix); analysis parameters may differ, since they change no model call (`parameters`).

    A replay answers every call from the record, so a changed generating parameter would only miss: the message
    names the mode that computes the changed calls, a run live against the record (`run --from-record`).
    `parameter_differences` says what is compared. An analysis parameter the plan sets otherwise than the recording
    did (a `-p` of the recorded run, or of this one) re-analyses the record, and the manifest, the `[replay]` line
    and the claims page say so; `-p NAME VALUE` with the recorded value reproduces the record instead.
    """
    for p in plans:
        generating, _ = parameter_differences(record["stages"][p.stage.name]["resolved_parameters"], p)
        if generating:
            can = sorted(n for n, q in p.declared.items() if q.analysis)
            raise RecordError(
                f"stage {p.stage.name!r}: the parameters differ from the record {folder} in generating parameters, "
                f"which change model calls ({describe_changes(generating, 4)}). A replay answers every call from the "
                f"record, so it changes analysis parameters only (this stage's: {', '.join(can) or 'none'}). To "
                f"compute the changed calls, run live against the record: the same command with `--from-record "
                f"{folder}` in place of `--replay` (it prints the projected cost first); or replay with the recorded "
                "values (-p NAME VALUE), or re-record the stage")


def import_record(folder: str | Path, target: str | Path, stages: list[str] | None = None, *,
                  fresh: bool = True) -> ResponseCache:
    """Load the answers of the record at `folder` into the call cache `target`, after `verify_record`.

    `fresh`: make `target` anew (a replay's own cache); False adds the answers to an existing cache (the user's).
    `stages`: those that must be in the record (None: every recorded stage).
    """
    folder = Path(folder)
    record = verify_record(folder, stages or [])
    stages = list(record["stages"]) if stages is None else stages
    target = Path(target)
    if fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    cache = ResponseCache(target)
    shards = sorted({s for e in record["stages"].values() for s in e["shards"]})
    for shard in shards:
        path = folder / shard
        if path.suffix == ".npz":
            items = [(k, base64.b64encode(v.tobytes()).decode("ascii")) for k, v in _load_embeddings(path)]
        else:
            items = [(row["key"], row["payload"]) for row in _read_gz_jsonl(path)]
        cache.put_many(items)
    for stage in stages:
        entry = record["stages"][stage]
        wanted = {k for row in _read_gz_jsonl(folder / entry["keys_file"]) for k in row["keys"]}
        held = {k for k in wanted if cache.get(k) is not None}
        if held != wanted:
            raise RecordError(f"{folder}: stage {stage!r} lists {len(wanted - held)} call(s) whose answers no shard "
                              "holds: the record is incomplete; export it again")
    return cache


def _calls(entry: dict[str, Any]) -> int:
    """Distinct calls a stage asked for, over its roles and methods (a manifest entry's `calls`)."""
    return sum(n for m in entry.get("calls", {}).values() for n in m.values())


def record_summary(record: dict[str, Any], stages: dict[str, Any], run_id: str) -> list[str]:
    """One line per stage that run `run_id` ran against `record` (its manifest entries `stages`): a replay's calls
    asked against the record's count per role and method, its spot check (compared, matched, worst difference) and
    the analysis parameters it changed; a live run's calls from the record and new ones, and the generating
    parameters it changed."""
    lines = []
    for name, entry in stages.items():
        against = entry.get("against_record", {})
        if against.get("run") != run_id:
            continue
        counted = entry.get("record_calls", {})
        if against.get("mode") == "live":
            changed = describe_changes(against.get("generating_changed", {})) or "none"
            lines.append(f"[from-record] {name}: {entry.get('status')} in {entry.get('seconds')} s, "
                         f"{counted.get('from_record', 0)} calls from the record, {counted.get('new', 0)} new; "
                         f"generating parameters changed: {changed}")
            continue
        asked, recorded = entry.get("calls", {}), record["stages"][name]["calls"]
        same = "the recorded calls" if asked == recorded else f"calls {asked} but the record has {recorded}"
        spot = entry.get("spot_check", {})
        worst = ", ".join(f"{m} {w:.2g}" for m, w in sorted(spot.get("worst", {}).items())) or "-"
        analysis = describe_changes(against.get("analysis_changed", {}))
        lines.append(f"[replay] {name}: {entry.get('status')} in {entry.get('seconds')} s, {same}; spot check "
                     f"{spot.get('matched', 0)}/"
                     f"{spot.get('compared', 0)} matched (worst difference: {worst})"
                     + (f"; re-analysed with {analysis}" if analysis else ""))
    return lines


def record_origin(entry: dict[str, Any]) -> str:
    """What a stage's manifest entry says about the record it ran against, for a claim of that stage: "recorded"
    (every call it asked was in the record: a replay, or a live run that asked nothing new) or "fresh: N of M calls
    new" (a live run that computed calls the record does not hold), then the analysis parameters it was re-analysed
    with (`; re-analysed with name: recorded X, now Y`); "" when it ran against no record."""
    if "against_record" not in entry:
        return ""
    new = entry.get("record_calls", {}).get("new", 0)
    origin = "recorded" if not new else f"fresh: {new} of {_calls(entry)} calls new"
    analysis = describe_changes(entry["against_record"].get("analysis_changed", {}))
    return origin + (f"; re-analysed with {analysis}" if analysis else "")


def _live_counts(name: str, entry: dict[str, Any]) -> str:
    """`name: N calls from the record, M new (the generating parameters changed)` of a live stage's entry."""
    counted, changed = entry.get("record_calls", {}), entry["against_record"].get("generating_changed", {})
    return (f"{name}: {counted.get('from_record', 0):,} calls from the record, {counted.get('new', 0):,} new"
            + (f" ({describe_changes(changed)})" if changed else ""))


def record_provenance(record: dict[str, Any]) -> str:
    """One sentence naming the run a record holds: its run ids (one per sitting that ran a stage), the dates of its
    first and last stage run, the code commits, the machine it was recorded on and its computing hours (the sum of
    the wall times of every stage's sittings, `stage_seconds`)."""
    stages = record.get("stages", {})
    ran = [s for e in stages.values() for s in sittings(e)]
    runs = sorted({s.get("run_id", "") for s in ran} - {""})
    days = sorted({f"{r[:4]}-{r[4:6]}-{r[6:8]}" for r in runs})  # a run id starts with its date, YYYYMMDD
    span = " to ".join(dict.fromkeys([days[0], days[-1]])) if days else "undated"
    commits = sorted({str(s.get("commit", ""))[:7] for s in ran} - {""})
    hours = sum(stage_seconds(e) for e in stages.values()) / 3600
    cpu = record.get("cpu", {})
    machine = f"{cpu.get('model', 'an unnamed CPU')}, {cpu.get('cores', '?')} cores"
    return (f"The record holds {len(stages)} stage(s) of profile `{record.get('profile', '?')}` from "
            f"{len(runs)} run(s) ({', '.join(f'`{r}`' for r in runs)}; {span}), code commit(s) "
            f"{', '.join(f'`{c}`' for c in commits) or 'unknown'}, recorded on {machine}: {hours:.2f} hours of "
            "computing (the wall times of the sittings that recorded its stages).")


def _shown(folder: str) -> str:
    """A record folder as the page names it: its path in the repository (`published/run`), else its name."""
    try:
        return str(Path(folder).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return Path(folder).name


def record_markdown(stages: dict[str, Any]) -> str:
    """Sentences for the claims page about the stages run against a record (`stages`: the manifest entries): a
    replay's record and run, the calls answered from it, the live spot check, the analysis parameters a stage was
    re-analysed with; a live run's calls from the record and new ones per stage; "" for a plain live run."""
    replayed = {n: e for n, e in stages.items() if e.get("replay")}
    live = {n: e for n, e in stages.items() if e.get("against_record", {}).get("mode") == "live"}
    out = []
    if replayed:
        records = sorted({_shown(e["replay"]["record"]) for e in replayed.values()})
        runs = sorted({e.get("run_id", "") for e in replayed.values()})
        calls = sum(_calls(e) for e in replayed.values())
        spots = [e.get("spot_check", {}) for e in replayed.values()]
        compared, matched = sum(s.get("compared", 0) for s in spots), sum(s.get("matched", 0) for s in spots)
        worst: dict[str, float] = {}
        for s in spots:
            for method, w in s.get("worst", {}).items():
                worst[method] = max(worst.get(method, 0.0), w)
        shown = "; ".join(f"{m} {w:.2g}" for m, w in sorted(worst.items())) or "none"
        out.append(f"These results were rebuilt from the record {', '.join(f'`{r}`' for r in records)} of run(s) "
                   f"{', '.join(f'`{r}`' for r in runs)}: {len(replayed)} stage(s), {calls:,} model calls answered "
                   f"from the record. Live spot check: {compared} recorded calls computed again, {matched} matched "
                   f"within tolerance (largest difference by method: {shown}).")
        for folder in sorted({e["replay"]["record"] for e in replayed.values()}):
            try:
                out.append(record_provenance(read_record(folder)))
            except (OSError, ValueError):
                out.append(f"(The record `{Path(folder).name}` could not be read for its provenance.)")
        reanalysed = {n: e["against_record"]["analysis_changed"] for n, e in replayed.items()
                      if e.get("against_record", {}).get("analysis_changed")}
        if reanalysed:
            out.append("Re-analysed against the record, no call computed: " + "; ".join(
                f"{n} with {describe_changes(c)}" for n, c in reanalysed.items()) + ".")
    if live:
        records = sorted({_shown(e["against_record"]["record"]) for e in live.values()})
        out.append(f"Run live against the record {', '.join(f'`{r}`' for r in records)} (the calls it holds answered "
                   "from it, the others computed): " + "; ".join(_live_counts(n, e) for n, e in live.items()) + ".")
    return " ".join(out)


WALL_CLOCK_CLAIM_FIELDS = ("recorded_at",)
"""Fields of a claims or judge-validity record that a replay does not reproduce: the time the record was written (a
replayed stage runs under the recorded run id, so the run id itself must match)."""


def replay_differences(record: dict[str, Any], stages: dict[str, Any], results: Path) -> dict[str, list[str]]:
    """What a replay rebuilt differently from the record, per stage it ran (`stages`: the replay's manifest entries;
    `results`: its `results_dir(profile)`): output files whose content differs beyond their wall-clock fields
    (`output_digest`) or that are missing, and claims or judge-validity records that differ beyond
    `WALL_CLOCK_CLAIM_FIELDS`. Empty lists: the replay rebuilt the recorded outputs exactly."""
    out: dict[str, list[str]] = {}
    claims = read_jsonl(results / "claims.jsonl")
    validity = read_jsonl(results / "judge_validity.jsonl")
    for name, recorded in record["stages"].items():
        if name not in stages:
            continue
        problems = []
        for rel, digest in sorted(recorded.get("output_digests", {}).items()):
            now = output_digest(results / rel) if (results / rel).exists() else None
            if now != digest:
                problems.append(f"{rel}: {'missing' if now is None else 'differs'}")
        for key, rows in (("claims", claims), ("judge_validity", validity)):
            if comparable_records(recorded.get(key, []), name) != comparable_records(rows, name):
                problems.append(f"{key} records differ")
        out[name] = problems
    return out


def comparable_records(rows: list[dict[str, Any]], stage: str) -> list[str]:
    """A stage's claims or judge-validity records without their wall-clock fields, as sorted JSON texts."""
    return sorted(json.dumps({k: v for k, v in r.items() if k not in WALL_CLOCK_CLAIM_FIELDS}, sort_keys=True)
                  for r in rows if r.get("stage") == stage)


WALL_CLOCK_OUTPUT_FIELDS = frozenset({"sample_seconds", "cluster_seconds", "seconds", "recorded_at", "executed_at",
                                      "cached"})
"""Fields and columns of output files that describe how the run went rather than what it computed: its wall clock (a
chain step's sampling and clustering seconds, a judge sweep's seconds), its dates, and whether a call came from the
cache (every call does in a replay). They are left out of `output_digest`; every other field must be rebuilt
exactly."""


def _without_wall_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_wall_clock(v) for k, v in value.items() if k not in WALL_CLOCK_OUTPUT_FIELDS}
    if isinstance(value, list):
        return [_without_wall_clock(v) for v in value]
    return value


def output_digest(path: Path) -> str:
    """SHA-256 of an output file's content without its wall-clock fields (`WALL_CLOCK_OUTPUT_FIELDS`): JSON Lines
    and JSON by their parsed values, CSV and Parquet by their table without those columns, anything else by its
    bytes."""
    import hashlib

    import pandas as pd

    suffix = path.suffix.lower()
    if suffix in (".csv", ".parquet"):
        table = pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
        table = table.drop(columns=[c for c in table.columns if c in WALL_CLOCK_OUTPUT_FIELDS])
        text = table.to_json(orient="split", date_format="iso", double_precision=15, default_handler=str)
    elif suffix in (".jsonl", ".json"):
        rows = read_jsonl(path) if suffix == ".jsonl" else json.loads(path.read_text(encoding="utf-8"))
        text = json.dumps(_without_wall_clock(rows), sort_keys=True, ensure_ascii=False)
    else:
        return sha256_file(path)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def output_digests(outputs: dict[str, str], results: Path) -> dict[str, str]:
    """`output_digest` of each output file a stage wrote (paths relative to `results`) that still exists."""
    return {rel: output_digest(results / rel) for rel in sorted(outputs) if (results / rel).exists()}
