"""What a stage costs under other parameters, extrapolated from a measured run: the paper profile's token use from a
run's token accounting, and a run against a record's seconds from the record.

For stage s, with parameters p (the measured run's) and q (the target's):

    tokens_q(s) = tokens_p(s) x units(q) / units(p) x length(q) / length(p)
    seconds_q(s) = seconds_p(s) x units(q) / units(p) x length(q) / length(p)

`tokens_p` is what the run report says the stage's language-model calls needed: prompt plus completion
tokens, those the cache answered counted as they were when computed, so a warm run projects like a cold one.
`units` counts the stage's independent pieces of work (prompts written for, chains sampled, items judged) and
`length` how much one piece costs relative to another (story words, discussion rounds, samples per step); both
are products of the stage's parameters (its `Stage.scale`). Tokens per unit are assumed constant otherwise, so the
projection is an order of magnitude, not a quote: it ignores, for instance, that a longer story makes every
later prompt that quotes it longer too. The scale functions read the stage's parameters and, as `STAGE.NAME`, those
of the stages it reads from (`scale_parameters`), since some work is counted in an upstream stage's items (the
judge-validation stage judges every chain the semantic-entropy stage sampled).

The seconds of a run live against a record (`seconds_projection`, printed before it starts) are an upper bound:
the recorded stage's wall time, cold, scaled to the new parameters; the calls the record holds are answered from
it, so a stage whose generating parameters are the recorded ones asks nothing new and takes a replay's time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..record_file import Record, read_record
from .manifest import read_manifest
from .order import ordered_stages
from .planning import Plan, declared_parameters
from .run_report import StageReport, read_run_report
from .stages import Scale, Stage


@dataclass(frozen=True)
class Projection:
    """One stage's projected token use."""

    stage: str
    """Stage name."""
    measured_tokens: int
    """Prompt plus completion tokens its language-model calls needed in the measured run (cached ones included)."""
    units_formula: str
    """What `units` counts."""
    units_measured: float
    """Units of work in the measured run."""
    units_target: float
    """Units of work in the target profile."""
    length_formula: str
    """What `length` weighs ("" when constant)."""
    length_ratio: float
    """length(target) / length(measured)."""
    projected_tokens: float
    """measured_tokens x units_target / units_measured x length_ratio."""


def scale_parameters(stage: Stage, resolved: dict[str, dict[str, Any]],
                     stages: list[Stage] | None = None) -> dict[str, Any]:
    """What `stage`'s scale functions read: its own resolved parameters (`resolved[stage.name]`), and those of each
    stage it reads from as `STAGE.NAME` (the `-p STAGE.NAME` spelling); an upstream stage missing from `resolved`
    contributes its notebook defaults."""
    by_name = {s.name: s for s in ordered_stages(stages)}
    values = dict(resolved[stage.name])
    for name in stage.depends:
        upstream = resolved[name] if name in resolved else stage_parameters(by_name[name], {})
        values.update({f"{name}.{k}": v for k, v in upstream.items()})
    return values


def work_ratio(scale: Scale, measured: dict[str, Any], target: dict[str, Any]) -> tuple[float, float, float]:
    """(units measured, units target, length target / length measured) of one stage's `scale`."""
    return scale.units(measured), scale.units(target), scale.length(target) / scale.length(measured)


def project(rows: list[StageReport], measured: dict[str, dict[str, Any]],
            target: dict[str, dict[str, Any]], stages: list[Stage] | None = None) -> list[Projection]:
    """The projection of every stage of `rows` that has a scale (`Stage.scale` of `stages`, default every stage) and
    ran in both parameter sets (stage -> resolved parameters; upstream stages' as `scale_parameters` reads them)."""
    ordered = ordered_stages(stages)
    by_name = {s.name: s for s in ordered}
    out = []
    for r in rows:
        stage = by_name.get(r.stage)
        if stage is None or stage.scale is None or r.stage not in measured or r.stage not in target:
            continue
        scale = stage.scale
        tokens = r.prompt_tokens + r.completion_tokens + r.cached_tokens
        units_p, units_q, ratio = work_ratio(scale, scale_parameters(stage, measured, ordered),
                                             scale_parameters(stage, target, ordered))
        out.append(Projection(r.stage, tokens, scale.units_formula, units_p, units_q, scale.length_formula, ratio,
                              tokens * units_q / units_p * ratio if units_p else math.nan))
    return out


