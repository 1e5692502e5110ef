"""The pre-registration of the published run: each testable claim's minimum sample, derived from the pilot's
variances for a stated precision, and the terms the claim is decided under, fixed before the run is recorded.

For every claim of `claim_table.CLAIMS` that this project can test there is one `Target`: the per-unit quantity the
claim's estimator resamples, the precision its interval must reach (a CI half-width in the statistic's units, or on
Fisher's z scale for a correlation) with the reason tied to the claim's verdict rule, the reader of the pilot's
per-unit values and the sample-size function of `stats.sample_size`. `preregister` reads a pilot's results folder
(the `pilot` profile writes the published choices' outputs on a few items per stage, in the default run's formats),
sizes every part of every claim, and returns a `Preregistration`: per claim the pilot's n, statistic and spread, the
derived minimum (never below the claim table's current `min_n`), the estimator and verdict rule as the claim table
states them (with a hash of each verdict function's source), the story parser, and the claims tested and not
testable here. The targets and the pilot's readers are `pilot`'s, the sizing of a part `claims.sizing`'s (with
the precision rules); `deviations` lists how the present code departs from a committed registration;
`registration_text` writes `preregistration.json` and `preregistration.md` (the SHA-256 of the JSON is the
registration's hash) and says so on the claims page.

A claim that rests on an LLM judge whose agreement with human labels failed in the pilot (its CI not above 0,
`judge_validity`) is registered "judge not validated: compute saved", with no minimum: the claims page would not
show its verdict anyway.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from importlib import import_module
from importlib.util import resolve_name
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .. import paths
from ..claims.declarations import min_n as applied_min_n
from ..claims.judge_validity import JudgeValidity, judges_for, read_judge_validity
from ..claims.registration import REGISTRATION_JSON, ClaimTerms, Terms, read_terms
from ..claims.sizing import (
    PRECISION_RULES,
    SMALLEST_EFFECT_RHO,
    SMALLEST_EFFECT_SD,
    SMALLEST_EFFECT_SHARE,
    NotEstimable,
    PartSize,
    PrecisionRule,
    Target,
)
from ..claims.spec import ClaimSpec
from .claim_table import CLAIMS
from .pilot import TARGETS, Pilot, manifest_runs

if TYPE_CHECKING:
    from ..data.hanna import HannaHuman

Status = Literal["sized", "judge not validated: compute saved", "not estimable from the pilot", "not reachable here",
                 "carried from the first registration"]
"""A claim's registration status: sized, its judge failed in the pilot, the pilot cannot size it, the size it
needs exceeds the units that exist here, or (in a second registration) its first registration's terms hold."""
SIZED: Status = "sized"
JUDGE_NOT_VALIDATED: Status = "judge not validated: compute saved"
NOT_ESTIMABLE: Status = "not estimable from the pilot"
BEYOND: Status = "not reachable here"
CARRIED: Status = "carried from the first registration"

STORY_PARSER = "llmcreativity.writing.parsing.extract_story"
"""The parser that cuts every story out of a writer's reply; its module's source is hashed (its regexes and helpers
decide the story too)."""
RULE_MODULES = ("llmcreativity.claims.verdicts", "llmcreativity.writing.convergence",
                "llmcreativity.evaluation.review_claims", "llmcreativity.entropy.entropy_claims",
                "llmcreativity.entropy.diversity_agreement", "llmcreativity.judges.labelled_claims",
                "llmcreativity.judges.divergent")
"""Modules searched for the functions a claim's estimator text names in backticks (its verdict rule's code)."""
SIGNIFICANT = 6
"""Significant digits of every number in the JSON, so that the hash does not hang on the last bits of a float."""


# the registration --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimRegistration:
    """One claim's registered minimum sample and the pilot figures it comes from."""

    claim_id: str
    """The claim."""
    unit: str
    """What n counts (the claim table's unit)."""
    status: Status
    """Sized, judge not validated, not estimable from the pilot, or not reachable here."""
    note: str
    """Why it is not sized, or its deciding part."""
    quantity: str
    """Its target's per-unit quantity."""
    target: str
    """Its target's precision."""
    reason: str
    """Why that precision."""
    pilot_n: int | None
    """Units the pilot had for the deciding part (the one needing the most)."""
    statistic: float | None
    """The deciding part's pilot estimate."""
    spread: str
    """The deciding part's spread (sd, design effect, discordant share)."""
    half_width: float | None
    """The deciding part's target half-width."""
    table_min_n: int
    """The claim table's min_n when registered: the floor."""
    derived_n: int | None
    """The largest size any part needs under the registered rule; None when not sized."""
    min_n: int | None
    """The registered minimum: max(derived_n, table_min_n); None when not sized."""
    alternative_n: int | None
    """The largest size under the other precision rule (shown, not registered)."""
    available: int | None
    """The units that exist here; None when no limit binds."""
    judge: str
    """The claim table's judge kind."""
    terms: ClaimTerms
    """Its registered minimum (None when not sized), estimator and verdict rule."""
    parts: tuple[PartSize, ...] = ()
    """Every part, sized; empty when its judge was not validated or its values could not be read."""
    gate_judge: dict[str, Any] | None = None
    """The validity record of the confirmed judge a gated claim is sized under (judge, split, n, CI, chance, ceiling,
    the choice's commit and hash); None when the claim is not gated or was registered without one."""


