"""How a run compares with a record: the parameters that differ from the recorded ones (and which of them a replay
may change), whether a record holds every stage as a plan would run it, and what a replay rebuilt differently from
the record (`replay_differences`, over output digests that leave out wall-clock fields).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..hashing import sha256_file
from ..jsonl import read_jsonl
from ..record_file import RECORD_FILE, JsonObject, Record, RecordError, read_record
from .planning import Plan


def resolved_parameters(p: Plan, ran: JsonObject | None = None) -> JsonObject:
    """Every parameter the stage's notebook declares, with the value it runs with (defaults included); with `ran`
    (a manifest entry's parameters), the values that run used instead of the plan's: a sitting that ran a stage at
    an interim size (-p) is so recorded at that size, not at the profile's."""
    given = p.parameters if ran is None else ran
    return {name: given.get(name, param.default) for name, param in p.declared.items()}


Change = tuple[Any, Any]
"""A parameter that differs from the record: (recorded value, value now)."""


def parameter_differences(recorded: JsonObject, p: Plan) -> tuple[dict[str, Change], dict[str, Change]]:
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
        entry = record.stages.get(p.stage.name)
        if record.profile != p.profile:
            why[p.stage.name] = f"the record is of profile {record.profile!r}, not {p.profile!r}"
        elif entry is None:
            why[p.stage.name] = "not recorded yet"
        elif generating := parameter_differences(entry.resolved_parameters, p)[0]:
            why[p.stage.name] = f"recorded with other generating parameters ({describe_changes(generating, 3)})"
    return why


def describe_changes(changes: Mapping[str, Sequence[Any]], most: int | None = None) -> str:
    """`name: recorded X, now Y` for each change, comma-separated (the first `most` when given)."""
    shown = list(changes.items())[:most]
    return ", ".join(f"{k}: recorded {was!r}, now {now!r}" for k, (was, now) in shown)


def check_parameters(record: Record, plans: list[Plan], folder: Path) -> None:
    """Refuse a replay whose planned *generating* parameters differ from the recorded ones (naming stage, parameters
    and the fix); analysis parameters may differ, since they change no model call (`parameters`).

    A replay answers every call from the record, so a changed generating parameter would only miss: the message
    names the mode that computes the changed calls, a run live against the record (`run --from-record`).
    `parameter_differences` says what is compared. An analysis parameter the plan sets otherwise than the recording
    did (a `-p` of the recorded run, or of this one) re-analyses the record, and the manifest, the `[replay]` line
    and the claims page say so; `-p NAME VALUE` with the recorded value reproduces the record instead.
    """
    for p in plans:
        generating, _ = parameter_differences(record.stages[p.stage.name].resolved_parameters, p)
        if generating:
            can = sorted(n for n, q in p.declared.items() if q.analysis)
            raise RecordError(
                f"stage {p.stage.name!r}: the parameters differ from the record {folder} in generating parameters, "
                f"which change model calls ({describe_changes(generating, 4)}). A replay answers every call from the "
                f"record, so it changes analysis parameters only (this stage's: {', '.join(can) or 'none'}). To "
                f"compute the changed calls, run live against the record: the same command with `--from-record "
                f"{folder}` in place of `--replay` (it prints the projected cost first); or replay with the recorded "
                "values (-p NAME VALUE), or re-record the stage")


WALL_CLOCK_CLAIM_FIELDS = ("recorded_at",)
"""Fields of a claims or judge-validity record that a replay does not reproduce: the time the record was written (a
replayed stage runs under the recorded run id, so the run id itself must match)."""


def replay_differences(record: Record, stages: Collection[str], results: Path) -> dict[str, list[str]]:
    """What a replay rebuilt differently from the record, per stage it ran (`stages`: the stages the replay ran, e.g.
    its manifest's; `results`: its `results_dir(profile)`): output files whose content differs beyond their
    wall-clock fields (`output_digest`) or that are missing, and claims or judge-validity records that differ beyond
    `WALL_CLOCK_CLAIM_FIELDS`. Empty lists: the replay rebuilt the recorded outputs exactly."""
    out: dict[str, list[str]] = {}
    claims = read_jsonl(results / "claims.jsonl")
    validity = read_jsonl(results / "judge_validity.jsonl")
    for name, recorded in record.stages.items():
        if name not in stages:
            continue
        problems = []
        for rel, digest in sorted(recorded.output_digests.items()):
            now = output_digest(results / rel) if (results / rel).exists() else None
            if now != digest:
                problems.append(f"{rel}: {'missing' if now is None else 'differs'}")
        for key, kept, rows in (("claims", recorded.claims, claims), ("judge_validity", recorded.judge_validity,
                                                                       validity)):
            if comparable_records(kept, name) != comparable_records(rows, name):
                problems.append(f"{key} records differ")
        out[name] = problems
    return out


def comparable_records(rows: Iterable[JsonObject], stage: str) -> list[str]:
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