def projection_markdown(projections: list[Projection], measured_profile: str, target_profile: str,
                        run_id: str) -> str:
    """A Markdown table of the projection with its arithmetic per stage, and the total over the stages that measured
    something. A stage whose run made no language-model call (its outputs were read back from the results folder,
    as in a warm re-run) measured no tokens: it is listed, not projected."""
    if not projections:
        return f"*Run `{run_id}` has no stage with a known scale to project to the `{target_profile}` profile.*"
    lines = [f"Tokens measured in run `{run_id}` (profile `{measured_profile}`), projected to the `{target_profile}` "
             "profile:", "",
             "| stage | tokens measured | units of work | length factor | projected tokens |",
             "|---|---:|---:|---:|---:|"]
    measured = [p for p in projections if p.measured_tokens > 0]
    for p in projections:
        length = f"x{p.length_ratio:.3g}" if p.length_formula else "–"
        projected = f"{p.projected_tokens:,.0f}" if p.measured_tokens > 0 else "not measured"
        lines.append(f"| {p.stage} | {p.measured_tokens:,} | {p.units_measured:g} → {p.units_target:g} | {length} "
                     f"| {projected} |")
    total_m = sum(p.measured_tokens for p in measured)
    total_q = sum(p.projected_tokens for p in measured)
    lines.append(f"| **total** | **{total_m:,}** | | | **{total_q:,.0f}** |")
    lines.append("")  # what a unit and the length factor count stands beneath: in a column it squeezes the table
    formulas = [f"- {p.stage}: {p.units_formula}" + (f"; length: {p.length_formula}" if p.length_formula else "")
                for p in projections]
    unmeasured = [p.stage for p in projections if p.measured_tokens == 0]
    if unmeasured:
        lines += [f"Not projected, and left out of the total: {', '.join(unmeasured)}. That run made no "
                  "language-model call there (the outputs were read back from the results folder), so it measured "
                  "no tokens; the report of a cold run projects every stage.", ""]
    return "\n".join(lines + ["What each stage's units of work and length factor count:", "", *formulas])


def stage_parameters(stage: Stage, values: dict[str, Any]) -> dict[str, Any]:
    """Every parameter of `stage`: its notebook's defaults with `values` (a profile's, or a run's) on top."""
    return {name: p.default for name, p in declared_parameters(stage).items()} | values


def paper_projection_markdown(profile: str = "default", target: str = "paper",
                              stages: list[Stage] | None = None) -> str:
    """`projection_markdown` of `profile`'s latest run (its run report, with the parameters each stage ran with,
    from the manifest) projected to `target`'s parameters."""
    rows, entries = read_run_report(profile), read_manifest(profile).stages
    if not rows:
        return f"*No run of the `{profile}` profile has written its run report yet: run `llmcreativity run` first.*"
    ordered = ordered_stages(stages)
    measured = {s.name: stage_parameters(s, entries[s.name].parameters) for s in ordered
                if s.name in entries}
    wanted = {s.name: stage_parameters(s, s.profiles[target]) for s in ordered if target in s.profiles}
    runs = ", ".join(sorted({r.run_id for r in rows if r.stage in measured}))
    return projection_markdown(project(rows, measured, wanted, ordered), profile, target, runs)


@dataclass(frozen=True)
class SecondsProjection:
    """One stage of a run live against a record: its recorded seconds scaled to the new parameters."""

    stage: str
    """Stage name."""
    recorded_seconds: float
    """The recorded stage's wall time (the record's `seconds`)."""
    changed: tuple[str, ...]
    """The generating parameters that differ from the recorded ones; none: every call comes from the record."""
    units_formula: str
    """What `units` counts."""
    units_recorded: float
    """Units of work of the recorded parameters."""
    units_target: float
    """Units of work of the new parameters."""
    length_formula: str
    """What `length` weighs ("" when constant)."""
    length_ratio: float
    """length(new) / length(recorded)."""

    @property
    def projected_seconds(self) -> float:
        """recorded seconds x units_target / units_recorded x length_ratio; 0 when no generating parameter changed
        (nothing new is computed: a replay's time, not projected)."""
        if not self.changed:
            return 0.0
        return self.recorded_seconds * self.units_target / self.units_recorded * self.length_ratio \
            if self.units_recorded else math.nan