@dataclass(frozen=True)
class Preregistration:
    """The registration of the published run."""

    options: dict[str, Any]
    """The precision rule, its alternative, the confidence and whether the judge gate was applied."""
    pilot: dict[str, Any]
    """The pilot's folder name and the run id of each stage in its manifest."""
    claims: tuple[ClaimRegistration, ...]
    """Every claim of `TARGETS`, in the claim table's order."""
    terms: Terms
    """The parser, the tested and the not-testable claims (per-claim terms live with each claim)."""
    after: dict[str, Any] | None = None
    """A second registration's link to the first: its folder and hash, and every deviation from it with its reason
    (`second_registration`); None for a first registration."""

    def to_json(self) -> dict[str, Any]:
        """The registration as plain JSON values, every number to `SIGNIFICANT` digits."""
        body = {"options": self.options, "pilot": self.pilot, "parser": self.terms.parser,
                "tested": list(self.terms.tested), "not_testable": self.terms.not_testable,
                "claims": [asdict(c) for c in self.claims]}
        if self.after is not None:
            body["after"] = self.after
        rounded: dict[str, Any] = _rounded(body)
        return rounded


def _rounded(value: Any) -> Any:
    """`value` with every float to `SIGNIFICANT` digits (NaN and inf as None), tuples as lists."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


MODULE_MOVES: dict[str, str] = {"llmcreativity.stats.paired": "llmcreativity.evaluation.comparison"}
"""A module that moved since a registration hashed the verdict rules -> where it was: the paired comparisons by
prompt moved from `evaluation.comparison` to `stats.paired` (the move broke the writing <-> evaluation import
cycle). A rule that imports a moved module inside its body still computes what was registered; its source is hashed
with the import written as it was (`registered_source`), so the move is no deviation. A change to the rule's own
lines still is."""

_IMPORT = re.compile(r"^(\s*from\s+)(\.*[\w.]*)(\s+import\b)", re.MULTILINE)


def registered_source(source: str, module: str) -> str:
    r"""`source` (of a function of `module`) with every import of a moved module (`MODULE_MOVES`) written as it was
    before the move, relative where it was relative.

    >>> registered_source("    from ..stats.paired import f\n", "llmcreativity.writing.convergence")
    '    from ..evaluation.comparison import f\n'
    """
    def back(m: re.Match[str]) -> str:
        written = m.group(2)
        absolute = resolve_name(written, module.rpartition(".")[0]) if written.startswith(".") else written
        old = MODULE_MOVES.get(absolute)
        if old is None:
            return m.group(0)
        dots = len(written) - len(written.lstrip("."))
        anchor = absolute.removesuffix(written[dots:])  # the package the dots lead to, with its trailing dot
        return m.group(1) + (written[:dots] + old.removeprefix(anchor) if dots else old) + m.group(3)

    return _IMPORT.sub(back, source)


def _source_hash(obj: Any) -> str:
    """The first 16 hex digits of the SHA-256 of `obj`'s source (a verdict rule's as `registered_source` writes it)."""
    source = inspect.getsource(obj)
    if inspect.isfunction(obj):
        source = registered_source(source, obj.__module__)
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def story_parser() -> dict[str, str]:
    """The story parser's name and the SHA-256 (16 hex digits) of its module's source."""
    module, _, name = STORY_PARSER.rpartition(".")
    getattr(import_module(module), name)  # it must exist
    return {"name": STORY_PARSER, "sha256": _source_hash(import_module(module))}


def rule_clauses(estimator: str) -> str:
    """The clauses of an estimator text that state its verdict rule: those with "when", "must hold" or a named
    function, joined by "; " (the whole text when none does).

    >>> rule_clauses("Spearman rho, bootstrap CI; supported when the CI lies above 0 (`sign_verdict`)")
    'supported when the CI lies above 0 (`sign_verdict`)'
    """
    clauses = [c.strip() for c in estimator.split(";")]
    rule = [c for c in clauses if re.search(r"\bwhen\b|must hold|`\w+`", c)]
    return "; ".join(rule) or estimator.strip()


def rule_functions(estimator: str) -> dict[str, str]:
    """The functions (of `RULE_MODULES`) an estimator text names in backticks -> their source hash."""
    found = {}
    for name in re.findall(r"`(\w+)`", estimator):
        for module in RULE_MODULES:
            obj = getattr(import_module(module), name, None)
            if callable(obj):
                found[name] = _source_hash(obj)
                break
    return found


def claim_terms(spec: ClaimSpec, min_n: int | None = None) -> ClaimTerms:
    """A claim's terms as the claim table states them now (`min_n` overrides its minimum)."""
    return ClaimTerms(spec.min_n if min_n is None else min_n, spec.estimator, rule_clauses(spec.estimator),
                      rule_functions(spec.estimator))


