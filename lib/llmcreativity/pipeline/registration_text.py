"""The registration written and compared: its files (`write_preregistration`: `preregistration.json`, whose SHA-256
is the registration's hash, and `preregistration.md`, the same as a table), the claims page's sentence on a committed
registration (`registration_markdown_line`) and every deviation of the present code from it (`deviations`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..claims.registration import REGISTRATION_JSON, Terms
from ..claims.sizing import SMALLEST_EFFECT_RHO, SMALLEST_EFFECT_SD, SMALLEST_EFFECT_SHARE
from .pilot import TARGETS
from .preregistration import Preregistration, deviations, registration_hash, registration_json

REGISTRATION_MD = "preregistration.md"
"""The registration as a table, beside its JSON."""


def write_preregistration(registration: Preregistration, folder: Path) -> str:
    """Write `preregistration.json` and `preregistration.md` into `folder` (created); return the hash."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / REGISTRATION_JSON).write_text(registration_json(registration), encoding="utf-8")
    digest = registration_hash(folder)
    (folder / REGISTRATION_MD).write_text(registration_markdown(registration, digest), encoding="utf-8")
    return digest


def _num(x: float | int | None, digits: int = 3) -> str:
    return "" if x is None else str(x) if isinstance(x, int) else f"{x:.{digits}g}"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _gate_text(v: dict[str, Any]) -> str:
    """One confirmed judge's validity record in a line."""
    ceiling = f", human ceiling {_num(v.get('ceiling'))}" if v.get("ceiling") is not None else ""
    commit, digest = str(v.get("choice_commit", ""))[:7], str(v.get("choice_sha256", ""))[:12]
    return (f"{v['judge']}: {v.get('statistic', '')} {_num(v.get('estimate'))} [{_num(v.get('low'))}, "
            f"{_num(v.get('high'))}], n = {v.get('n')}, chance {_num(v.get('chance'))}{ceiling}; "
            f"{v.get('split', '')}; choice commit {commit}, choice SHA-256 {digest}")


def _effects(options: dict[str, Any]) -> str:
    e = options.get("smallest_effect", {"d_z": SMALLEST_EFFECT_SD, "rho": SMALLEST_EFFECT_RHO,
                                        "share": SMALLEST_EFFECT_SHARE})
    return (f"{e['d_z']:g} standard deviations (d_z), a correlation's z({e['rho']:g}) on Fisher's scale, a "
            f"difference of two correlations' {e['rho']:g}, a share's {e['share'] * 100:g} points")


def registration_markdown(registration: Preregistration, digest: str) -> str:
    """The registration as a page: the hash, the options, the claims table, the targets, each claim's parts and
    its estimator and rule."""
    o, t = registration.options, registration.terms
    runs = ", ".join(f"{s} {r['run_id']}" for s, r in registration.pilot["stage_runs"].items()) or "no manifest"
    second = registration.after
    lines = [
        "# Second pre-registration: the claims re-decided" if second else "# Pre-registration of the published run",
        "", f"Registration hash (SHA-256 of `{REGISTRATION_JSON}`): `{digest}`", "",
        *_second_lines(second),
        f"- Pilot: results folder `{registration.pilot['results']}`; runs: {runs}.",
        f"- Precision rule: {o['precision_rule']} (alternative shown: {o['alternative_rule']}); "
        f"{o['confidence'] * 100:g} % intervals; judge gate {o['judge_gate']}.",
        f"- Smallest effects (rule 'smallest effect'): a mean difference's half-width {_effects(o)}.",
        f"- Story parser: `{t.parser['name']}` (module SHA-256 {t.parser['sha256']}).",
        f"- Claims tested ({len(t.tested)}): {', '.join(t.tested)}.",
        f"- Not testable here ({len(t.not_testable)}): "
        + "; ".join(f"{c} ({why})" for c, why in t.not_testable.items()) + ".", "",
        "| claim | unit | status | pilot n | statistic | spread | target half-width | min_n now | derived | "
        "registered min_n | alternative | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in registration.claims:
        lines.append(f"| {c.claim_id} | {c.unit} | {c.status} | {_num(c.pilot_n)} | {_num(c.statistic)} | "
                     f"{_cell(c.spread)} | {_num(c.half_width)} | {c.table_min_n} | {_num(c.derived_n)} | "
                     f"{_num(c.min_n)} | {_num(c.alternative_n)} | {_cell(c.note)} |")
    gated = [c for c in registration.claims if c.gate_judge]
    if gated:
        lines += ["", "**Confirmed judges of the gated claims sized here** (their validity records):", ""]
        lines += [f"- {c.claim_id}: {_gate_text(c.gate_judge)}" for c in gated if c.gate_judge]
    lines += ["", "Correlations' half-widths are on Fisher's z scale. A claim's figures are those of its deciding "
              "part, the one that needs the most units (or the first that cannot be sized).", "",
              "## Targets", "", "| claim | per-unit quantity | target | reason | size functions |",
              "|---|---|---|---|---|"]
    lines += [f"| {c.claim_id} | {_cell(c.quantity)} | {_cell(c.target)} | {_cell(c.reason)} | "
              f"{', '.join(f.__name__ for f in TARGETS[c.claim_id].sample_size)} |" for c in registration.claims]
    lines += ["", "## Parts", ""]
    for c in registration.claims:
        if not c.parts:
            continue
        lines += [f"**{c.claim_id}**", "", "| part | pilot n | statistic | spread | boundary | half-width | needed |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {_cell(p.part)} | {p.pilot_n} | {_num(p.statistic)} | {_cell(p.spread)} | {p.boundary} | "
                  f"{_num(p.half_width)} | {_num(p.needed) or _cell(p.why_not)} |" for p in c.parts]
        lines.append("")
    lines += ["## Estimators and verdict rules", ""]
    for c in registration.claims:
        functions = ", ".join(f"`{n}` {h}" for n, h in c.terms.rule_functions.items())
        lines += [f"- **{c.claim_id}**: {c.terms.estimator}. Rule: {c.terms.verdict_rule}"
                  + (f" (source hashes: {functions})" if functions else "") + "."]
    return "\n".join(lines) + "\n"


def _second_lines(second: dict[str, Any] | None) -> list[str]:
    """A second registration's lines: the first's hash, the deviations and the items seen before its sizing."""
    if not second:
        return []
    lines = [f"After the first registration `{second['folder']}` (SHA-256 `{second['sha256']}`). "
             + second["unconfirmed"], "", "**Deviations from the first registration, with their reasons:**", ""]
    lines += [f"- *{name}*: {why}" for name, why in second["stated"].items()]
    lines += [f"- (found in the code) {d}" for d in second["found"]]
    changes = "; ".join(f"{stage}: " + ", ".join(f"{k} = {v!r}" for k, v in c.items())
                        for stage, c in second["changes"].items())
    lines += ["", f"The changed generating choices: {changes}.", "", "**Seen before this sizing (declared):**", ""]
    lines += [f"- {item}" for item in second["seen"]]
    return [*lines, ""]


def registration_markdown_line(registered: Path, current: Terms | None = None) -> str:
    """The claims page's sentence on a committed registration: its folder, its hash and every deviation from it
    (`deviations`), or that there is none."""
    found = deviations(registered, current)
    return (f"Pre-registered in `{registered.name}` (SHA-256 of its JSON `{registration_hash(registered)}`), "
            "committed before the first recording sitting. Deviations since: "
            + ("; ".join(found) + "." if found else "none."))