def seconds_projection(record: Record, plans: list[Plan],
                       stages: list[Stage] | None = None) -> list[SecondsProjection]:
    """Per planned stage, the record's seconds (of all its sittings, `RecordedStage.computing_seconds`) scaled by its
    `Stage.scale` from the recorded resolved parameters to the planned ones (upstream stages that do not run keep
    their recorded values), with the generating parameters that changed (`record_compare.parameter_differences`)."""
    from .record_compare import parameter_differences, resolved_parameters

    ordered = ordered_stages(stages)
    # every parameter each recorded stage declares now: a parameter added since the recording has its default
    recorded = {s.name: stage_parameters(s, record.stages[s.name].resolved_parameters) for s in ordered
                if s.name in record.stages}
    target = recorded | {p.stage.name: resolved_parameters(p) for p in plans}
    out = []
    for p in plans:
        entry, scale = record.stages[p.stage.name], p.stage.scale
        generating, _ = parameter_differences(entry.resolved_parameters, p)
        units_p, units_q, ratio = (work_ratio(scale, scale_parameters(p.stage, recorded, ordered),
                                              scale_parameters(p.stage, target, ordered))
                                   if scale is not None else (math.nan, math.nan, math.nan))
        out.append(SecondsProjection(p.stage.name, entry.computing_seconds(), tuple(generating),
                                     scale.units_formula if scale else "(no scale)", units_p, units_q,
                                     scale.length_formula if scale else "", ratio))
    return out


def seconds_lines(projections: list[SecondsProjection]) -> list[str]:
    """The projection as the lines `run --from-record` prints before it starts: per stage the recorded seconds, the
    changed generating parameters and the projected seconds with its arithmetic, then the total."""
    lines = []
    for c in projections:
        if not c.changed:
            lines.append(f"[cost] {c.stage}: no generating parameter changed: every call from the record "
                         f"(recorded {c.recorded_seconds:.0f} s cold; now a replay's time)")
            continue
        length = f" x {c.length_formula} x{c.length_ratio:.3g}" if c.length_formula else ""
        lines.append(f"[cost] {c.stage}: {', '.join(c.changed)} changed: at most {c.projected_seconds:,.0f} s "
                     f"(recorded {c.recorded_seconds:.0f} s x {c.units_formula} {c.units_recorded:g} -> "
                     f"{c.units_target:g}{length}; calls the record holds are answered from it)")
    total = sum(c.projected_seconds for c in projections if not math.isnan(c.projected_seconds))
    lines.append(f"[cost] projected at most {total:,.0f} s ({total / 60:.1f} minutes) of new model work")
    return lines


# --- calls, tokens and hours per stage, from a calibration record -------------------------------------------------

CALIBRATION = "calibration"
"""The folder under the results root (`paths.results_root()`) where `calibration_command` exports its record; a dry
run takes its per-call costs from there before any committed record."""


def calibration_folder() -> Path:
    """`CALIBRATION` under the results root."""
    from ..paths import results_root

    return results_root() / CALIBRATION


def calibration_command() -> str:
    """The short calibration run the dry run offers: the smoke profile live on this machine (a few minutes; a record
    of it is `tests/data/records/smoke`), exported as the record whose per-call costs the next dry run reads."""
    return (f"llmcreativity run --profile smoke && llmcreativity record export {calibration_folder()} "
            "--profile smoke")


@dataclass(frozen=True)
class CallCost:
    """Distinct calls of one role and method of a stage in a record, with what they cost when first computed."""

    calls: float
    """Distinct calls (keys), as `record.json`'s `calls` counts them."""
    requests: float
    """Prompts asked for them: a `generate` of n samples is n calls and one request."""
    seconds: float
    """Their per-call seconds summed (each stored answer's `usage.seconds`; embeddings store none: 0)."""
    prompt_tokens: float
    """Prompt tokens, once per call asked (a `generate` of n samples counts its prompt once, as the usage rows do)."""
    completion_tokens: float
    """Completion tokens, summed over samples."""

    def plus(self, other: CallCost) -> CallCost:
        """Both summed."""
        return CallCost(self.calls + other.calls, self.requests + other.requests, self.seconds + other.seconds,
                        self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)

    def __add__(self, other: CallCost) -> CallCost:
        return self.plus(other)

    def scaled(self, calls: float, requests: float, per_call: float) -> CallCost:
        """Calls and completion tokens times `calls`, requests, seconds and prompt tokens times `requests`, seconds
        and tokens also times `per_call` (the relative cost of one call). Seconds follow the requests: the local
        engines decode a request's n samples as one batch, and on these CPUs decoding is bound by reading the
        weights, so a batch of n costs far less than n requests (the published run's semantic-entropy chains took
        0.8 s a sample at 6 samples a request, the re-decision's 0.4 s at 10)."""
        return CallCost(self.calls * calls, self.requests * requests, self.seconds * requests * per_call,
                        self.prompt_tokens * requests * per_call, self.completion_tokens * calls * per_call)