def current_terms(profile: str | None = None) -> Terms:
    """The terms of the present code: the claim table and the story parser. With `profile`, each claim's minimum is
    the one its verdicts read under that profile (`claims.declarations.min_n`: the profile's own registration's, where
    it sized the claim, else the claim table's)."""
    tested = tuple(c for c, s in CLAIMS.items() if not s.not_testable)
    folder = None if profile is None else paths.registration_folder(profile)
    claims = {c: claim_terms(CLAIMS[c], None if folder is None else applied_min_n(c, folder)) for c in tested}
    return Terms(claims, story_parser(), tested, {c: s.not_testable for c, s in CLAIMS.items() if s.not_testable})


def registration_profile(registered: Path) -> str | None:
    """The recorded profile whose own registration `registered` is (`paths.RECORDS`), or None."""
    here = registered.resolve()
    return next((p for p, (_, folder) in paths.RECORDS.items() if (paths.REPO_ROOT / folder).resolve() == here), None)


def _gate(spec: ClaimSpec, validity: list[JudgeValidity] | None, judge: str) -> str:
    """Why the claim's judge fails its validation in the pilot ("" when it passes, is not gated, or no agreement
    was recorded at all)."""
    if spec.judge == "none" or not spec.gated or validity is None:
        return ""
    records = judges_for(spec.judge, judge, validity)
    if not records:
        return f"the pilot recorded no agreement of the {spec.judge} judge with human labels"
    failing = [v for v in records if not v.validated]
    if not failing:
        return ""
    more = f" (and {len(failing) - 1} more of {len(records)} {spec.judge} judges)" if len(failing) > 1 else ""
    return f"its CI reaches chance: {failing[0].describe()}{more}"


GATE_FIELDS = ("judge", "kind", "split", "n", "statistic", "estimate", "low", "high", "chance", "ceiling", "baseline",
               "baseline_low", "baseline_high", "choice_commit", "choice_sha256", "stage", "run_id")
"""The fields of a confirmed judge's validity record a registration names beside the claims it gates."""


def _gate_record(spec: ClaimSpec, validity: list[JudgeValidity] | None, judge: str) -> dict[str, Any] | None:
    """The validity record of the passing judge a gated claim is sized under (its `GATE_FIELDS`); None when the
    claim is not gated, no judge is named, or the judge does not pass."""
    if spec.judge == "none" or not spec.gated or validity is None or not judge:
        return None
    records = [v for v in judges_for(spec.judge, judge, validity) if v.validated]
    if len(records) != 1:
        return None
    return {k: getattr(records[0], k) for k in GATE_FIELDS if hasattr(records[0], k)}


def _register(spec: ClaimSpec, target: Target, pilot: Pilot, rule: PrecisionRule, confidence: float,
              gate: str) -> ClaimRegistration:
    """One claim's registration (`spec`, sized by its `target`): gated, not estimable, beyond the units here, or
    sized."""
    blank = ClaimRegistration(spec.claim_id, spec.unit, NOT_ESTIMABLE, "", target.quantity, target.target,
                              target.reason, None, None, "", None, spec.min_n, None, None, None, target.available,
                              spec.judge, claim_terms(spec))
    if gate:
        return replace(blank, status=JUDGE_NOT_VALIDATED, note=gate)
    try:
        parts = target.read(pilot)
    except NotEstimable as e:
        return replace(blank, note=str(e))
    sized = tuple(p.size(rule, confidence) for p in parts)
    other = [p.size(next(r for r in PRECISION_RULES if r != rule), confidence).needed for p in parts]
    failed = [p for p in sized if p.needed is None]
    deciding = failed[0] if failed else max(sized, key=lambda p: p.needed or 0)
    known = [n for n in other if n is not None]
    figures = replace(blank, pilot_n=deciding.pilot_n, statistic=deciding.statistic, spread=deciding.spread,
                      half_width=deciding.half_width, parts=sized,
                      alternative_n=max(known) if known and len(known) == len(other) else None)
    if failed:
        more = f" ({len(failed) - 1} more of {len(sized)} parts cannot be sized)" if len(failed) > 1 else ""
        return replace(figures, note=f"{failed[0].part}: {failed[0].why_not}{more}")
    derived = max(p.needed or 0 for p in sized)
    if target.available is not None and derived > target.available:
        return replace(figures, status=BEYOND, derived_n=derived,
                       note=f"needs {derived} {spec.unit} ({deciding.part}); {target.available} exist here")
    return replace(figures, status=SIZED, derived_n=derived, min_n=max(derived, spec.min_n),
                   note=f"deciding part: {deciding.part}")


