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
from typing import Any

from ..record_file import Record
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
             "| stage | tokens measured | units of work | units | length factor | projected tokens |",
             "|---|---:|---|---:|---|---:|"]
    measured = [p for p in projections if p.measured_tokens > 0]
    for p in projections:
        length = f"{p.length_formula}: x{p.length_ratio:.3g}" if p.length_formula else "–"
        projected = f"{p.projected_tokens:,.0f}" if p.measured_tokens > 0 else "not measured"
        lines.append(f"| {p.stage} | {p.measured_tokens:,} | {p.units_formula} | {p.units_measured:g} → "
                     f"{p.units_target:g} | {length} | {projected} |")
    total_m = sum(p.measured_tokens for p in measured)
    total_q = sum(p.projected_tokens for p in measured)
    lines.append(f"| **total** | **{total_m:,}** | | | | **{total_q:,.0f}** |")
    unmeasured = [p.stage for p in projections if p.measured_tokens == 0]
    if unmeasured:
        lines += ["", f"Not projected, and left out of the total: {', '.join(unmeasured)}. That run made no "
                  "language-model call there (the outputs were read back from the results folder), so it measured "
                  "no tokens; the report of a cold run projects every stage."]
    return "\n".join(lines)


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