NO_COST = CallCost(0, 0, 0.0, 0, 0)

RoleCosts = dict[tuple[str, str], CallCost]
"""(role, method) -> its calls and their costs, for one stage."""


def record_call_costs(folder: str | Path) -> dict[str, RoleCosts]:
    """Per stage of the record in `folder`, per role and method: the distinct calls of its keys file and the
    seconds and tokens their stored answers took when first computed (any stage's shard may hold an answer; a key
    counts once per stage, in the first role that asked, as `record_export.calls_by_role` counts)."""
    from .record_export import _read_gz_jsonl

    folder = Path(folder)
    record = read_record(folder)
    usage: dict[str, dict[str, Any]] = {}
    for entry in record.stages.values():
        for shard in entry.shards:
            if shard.endswith(".jsonl.gz"):
                for row in _read_gz_jsonl(folder / shard):
                    payload = row["payload"]
                    if isinstance(payload, dict) and isinstance(payload.get("usage"), dict):
                        usage[row["key"]] = payload["usage"]
    out: dict[str, RoleCosts] = {}
    for name, entry in record.stages.items():
        costs: RoleCosts = {}
        seen: set[str] = set()
        for row in _read_gz_jsonl(folder / entry.keys_file):
            new = [k for k in row["keys"] if k not in seen]
            if not new:
                continue
            seen.update(new)
            found = [usage[k] for k in new if k in usage]
            cost = CallCost(len(new), 1, sum(float(u.get("seconds", 0.0)) for u in found),
                            int(found[0].get("prompt_tokens", 0)) if found else 0,
                            sum(int(u.get("completion_tokens", 0)) for u in found))
            key = (row.get("role") or "(none)", row["method"])
            costs[key] = costs.get(key, NO_COST).plus(cost)
        out[name] = costs
    return out


def default_calibration() -> Path | None:
    """Where per-call costs come from: this machine's calibration record (`calibration_folder()`) when one was
    exported, else the newest complete committed record (the claims' re-decision's, else the published run's:
    `paths.RECORDS`), else None."""
    from ..paths import DECISIVE_RECORD, PUBLISHED_RECORD, REPO_ROOT

    if (calibration_folder() / "record.json").exists():
        return calibration_folder()
    names = {s.name for s in ordered_stages(None)}
    for folder in (DECISIVE_RECORD, PUBLISHED_RECORD):
        path = REPO_ROOT / folder
        if (path / "record.json").exists() and names <= set(read_record(path).stages):
            return path
    return None


@dataclass(frozen=True)
class CallProjection:
    """One stage's projected calls, tokens and seconds."""

    stage: str
    """Stage name."""
    cost: CallCost
    """Projected calls, per-call seconds summed, prompt and completion tokens."""
    calibration_calls: float
    """The calibration record's calls of the stage."""
    notes: tuple[str, ...] = ()
    """Roles projected otherwise than by the ratio: new in the target, or not declared by the stage's `calls`."""

    @property
    def hours(self) -> float:
        """Projected hours (one call after another, as the record's per-call seconds were measured)."""
        return self.cost.seconds / 3600


def _mean_cost(costs: dict[str, RoleCosts], role: str) -> CallCost:
    """Cost of one call of `role` over every stage of the calibration record, else of any language-model call."""
    same = [c for by in costs.values() for (r, _), c in by.items() if r == role and c.calls]
    pool = same or [c for by in costs.values() for c in by.values() if c.calls and c.seconds]
    total = sum(pool[1:], pool[0]) if pool else NO_COST
    return total.scaled(1 / total.calls, 1 / total.calls, 1.0) if total.calls else NO_COST