def preregister(results: Path, *, rule: PrecisionRule = "pilot distance", confidence: float = 0.95,
                gate: bool = True, gate_judges: Mapping[str, str] | None = None,
                labels: Mapping[str, bool] | None = None, hanna: HannaHuman | None = None,
                after: Path | None = None) -> Preregistration:
    """The registration derived from the pilot's results folder `results`.

    Every claim of `TARGETS` is read and sized under `rule` at `confidence` (the other rule's size is shown
    beside it). With `gate`, a gated claim whose judge failed its validation in the pilot (`judge_validity.jsonl`;
    `gate_judges` names the judge of each kind, by default every recorded judge of that kind, as the claims page
    does for a claim that names none) is "judge not validated: compute saved"; a claim sized under a named judge
    that passes carries that judge's validity record. `labels` (MacGyver item id -> valid) and `hanna` replace the
    data folder's human labels. `after` (a committed registration's folder) makes this a second registration: it
    links the first by hash and lists every deviation from it with its reason (`second_registration`).
    """
    if rule not in PRECISION_RULES:
        raise ValueError(f"rule={rule!r}: choose one of {PRECISION_RULES}")
    if not results.is_dir():
        raise FileNotFoundError(f"{results} is not a results folder: give the pilot's (results/pilot)")
    pilot = Pilot(results, labels, hanna)
    validity_file = results / "judge_validity.jsonl"
    validity = read_judge_validity(validity_file) if gate and validity_file.exists() else None
    names = dict(gate_judges or {})
    sized = (replace(_register(CLAIMS[c], TARGETS[c], pilot, rule, confidence,
                               _gate(CLAIMS[c], validity, names.get(CLAIMS[c].judge, "")) if gate else ""),
                     gate_judge=_gate_record(CLAIMS[c], validity, names.get(CLAIMS[c].judge, "")) if gate else None)
             for c in CLAIMS if c in TARGETS)
    claims = tuple(replace(c, terms=replace(c.terms, min_n=c.min_n)) for c in sized)  # the registered minimum
    now = current_terms()
    terms = Terms({c.claim_id: c.terms for c in claims}, now.parser, now.tested, now.not_testable)
    gate_note = ("off" if not gate else "on, no judge agreement recorded in the pilot (not applied)"
                 if validity is None else "on")
    options = {"precision_rule": rule, "alternative_rule": next(r for r in PRECISION_RULES if r != rule),
               "confidence": confidence, "judge_gate": gate_note, "gate_judges": names,
               "smallest_effect": {"d_z": SMALLEST_EFFECT_SD, "rho": SMALLEST_EFFECT_RHO,
                                   "share": SMALLEST_EFFECT_SHARE}}
    link = None if after is None else second_registration(after)
    if after is not None:
        claims = _carried(claims, after)
    return Preregistration(options, {"results": results.name, "stage_runs": manifest_runs(results)}, claims, terms,
                           link)


def _carried(claims: tuple[ClaimRegistration, ...], after: Path) -> tuple[ClaimRegistration, ...]:
    """A second registration's claims: those it re-decides (`stages.DECISIVE_CLAIMS`) as sized now, every other one
    with the first registration's minimum and terms (its stage asks the published run's calls again)."""
    from .stages import DECISIVE_CLAIMS

    first = read_terms(after).claims
    out = []
    for c in claims:
        if c.claim_id in DECISIVE_CLAIMS or c.claim_id not in first:
            out.append(c)
            continue
        was = first[c.claim_id]
        out.append(replace(c, status=CARRIED, min_n=was.min_n, derived_n=None, alternative_n=None, parts=(),
                           note="its stage asks the published run's calls again: the first registration's terms "
                                f"hold (minimum {was.min_n if was.min_n is not None else 'none registered'})",
                           terms=was))
    return tuple(out)


