"""The paper profile's expected token use, extrapolated from a measured run's token accounting.

For stage s, with parameters p (the measured run's profile) and q (the target profile):

    tokens_q(s) = tokens_p(s) x units(q) / units(p) x length(q) / length(p)

`tokens_p` is what the run report says the stage's language-model calls needed: prompt plus completion
tokens, those the cache answered counted as they were when computed, so a warm run projects like a cold one.
`units` counts the stage's independent pieces of work (prompts written for, chains sampled, items judged) and
`length` how much one piece costs relative to another (story words, discussion rounds, samples per step); both
are products of the stage's parameters (its `Stage.scale`). Tokens per unit are assumed constant otherwise, so the
projection is an order of magnitude, not a quote: it ignores, for instance, that a longer story makes every
later prompt that quotes it longer too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .manifest import read_manifest
from .order import ordered_stages
from .planning import declared_parameters
from .run_report import StageReport, read_run_report
from .stages import Stage


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


def project(rows: list[StageReport], measured: dict[str, dict[str, Any]],
            target: dict[str, dict[str, Any]], stages: list[Stage] | None = None) -> list[Projection]:
    """The projection of every stage of `rows` that has a scale (`Stage.scale` of `stages`, default every stage) and
    ran in both parameter sets (stage -> resolved parameters)."""
    scales = {s.name: s.scale for s in ordered_stages(stages)}
    out = []
    for r in rows:
        scale = scales.get(r.stage)
        if scale is None or r.stage not in measured or r.stage not in target:
            continue
        tokens = r.prompt_tokens + r.completion_tokens + r.cached_tokens
        units_p, units_q = scale.units(measured[r.stage]), scale.units(target[r.stage])
        ratio = scale.length(target[r.stage]) / scale.length(measured[r.stage])
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
    rows, entries = read_run_report(profile), read_manifest(profile)["stages"]
    if not rows:
        return f"*No run of the `{profile}` profile has written its run report yet: run `llmcreativity run` first.*"
    ordered = ordered_stages(stages)
    measured = {s.name: stage_parameters(s, entries[s.name].get("parameters", {})) for s in ordered
                if s.name in entries}
    wanted = {s.name: stage_parameters(s, s.profiles[target]) for s in ordered if target in s.profiles}
    runs = ", ".join(sorted({r.run_id for r in rows if r.stage in measured}))
    return projection_markdown(project(rows, measured, wanted, ordered), profile, target, runs)