def project_calls(costs: dict[str, RoleCosts], calibrated: dict[str, dict[str, Any]],
                  target: dict[str, dict[str, Any]], stages: list[Stage] | None = None) -> list[CallProjection]:
    """Per stage of `target` (stage -> resolved parameters) with a `Scale.calls`: each role's calls in the
    calibration record (`costs`, run with `calibrated`) times calls(target) / calls(calibrated) of that role, with
    their seconds and tokens times that and per_call(target) / per_call(calibrated). A role the record lacks at
    the stage (or the formula gives 0 there) takes the formula's count at the mean per-call cost of that role in
    the record (else of any language-model call); a recorded role the formula does not name scales by `units`."""
    ordered = ordered_stages(stages)
    out = []
    for stage in ordered:
        scale = stage.scale
        if stage.name not in target or scale is None or scale.calls is None:
            continue
        q = scale_parameters(stage, target, ordered)
        recorded = costs.get(stage.name, {})
        p = scale_parameters(stage, calibrated, ordered) if stage.name in calibrated else q
        f_p = scale.calls(p) if stage.name in calibrated else {}
        f_q = scale.calls(q)
        r_p, r_q = (scale.requests(p), scale.requests(q)) if scale.requests else (f_p, f_q)
        per_call = scale.per_call(q) / scale.per_call(p)
        total, notes = NO_COST, []
        roles = {r for r, _ in recorded} | set(f_q)
        for role in sorted(roles):
            mine = [c for (r, _), c in recorded.items() if r == role]
            if mine and f_p.get(role, 0) > 0:
                ratio = f_q.get(role, 0) / f_p[role]
                asked = r_q.get(role, 0) / r_p[role] if r_p.get(role, 0) > 0 else ratio
                total = sum((c.scaled(ratio, asked, per_call) for c in mine), total)
            elif mine and role not in f_p and role not in f_q:
                ratio = scale.units(q) / scale.units(p)
                total = sum((c.scaled(ratio, ratio, per_call) for c in mine), total)
                notes.append(f"{role}: not in the calls formula, scaled by {scale.units_formula}")
            elif f_q.get(role, 0) > 0:
                total = total.plus(_mean_cost(costs, role).scaled(f_q[role], r_q.get(role, f_q[role]), per_call))
                notes.append(f"{role}: no recorded call to scale, {f_q[role]:,.0f} calls by the formula at the "
                             "record's mean per-call cost")
        out.append(CallProjection(stage.name, total, sum(c.calls for c in recorded.values()), tuple(notes)))
    return out


def calls_lines(projections: list[CallProjection], record: Record, folder: str | Path, profile: str) -> list[str]:
    """What `run --dry-run` prints: per stage the projected calls, tokens and hours, the total, and what it
    assumed."""
    lines = []
    for c in projections:
        lines.append(f"[cost] {c.stage}: ~{c.cost.calls:,.0f} calls ({c.calibration_calls:,.0f} in the record), "
                     f"~{c.cost.prompt_tokens:,.0f} prompt + {c.cost.completion_tokens:,.0f} completion tokens, "
                     f"~{c.hours:,.2f} h")
        lines += [f"[cost]     {n}" for n in c.notes]
    total = sum((c.cost for c in projections), NO_COST)
    cpu = record.cpu
    machine = f"{cpu.model} ({cpu.cores} cores)" if cpu else "an unrecorded machine"
    lines += [f"[cost] profile {profile}: ~{total.calls:,.0f} calls, ~{total.prompt_tokens:,.0f} prompt + "
              f"{total.completion_tokens:,.0f} completion tokens, ~{total.seconds / 3600:,.1f} h",
              f"[cost] assumed: per-call seconds and tokens of the record {folder} (profile {record.profile}, "
              f"recorded on {machine}, with its stages' engines and models), each role's calls scaled by the "
              "stage's calls formula (`Scale.calls`) from the record's parameters; hours are those calls one after "
              "another on that machine (embeddings store no time and count none), and the whole is an order of "
              "magnitude, not a quote; a cache or a record answers some calls for nothing",
              f"[cost] per-call costs of this machine: `{calibration_command()}` (the smoke profile, a few "
              "minutes), then this dry run again"]
    return lines


def dry_run_cost(plans: list[Plan], profile: str, folder: str | Path | None = None,
                 stages: list[Stage] | None = None) -> list[str]:
    """`calls_lines` of the planned stages (stages not planned keep `profile`'s parameters) against the record in
    `folder` (default `default_calibration()`), or the line saying how to calibrate when there is none."""
    from .record_compare import resolved_parameters

    folder = default_calibration() if folder is None else Path(folder)
    if folder is None:
        return [f"[cost] no complete record to take per-call costs from: `{calibration_command()}`"]
    record = read_record(folder)
    ordered = ordered_stages(stages)
    calibrated = {s.name: stage_parameters(s, record.stages[s.name].resolved_parameters) for s in ordered
                  if s.name in record.stages}
    target = {s.name: stage_parameters(s, s.profiles.get(profile, {})) for s in ordered}
    target |= {p.stage.name: resolved_parameters(p) for p in plans}
    planned = {p.stage.name for p in plans}
    projections = [c for c in project_calls(record_call_costs(folder), calibrated, target, ordered)
                   if c.stage in planned]
    return calls_lines(projections, record, folder, profile)