NO_JUDGE_NO_SIZE = ("A claim whose judge is not confirmed has no minimum n: it is reported \"judge not validated\" and "
                    "its compute is saved. \"At its minimum n\" applies to the claims decided under confirmed judges "
                    "and to the judge-free ones.")
"""The sentence a second registration and the claims page state once."""


def second_registration(after: Path) -> dict[str, Any]:
    """A second registration's link to the committed first one in `after`: its folder and hash, the deviations the
    code finds (`deviations` of the present claim table and rules; the new minimums are this registration's own), the
    re-decision's stated deviations with their
    reasons (`stages.DECISIVE_DEVIATIONS`), the items seen before this sizing (`stages.DECISIVE_SEEN`) and the
    sentence on unconfirmed judges."""
    from .stages import DECISIVE_CHANGES, DECISIVE_DEVIATIONS, DECISIVE_SEEN

    if not (after / REGISTRATION_JSON).exists():
        raise FileNotFoundError(f"--after {after}: no {REGISTRATION_JSON} there; give the committed first "
                                "registration's folder (published/preregistration)")
    return {"folder": after.name, "sha256": registration_hash(after), "found": deviations(after),
            "stated": dict(DECISIVE_DEVIATIONS), "changes": {k: dict(v) for k, v in DECISIVE_CHANGES.items()},
            "seen": list(DECISIVE_SEEN), "unconfirmed": NO_JUDGE_NO_SIZE}


# the registration's file and hash ------------------------------------------------------------------------


def registration_json(registration: Preregistration) -> str:
    """The JSON text written to `preregistration.json` (sorted keys, one level per line)."""
    return json.dumps(registration.to_json(), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def registration_hash(path: Path) -> str:
    """The registration's hash: the SHA-256 of `preregistration.json` (`path` is the file or its folder)."""
    file = path / REGISTRATION_JSON if path.is_dir() else path
    return hashlib.sha256(file.read_bytes()).hexdigest()


def _clauses(estimator: str) -> list[str]:
    """An estimator's clauses (its text split at ";"), so a deviation quotes only the ones that changed."""
    return [x.strip() for x in estimator.split(";")]


def deviations(registered: Path, current: Terms | None = None) -> list[str]:
    """Every way `current` (default: the present code, `current_terms`) departs from the committed registration
    `registered`, one sentence each, for the claims page: the story parser, the claims tested, and per claim its
    minimum sample, estimator, verdict rule and the source of the rule's functions. A claim moved to "not testable
    here" is flagged: the not-testable set may only grow for data that do not exist here. The minimum compared is
    the one the verdicts read under the profile `registered` belongs to (`registration_profile`): a registration
    whose own minimums its profile's verdicts read departs from them only where the verdicts read another."""
    was, now = read_terms(registered), current or current_terms(registration_profile(registered))
    found = []
    if was.parser != now.parser:
        found.append(f"story parser: registered {was.parser['name']} ({was.parser['sha256']}), now "
                     f"{now.parser['name']} ({now.parser['sha256']})")
    for c in was.tested:
        if c not in now.tested:
            found.append(f"{c}: registered as tested, now not testable here ({now.not_testable.get(c, 'no reason')}); "
                         "allowed only where the data do not exist here")
    found += [f"{c}: now tested, registered as not testable here ({why})" for c, why in was.not_testable.items()
              if c in now.tested]
    for c, old in was.claims.items():
        new = now.claims.get(c)
        if new is None:
            continue
        if old.min_n is not None and new.min_n != old.min_n:
            found.append(f"{c}: minimum sample {new.min_n} read by the verdicts now, {old.min_n} registered")
        if new.estimator != old.estimator:
            was_clauses, now_clauses = _clauses(old.estimator), _clauses(new.estimator)
            removed = " and ".join(repr(x) for x in was_clauses if x not in now_clauses) or "nothing"
            added = " and ".join(repr(x) for x in now_clauses if x not in was_clauses) or "nothing"
            rule = " (its verdict rule with it)" if new.verdict_rule != old.verdict_rule else ""
            found.append(f"{c}: estimator changed{rule}: registered {removed}, now {added}")
        elif new.verdict_rule != old.verdict_rule:
            found.append(f"{c}: verdict rule changed: registered {old.verdict_rule!r}, now {new.verdict_rule!r}")
        changed = sorted(n for n in old.rule_functions.keys() | new.rule_functions.keys()
                         if old.rule_functions.get(n) != new.rule_functions.get(n))
        if changed:
            found.append(f"{c}: the code of {', '.join(f'`{n}`' for n in changed)} changed since registration")
    return found
