"""The claims page: every claim of `claim_table.CLAIMS` with the verdict a reader may trust.

For each claim the page shows what the ledger concludes from the recorded claim (`claims.read_claims`),
the recorded judge agreements (`judge_validity`) and the run manifest:

- "not run" when no stage recorded it (the note names the stage that records it, `stages.recorder_of`, and whether
  that stage has run); "not testable here" (with the reason) when the stage said so, or when the
  claim table says this project cannot test it at all (`ClaimSpec.not_testable`), recorded or not;
- "inconclusive: sample too small" when n < the claim's `min_n`;
- "judge not validated" when the claim rests on an LLM judge whose agreement with human labels was measured and
  its 95 % CI reaches 0 (chance), whatever the stage's rule said (more of the sample would not decide it: the
  pre-registration gives such a claim no minimum); and instead of supported / not supported when that agreement
  is unmeasured. Only agreements measured by the latest successful run of their stage count (`current_validity`);
- *stale* when the run that recorded it is not the latest run of its stage in the manifest (a `--stage`
  re-run is the latest for that stage), or that run failed: a stale verdict is never shown as current;
- *recorded* or *fresh* when its stage ran against a record (`run --replay`, `run --from-record`): whether the
  stage asked any call the record does not hold, and the analysis parameters it was re-analysed with
  (`record_page.record_origin`).

Each row says whether it is a paper's claim or a check of this project's own (`ClaimSpec.kind`) and which
estimator decides it (`ClaimSpec.estimator`). `claims_markdown` writes a compact table, the forest plot
(`forest_plot`) and the long text and provenance below.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..claims.declarations import min_n
from ..claims.judge_validity import KINDS, LAB_STAGE, JudgeValidity, judges_for
from ..claims.spec import ClaimSpec
from ..llm.registry import short_label
from ..paths import registration_folder
from ..record_file import Record
from .claim_records import SAMPLE_TOO_SMALL, Claim
from .claim_table import CLAIMS
from .excerpts import DISAGREEMENTS, figure_source
from .later_page import later_markdown
from .manifest import ManifestEntry
from .paper_deviations import deviations_markdown
from .record_page import record_markdown, record_origin
from .registration_text import registration_markdown_line
from .se_exploratory_page import ledger_items, statistics_disagree
from .stages import recorder_of
from .verdict_marks import (
    JUDGE_NOT_VALIDATED,
    TOO_SMALL,
    VERDICT_STYLE,
    judge_label,
    label_judges,
    verdict_mark,
)

NOT_RUN = "not run"
NOT_TESTABLE = "not testable here"


@dataclass(frozen=True)
class LedgerRow:
    """One line of the claims page."""

    claim_id: str
    """The claim's id."""
    spec: ClaimSpec | None
    """Its spec (None for a claim the project adds)."""
    claim: Claim | None
    """The recorded claim, or None when no stage recorded it."""
    verdict: str
    """The verdict shown: a `verdicts.LABELS` label, `TOO_SMALL`, `JUDGE_NOT_VALIDATED` or `NOT_RUN`."""
    note: str
    """Why the shown verdict differs from the stage's, or the stage's reason."""
    judges: tuple[JudgeValidity, ...]
    """The judge agreements the claim was gated on."""
    stale: str
    """Why the record is stale; empty when it comes from the latest run of its stage."""
    origin: str = ""
    """Whether its stage asked anything the record it ran against does not hold (`record_page.record_origin`:
    "recorded", or "fresh: N of M calls new"; with the analysis parameters it was re-analysed with); empty when the
    stage ran against no record."""
    also: tuple[LedgerRow, ...] = ()
    """The same claim's verdicts under other, named judges (the judge laboratory's), each gated on its own judge."""
    unconfirmed: tuple[JudgeValidity, ...] = ()
    """The judge laboratory's records of the claim's judge kind that its test split did not confirm, shown beside a
    claim "judge not validated" by its stage's own judges: no confirmed judge could take their place."""


def _minimum(claim_id: str, claim: Claim | None) -> int:
    """The minimum sample a recorded claim is decided at: its profile's registration's (`claims.declarations.min_n`,
    `paths.registration_folder`), the claim table's for a claim not recorded or of a profile without one."""
    if claim is None:
        return CLAIMS[claim_id].min_n
    folder = registration_folder(claim.profile)
    return CLAIMS[claim_id].min_n if folder is None else min_n(claim_id, folder)


def stale_reason(claim: Claim, manifest_stages: Mapping[str, ManifestEntry]) -> str:
    """Why `claim` is not from the latest run of its stage (empty when it is).

    Stale when the stage has no manifest entry, the entry's run id differs from the claim's (a later run,
    full or `--stage`, did not re-record it), the claim has no run id (recorded outside the runner), or that
    run did not finish ("failed" / "running").
    """
    entry = manifest_stages.get(claim.stage)
    if entry is None:
        return f"stage {claim.stage!r} has no run in the manifest"
    if not claim.run_id or claim.run_id == "interactive":
        return "recorded outside the runner (no run id)"
    latest = entry.run_id
    if latest != claim.run_id:
        return f"recorded by run {claim.run_id}; the latest run of {claim.stage} is {latest or 'unknown'}"
    if entry.status != "ok":
        return f"its run of {claim.stage} is {entry.status}"
    return ""


def current_validity(validity: list[JudgeValidity],
                     manifest_stages: Mapping[str, ManifestEntry]) -> list[JudgeValidity]:
    """The judge agreements measured by the latest successful run of their stage (older ones are not evidence
    about the judges of this run)."""
    return [v for v in validity if (e := manifest_stages.get(v.stage)) is not None and e.run_id == v.run_id
            and e.status == "ok"]


def validity_finding(records: Sequence[JudgeValidity]) -> str:
    """The chapter's plain statement of the agreements it measured (`records`, as `record_judge_validity` returns
    them; of one kind): how many judges beat chance, each one's statistic with its interval and n, and the claims
    that rest on that kind of judge (`ClaimSpec.gated`), which the claims page shows "judge not validated" when
    their judge does not beat chance."""
    kinds = sorted({v.kind for v in records})
    if len(kinds) != 1:
        raise ValueError(f"validity_finding: give the records of one judge kind, not {kinds or 'none'}")
    kind = kinds[0]
    passed = [v for v in records if v.validated]
    each = "; ".join(v.describe() for v in records)
    claims = ", ".join(c.claim_id for c in CLAIMS.values() if c.judge == kind and c.gated and not c.not_testable)
    if len(records) == 1:
        head = (f"**Finding: the {kind} judge measured here does not agree with the human labels better than "
                f"chance** (its 95 % interval reaches 0): {each}." if not passed else
                f"The {kind} judge measured here agrees with the human labels better than chance (its 95 % "
                f"interval lies above 0): {each}.")
    elif not passed:
        head = (f"**Finding: none of the {len(records)} {kind} judges measured here agrees with the human labels "
                f"better than chance** (each 95 % interval reaches 0): {each}.")
    else:
        head = (f"{len(passed)} of the {len(records)} {kind} judges measured here agree with the human labels "
                f"better than chance (the 95 % interval above 0): {each}.")
    return head + (f" The claims that rest on the {kind} judge ({claims}) are shown \"judge not validated\" on the "
                   "claims page when their judge is not one that beats chance." if claims else "")


def not_run_reason(claim_id: str, manifest_stages: Mapping[str, ManifestEntry]) -> str:
    """Why no verdict of `claim_id` is recorded: the stage that records it (`Stage.claims`) has not run, or its
    latest run did not record it (some claims are recorded only under some parameters)."""
    stage = recorder_of(claim_id)
    if stage is None:
        return "no stage records it"
    if stage.name not in manifest_stages:
        return f"the {stage.name} stage records it and has not run (llmcreativity run --stage {stage.name})"
    return f"the {stage.name} stage records it, but its latest run did not"


def ledger_row(claim_id: str, claim: Claim | None, validity: list[JudgeValidity],
               manifest_stages: Mapping[str, ManifestEntry]) -> LedgerRow:
    """The shown verdict of one claim: minimum sample first, then the judge gate; staleness beside it."""
    spec = CLAIMS.get(claim_id)
    if spec is not None and spec.not_testable:
        return LedgerRow(claim_id, spec, claim, NOT_TESTABLE, spec.not_testable, (), "")
    if claim is None:
        return LedgerRow(claim_id, spec, None, NOT_RUN, not_run_reason(claim_id, manifest_stages), (), "")
    verdict: str = claim.verdict
    note = claim.reason
    decided = verdict in ("supported", "not supported")
    if claim.reason.startswith(SAMPLE_TOO_SMALL):
        verdict = TOO_SMALL
    elif spec is not None and decided and claim.n < _minimum(claim_id, claim):
        verdict, note = TOO_SMALL, f"n = {claim.n} {spec.unit} < {_minimum(claim_id, claim)}"
    judges: tuple[JudgeValidity, ...] = ()
    if spec is not None and spec.judge != "none":
        judges = tuple(judges_for(spec.judge, claim.judge, current_validity(validity, manifest_stages)))
        failing = [v for v in judges if not v.validated]
        unmeasured_decides = not judges and verdict in ("supported", "not supported")
        if spec.gated and verdict != NOT_TESTABLE and (failing or unmeasured_decides):
            why = ("no agreement with human labels is recorded for the " + spec.judge + " judge" if not judges
                   else f"{len(failing)} of its {len(judges)} judge(s) do not beat chance against people ("
                   + ", ".join(v.judge for v in failing) + "; figures in the judges table)")
            verdict = JUDGE_NOT_VALIDATED
            note = f"the stage's rule said {claim.verdict} at n = {claim.n} {spec.unit}, but {why}"
    unconfirmed: tuple[JudgeValidity, ...] = ()
    if verdict == JUDGE_NOT_VALIDATED and spec is not None and not claim.judge:
        unconfirmed = tuple(v for v in current_validity(validity, manifest_stages)
                            if v.stage == LAB_STAGE and v.kind == spec.judge and not v.validated)
    return LedgerRow(claim_id, spec, claim, verdict, note, judges, stale_reason(claim, manifest_stages),
                     record_origin(manifest_stages.get(claim.stage)), unconfirmed=unconfirmed)


def agreement(v: JudgeValidity) -> str:
    """A judge's agreement with people as the claims page states it: `describe()`, and for a record of the judge
    laboratory its chance value, the human ceiling, the paired difference from the job's baseline, the split it was
    scored on and the commit of its choice."""
    if v.stage != LAB_STAGE:
        return v.describe()
    ceiling = f", human ceiling {v.ceiling:.2g}" if v.ceiling is not None else ""
    baseline = ""
    if v.baseline and v.baseline_low is not None and v.baseline_high is not None:
        baseline = (f"; minus the baseline ({v.baseline}): [{v.baseline_low:.2g}, {v.baseline_high:.2g}]"
                    + (", not above 0" if v.baseline_low <= 0 else ""))
    split = f" ({v.split}; choice commit {v.choice_commit[:7]})" if v.split else ""
    return f"{v.describe()}, chance {v.chance:g}{ceiling}{baseline}{split}"


def laboratory_finding(v: JudgeValidity, *, linked: bool = True) -> str:
    """What the judge laboratory found of an unconfirmed judge (`v`, one of its records): its test-split figure as
    `agreement` states it, and (`linked`: the book holds the laboratory's chapter) a link to its chapter."""
    link = f"; its figures: {{doc}}`executed/{LAB_STAGE}`" if linked else ""
    return (f"the judge laboratory confirmed no {v.kind} judge to take the stage's place: its committed choice "
            f"scored {agreement(v)}{link}")


@dataclass(frozen=True)
class EarlierRun:
    """A recorded run whose verdicts of the gated claims stand beside a later run's where the later one decides them
    under another judge: the published run's verdicts under the papers' judges beside the claims' re-decision's under
    the judge laboratory's confirmed ones (`earlier_run`)."""

    label: str
    """How the page names it (its record folder)."""
    claims: list[Claim]
    """Its recorded claims."""
    validity: list[JudgeValidity]
    """Its recorded judge agreements."""
    stages: dict[str, ManifestEntry]
    """Its stages as manifest entries (run id, status), against which its claims are current."""


def earlier_run(record: Record, label: str) -> EarlierRun:
    """The claims, judge agreements and stage runs a record (`record_file.read_record`) holds, as an `EarlierRun`."""
    from ..dataclass_json import from_json

    entries = record.stages.values()
    return EarlierRun(label, [from_json(Claim, c) for e in entries for c in e.claims],
                      [JudgeValidity.from_dict(v) for e in entries for v in e.judge_validity],
                      {name: ManifestEntry(status="ok", run_id=e.run_id, profile=record.profile)
                       for name, e in record.stages.items()})


def ledger_rows(claims: list[Claim], validity: list[JudgeValidity],
                manifest_stages: Mapping[str, ManifestEntry], earlier: EarlierRun | None = None) -> list[LedgerRow]:
    """Every claim of `CLAIMS` in order, then any other recorded claim. With `earlier`, a gated claim this run
    decides only under a named judge also shows the earlier run's verdict under the judges it lacks (gated on the
    earlier run's own agreements, its origin naming that run)."""
    by_id: dict[str, list[Claim]] = {}
    for c in claims:
        by_id.setdefault(c.claim_id, []).append(c)
    ids = list(CLAIMS) + list(dict.fromkeys(c.claim_id for c in claims if c.claim_id not in CLAIMS))
    rows = []
    for i in ids:
        found = [ledger_row(i, c, validity, manifest_stages) for c in by_id.get(i, [])]
        spec, judges = CLAIMS.get(i), {c.judge for c in by_id.get(i, [])}
        if earlier is not None and spec is not None and spec.gated and spec.judge != "none":
            found += [replace(ledger_row(i, c, earlier.validity, earlier.stages), origin=f"from {earlier.label}")
                      for c in earlier.claims if c.claim_id == i and c.judge not in judges]
        # the stage's own judges' verdict first (judge ""), then each named judge's beside it
        found.sort(key=lambda r: (r.claim is not None and r.claim.judge != "", r.claim.judge if r.claim else ""))
        first = found[0] if found else ledger_row(i, None, validity, manifest_stages)
        rows.append(replace(first, also=tuple(found[1:])))
    return rows


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.3g}"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


QUALITATIVE = re.compile(r"\s*\([^)]*qualitative[^)]*\)")
"""The note "(qualitative)" or "(abstract, qualitative)" after a paper's finding stated in words."""


def _paper_cell(spec: ClaimSpec | None) -> str:
    if spec is None:
        return ""
    if spec.paper_value is None:  # the paper's finding in its own words, without the "(qualitative)" note
        return QUALITATIVE.sub("", spec.paper_figure)
    stand_in = "; this run: a stand-in, not plotted" if spec.stand_in else ""
    return f"{spec.paper_value:.3g} ({spec.paper_scale}{stand_in})"


def _short_cell(r: LedgerRow) -> str:
    spec, c = r.spec, r.claim
    if spec is None:
        return f"*(project check)* {_cell(c.text if c else '')}"
    return ("*(project check)* " if spec.kind == "project check" else "") + _cell(spec.short)


def _table_row(r: LedgerRow, under: str = "") -> str:
    """One table line; `under`: the named judge of a second verdict of the same claim (its line says so)."""
    c, spec = r.claim, r.spec
    short = f"↳ under the {_cell(judge_label(under, r.judges))}" if under else _short_cell(r)
    if r.verdict == NOT_TESTABLE and spec is not None and spec.not_testable:
        return f"| {r.claim_id} | {short} | **{NOT_TESTABLE}** | | | {_paper_cell(spec)} |"
    if c is None:
        return f"| {r.claim_id} | {short} | {NOT_RUN} | | | {_paper_cell(spec)} |"
    stat = _fmt(c.statistic) + (f" [{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]" if c.ci_low is not None else "")
    least = f" / {_minimum(r.claim_id, c)}" if spec else ""
    n = "" if c.verdict == "not testable here" else f"{c.n}{least}"
    verdict = f"{verdict_mark(r.verdict) if not r.stale else ''}**{r.verdict}**" + (" *(stale)*" if r.stale else "")
    return f"| {r.claim_id} | {short} | {verdict} | {stat} | {n} | {_paper_cell(spec)} |"


def _details(r: LedgerRow, under: str = "", chapters: Collection[str] = ()) -> str:
    """One claim in full; `under`: the named judge of a second verdict of the same claim (its heading says so);
    `chapters`: the stage chapters the book holds (a laboratory finding links its chapter only when it is one)."""
    spec, c = r.spec, r.claim
    kind = spec.kind if spec else "project check"
    source = f"{spec.paper}, {kind}" if spec else "this project, project check"
    named = f", under *{under}*" if under else ""
    head = f"**{r.claim_id}**{named} ({source}). {spec.claim if spec else ''}".rstrip()
    items: list[str] = []
    method: list[str] = []  # how it is measured and where the words were checked: folded with the run
    if spec is not None and under:  # a second verdict of the same claim: its statement and sources stand above
        items.append("The paper's figure, its words and the estimator: as in the entry above.")
    elif spec is not None:
        what = ("The paper" if kind == "paper claim"
                else "The paper states it as motivation or procedure, not as a result; this project checks it")
        items.append(f"{what}: {spec.paper_figure}. Minimum sample: {_minimum(r.claim_id, c)} {spec.unit}. "
                     f"Judge: {spec.judge}"
                     + ("" if spec.gated or spec.judge == "none" else " (the claim measures the judge itself)") + ".")
        if r.claim_id in DISAGREEMENTS:
            items.append(f"The sources differ: {DISAGREEMENTS[r.claim_id]}.")
        if checked := figure_source(r.claim_id, differences=False):
            method.append(f"The paper's words: {checked}.")
        if spec.estimator:
            method.append(f"Estimator: {spec.estimator}.")
        if spec.stand_in:
            items.append(f"Measured by {spec.stand_in}.")
        if spec.not_testable:
            items.append(f"Not testable here: {spec.not_testable}.")
    if c is None and r.verdict == NOT_RUN:
        items.append(f"Not run: {r.note}.")
    elif c is not None:
        # short labels on the page; the record keeps the full identities (a replay compares them)
        items.append(f"Measured (stage `{c.stage}`): {short_label(c.text)}"
                     + (f" Statistic: {c.measure}." if c.measure else ""))
        items.append(f"Verdict: {verdict_mark(r.verdict)}**{r.verdict}**"
                     + (f" ({short_label(r.note)})" if r.note else "") + ".")
        items += ledger_items(r.claim_id, c.stage, c.run_id, c.judge)
        if r.judges:
            passed = sum(v.validated for v in r.judges)
            names = sorted({judge_label(v.judge, r.judges) for v in r.judges})
            items.append(f"Judge{'s' if len(names) > 1 else ''}: {', '.join(names)}; "
                         + ("agrees with people" if passed == len(r.judges) == 1
                            else f"{passed} of {len(r.judges)} beat chance against people" if len(r.judges) > 1
                            else "does not beat chance against people")
                         + f" ({{ref}}`figures <{JUDGES_TABLE}>`).")
        if c.stage in chapters:
            items.append(f"Decided in {{doc}}`executed/{c.stage}`.")
        method += [f"Not confirmed: {laboratory_finding(v, linked=LAB_STAGE in chapters)}." for v in r.unconfirmed]
        if r.stale:
            items.append(f"**Stale**: {r.stale}.")
        # the run's provenance, folded: short labels here, the full identities in the stage chapter's provenance
        models = ", ".join(short_label(m) for m in c.models) or "none recorded"
        run = (f"Run `{c.run_id or 'unknown'}`, profile `{c.profile}`, parameters `{c.params_sha256 or 'unknown'}`, "
               f"recorded {c.recorded_at}; models: {models}.")
        if c.roles:
            run += " Model roles: " + ", ".join(short_label(r) for r in c.roles) + "."
        if r.origin:
            run += f" Against the record its stage ran with: {r.origin}."
        method.append(run)
    bullets = "\n".join(f"- {_cell(x)}" for x in items)
    if not method:
        return head + "\n\n" + bullets
    return (head + "\n\n" + bullets + "\n\n<details><summary>Estimator, sources and run</summary>\n\n"
            + "\n".join(f"- {_cell(x)}" for x in method) + "\n\n</details>")


@dataclass(frozen=True)
class SampleSummary:
    """How many claims this run tested at their minimum sample size, and how many of those it decided; the papers'
    claims and the project's own checks counted apart, and the claims this project cannot test set aside."""

    listed: int
    """Rows on the page."""
    paper_claims: int
    """Rows that are a paper's claim (`ClaimSpec.kind`)."""
    not_testable: int
    """Of `paper_claims`, those shown "not testable here" (the claim table's reason, or a current record's)."""
    tested: int
    """Of `paper_claims`, current (not stale) records that are neither "not testable here" nor "not run"."""
    judge_not_validated: int
    """Of `tested`, those shown "judge not validated": not decidable by more of the sample, so not held to a
    minimum."""
    reached: int
    """Of the other `tested`, those whose n is at least the claim's `min_n`."""
    decided: int
    """Of `reached`, those shown supported or not supported."""
    checks: int
    """Rows that are a check of this project's own (`ClaimSpec.kind`, or a claim id the table does not list)."""
    checks_tested: int
    """Of `checks`, current records that are neither "not testable here" nor "not run"."""
    checks_decided: int
    """Of `checks_tested`, those shown supported or not supported at their minimum sample size."""
    named_tested: int = 0
    """Second verdicts of the papers' claims under a named judge (`LedgerRow.also`), counted like `tested`."""
    named_decided: int = 0
    """Of `named_tested`, those decided at their minimum sample size under a judge that passed its validation."""

    def sentence(self) -> str:
        """The summary in words, for the page."""
        testable = self.paper_claims - self.not_testable
        gated = self.judge_not_validated
        return (f"The page lists {self.paper_claims} claims of the papers and {self.checks} checks of this project's "
                f"own. {self.not_testable} of the papers' claims are not testable here (each row says why). Of the "
                f"other {testable}, this run tested {self.tested}"
                + (f": {gated} rest on a judge whose agreement with human labels does not beat chance in this run "
                   "and are shown \"judge not validated\" whatever their sample size (no minimum applies: a larger "
                   f"sample would not make the judge's verdict a finding); of the other {self.tested - gated}, "
                   if gated else "; of those, ")
                + f"{self.reached} reached their minimum sample size, and {self.decided} of these were decided "
                "(supported or not supported). "
                f"Of the {self.checks} project checks, it tested {self.checks_tested} and decided "
                f"{self.checks_decided}. Stale records are not counted."
                + (f" Counted apart: {self.named_tested} verdicts of the papers' claims under a judge of the judge "
                   f"laboratory (named on their lines), {self.named_decided} of them decided at their minimum sample "
                   "size." if self.named_tested else ""))


def _is_check(r: LedgerRow) -> bool:
    return r.spec is None or r.spec.kind == "project check"


def _tested(r: LedgerRow) -> bool:
    return (r.claim is not None and not r.stale and r.verdict != NOT_TESTABLE
            and r.claim.verdict not in (NOT_TESTABLE, NOT_RUN))


def _reached(r: LedgerRow) -> bool:
    return r.spec is None or (r.claim is not None and r.claim.n >= _minimum(r.claim_id, r.claim))


def counted_verdicts(rows: list[LedgerRow]) -> list[tuple[LedgerRow, bool]]:
    """The (claim, verdict) lines the page's summary counts (`sample_summary`), in page order, each with whether it
    is a paper's claim's second verdict under a named judge (`LedgerRow.also`): every current tested line. Stale,
    "not run" and "not testable here" lines are not counted, nor are the exploratory lines beneath a verdict (they
    are no ledger rows). The forest plot draws exactly these (`forest_plot`)."""
    out: list[tuple[LedgerRow, bool]] = []
    for r in rows:
        if _tested(r):
            out.append((r, False))
        if not _is_check(r):
            out += [(a, True) for a in r.also if _tested(a)]
    return out


def sample_summary(rows: list[LedgerRow]) -> SampleSummary:
    """Count `rows` as `SampleSummary` says: paper claims (not testable, tested, judge not validated, reached its
    minimum n, decided) and project checks (tested, decided); the tested lines are `counted_verdicts`'."""
    papers = [r for r in rows if not _is_check(r)]
    checks = [r for r in rows if _is_check(r)]
    untestable = [r for r in papers if r.verdict == NOT_TESTABLE and not r.stale]
    pairs = counted_verdicts(rows)
    tested = [r for r, named in pairs if not named and not _is_check(r)]
    gated = [r for r in tested if r.verdict == JUDGE_NOT_VALIDATED]
    reached = [r for r in tested if r.verdict != JUDGE_NOT_VALIDATED and _reached(r)]
    decided = [r for r in reached if r.verdict in ("supported", "not supported")]
    checks_tested = [r for r, named in pairs if not named and _is_check(r)]
    checks_decided = [r for r in checks_tested if _reached(r) and r.verdict in ("supported", "not supported")]
    named = [a for a, is_named in pairs if is_named]
    named_decided = [a for a in named if a.verdict in ("supported", "not supported") and _reached(a)]
    return SampleSummary(len(rows), len(papers), len(untestable), len(tested), len(gated), len(reached),
                         len(decided), len(checks), len(checks_tested), len(checks_decided), len(named),
                         len(named_decided))


FINDINGS_HEADING = "## What this run found"
"""The heading of the claims page's first section: the findings, computed from the records."""
PROVENANCE_SUMMARY = "The run behind these verdicts: records, runs, commits"
"""The title of the folded block that holds the run ids and commits."""
PAPERS = (("LLM Review (paper A)", "A"), ("Automated creativity evaluation (paper B)", "B"),
          ("This project's own claims", ""))
"""The verdict tables, one per paper: (heading, the claim-id prefix of its claims); the last takes every other id."""


def _decided(r: LedgerRow) -> bool:
    return _tested(r) and r.verdict in ("supported", "not supported") and _reached(r)


def _finding_line(r: LedgerRow, under: str = "") -> str:
    """One decided claim in a line: id, verdict, the claim in a few words, its statistic with CI and n."""
    c, spec = r.claim, r.spec
    assert c is not None
    what = spec.short if spec else c.text
    ci = f" [{_fmt(c.ci_low)}, {_fmt(c.ci_high)}]" if c.ci_low is not None else ""
    unit = f" {spec.unit}" if spec else ""
    named = f", under the {_cell(judge_label(under, r.judges))}" if under else ""
    check = " *(project check)*" if _is_check(r) else ""
    figures = f"{_fmt(c.statistic)}{ci}, n = {c.n}{unit}{named}"
    return f"- **{r.claim_id}**{check} {verdict_mark(r.verdict)}**{r.verdict}**: {_cell(what)} ({figures})."


def findings_markdown(rows: list[LedgerRow]) -> str:
    """The page's first section: what was decided, one line a claim, and what stands in the way of the rest (judges
    that do not beat chance, samples below their minimum, claims not testable here or not run), then the count."""
    decided = [(r, "") for r in rows if _decided(r)] + [(a, a.claim.judge if a.claim else "") for r in rows
                                                         for a in r.also if _decided(a)]
    lines = [FINDINGS_HEADING, ""]
    lines += ([_finding_line(r, under) for r, under in decided] if decided
              else ["No claim was decided: every tested claim is inconclusive or rests on a judge that does not beat "
                    "chance."])
    blocked: dict[str, list[str]] = {}
    for r in rows:
        if _decided(r) or any(_decided(a) for a in r.also):
            continue
        # a verdict under a confirmed laboratory judge says more than the stage's own judge's failure
        shown = next((a for a in r.also if a.verdict != JUDGE_NOT_VALIDATED), r)
        key = ((f"the {r.spec.judge} judge does not agree with people better than chance"
                + (", and the judge laboratory confirmed none" if shown.unconfirmed else ""))
               if shown.verdict == JUDGE_NOT_VALIDATED and r.spec is not None
               else "below the minimum sample" if shown.verdict == TOO_SMALL
               else "not testable here" if shown.verdict == NOT_TESTABLE
               else "not run" if shown.verdict == NOT_RUN
               else ("inconclusive under the registered statistic, while the other SE statistics establish the "
                     "opposite sign (exploratory, beneath the claim)")
               if shown.verdict == "inconclusive" and shown.claim is not None
               and statistics_disagree(r.claim_id, shown.claim.stage, shown.claim.run_id)
               else "inconclusive at or beyond the minimum sample" if shown.verdict == "inconclusive"
               else shown.verdict)
        if shown is not r:
            key += " under the judge laboratory's judge"
        blocked.setdefault(key, []).append(r.claim_id)
    if blocked:
        lines += ["", "What stands in the way of the rest: "
                  + "; ".join(f"{', '.join(ids)}: {why}" for why, ids in blocked.items()) + "."]
    lines += ["", sample_summary(rows).sentence()]
    return "\n".join(lines)


def _paper_of(claim_id: str) -> str:
    """The claim-id prefix of the table `claim_id` goes in: its paper's, or "" (the last table) for an id the claim
    table does not list."""
    if claim_id in CLAIMS:
        return next((prefix for _, prefix in PAPERS if prefix and claim_id.startswith(prefix)), "")
    return ""


def claims_markdown(claims: list[Claim], validity: list[JudgeValidity] | None = None,
                    manifest_stages: Mapping[str, ManifestEntry] | None = None, figure: str | None = None,
                    registration: Path | None = None, earlier: EarlierRun | None = None,
                    chapters: Collection[str] = ()) -> str:
    """The page body, findings first (`findings_markdown`); then one verdict table a paper (six columns, a second
    verdict of a claim on its own line), the registration's hash and deviations, the forest plot `figure` (a path
    relative to the page; left out when None), each claim in full, the claims declared for a later registration
    (`later_page.later_markdown`, counted nowhere), and, folded, the run's provenance (records, run ids, commits).
    `registration`: the folder of the committed pre-registration the run was recorded under, or None; `earlier`: a
    run whose verdicts under other judges stand beside this one's (`ledger_rows`); `chapters`: the stage chapters the
    book holds, which the page may link to."""
    rows = ledger_rows(claims, validity or [], manifest_stages or {}, earlier)
    replayed = record_markdown(manifest_stages or {})
    registered = registration_markdown_line(registration) if registration is not None else ""
    out = [findings_markdown(rows), "", "## The verdicts"]
    for heading, prefix in PAPERS:
        mine = [r for r in rows if _paper_of(r.claim_id) == prefix]
        if not mine:
            continue
        out += ["", f"### {heading}", "", "| id | claim | verdict | statistic [95 % CI] | n / min | the paper |",
                "|---|---|---|---|---|---|"]
        for r in mine:
            out += [_table_row(r), *(_table_row(a, under=a.claim.judge if a.claim else "") for a in r.also)]
    out += ["", "The run each verdict comes from, and whether its stage asked anything its record lacks, are given "
            "with each claim below."]
    if registered:
        out += ["", registered]
    if figure:
        out += ["", f"![Every claim's statistic with its 95 % CI, beside the paper's figure where the paper gives one "
                    f"on the same scale]({figure})"]
    out += ["", deviations_markdown(chapters)]  # the method's differences from the papers, one declaration
    out += ["", judges_markdown(rows)]
    out += ["", "## Each claim in full"]
    for r in rows:
        out += ["", _details(r, chapters=chapters)]
        for a in r.also:  # a blank line first: the folded provenance above is an HTML block, ended only by one
            out += ["", _details(a, a.claim.judge if a.claim else "", chapters)]
    out += ["", later_markdown()]  # shown apart: decided by no recorded run, counted nowhere above
    if replayed:
        out += ["", f":::{{dropdown}} {PROVENANCE_SUMMARY}", replayed, ":::"]
    return label_judges("\n".join(out), [v for r in rows for x in (r, *r.also) for v in (*x.judges, *x.unconfirmed)],
                        {x.claim.judge for r in rows for x in (r, *r.also) if x.claim is not None})


JUDGES_TABLE = "judges-table"
"""The label of the claims page's table of judges, which every claim resting on a judge links to."""


def judges_markdown(rows: list[LedgerRow]) -> str:
    """The judges the page's claims rest on, each once: its short label, its agreement with people (`agreement`,
    without the recorded name), whether it beats chance, and the claims resting on it. The figures stand here only;
    each claim in full links here."""
    found: dict[tuple[str, str, str], tuple[JudgeValidity, list[str]]] = {}
    for r in rows:
        for x in (r, *r.also):
            for v in (*x.judges, *x.unconfirmed):
                key = (v.kind, v.judge, v.stage)
                entry = found.setdefault(key, (v, []))
                if v in x.judges and r.claim_id not in entry[1]:
                    entry[1].append(r.claim_id)
    if not found:
        return ""
    out = [f"({JUDGES_TABLE})=", "## The judges", "",
           "A judge's agreement with human labels, measured by this run; it beats chance when its 95 % interval lies "
           "above chance (and, for the judge laboratory's, above its baseline). A claim resting on a judge that does "
           "not is shown \"judge not validated\". Statistic per kind: "
           + "; ".join(f"{k}: {v}" for k, v in KINDS.items()) + ".", "",
           "| judge | agreement with people [95 % CI], n | beats chance | claims |", "|---|---|---|---|"]
    for (kind, name, _), (v, ids) in sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][2] != LAB_STAGE)):
        label = judge_label(name, [v])
        figures = short_label(agreement(v).replace(f" ({name})", "", 1))
        out.append(f"| {_cell(label)} ({kind}) | {_cell(figures)} | {'yes' if v.validated else 'no'} | "
                   f"{', '.join(ids) or '–'} |")
    return "\n".join(out)


def paper_mark(r: LedgerRow) -> float | None:
    """The paper's figure to mark beside `r`'s statistic in the forest plot, or None: only when the recorded measure
    is on the paper's scale (it names `ClaimSpec.paper_scale`) and the project measures no stand-in for the paper's
    statistic (`ClaimSpec.stand_in`: e.g. B7's Spearman rho is never drawn against the paper's kappa)."""
    spec, c = r.spec, r.claim
    if spec is None or c is None or spec.paper_value is None or not spec.paper_scale or spec.stand_in:
        return None
    return spec.paper_value if spec.paper_scale in c.measure.lower() else None


def forest_label(r: LedgerRow) -> str:
    """A counted line's label on the forest plot's axis: its claim id, the laboratory judge it was decided under
    (briefly) or the run it comes from where that is not this one, and its verdict."""
    c = r.claim
    judge = judge_label(c.judge, r.judges, brief=True) if c is not None and c.judge else ""
    earlier = "earlier run" if r.origin.startswith("from ") else ""
    where = ", ".join(x for x in (judge, earlier) if x)
    return f"{r.claim_id}{f' ({where})' if where else ''}: {r.verdict}"


def forest_plot(rows: list[LedgerRow], path: Path) -> Path | None:
    """Save one forest plot of exactly the verdicts the page's summary counts (`counted_verdicts`: a claim's verdict
    under its stage's judges and under a named judge each on its own line), each statistic with its 95 % CI, in its
    verdict's colour and marker shape (`VERDICT_STYLE`, the same as the page's text), a cross marking the paper's
    figure where the claim's measure is on the paper's scale; None when no counted line has a statistic."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    shown = [r for r, _ in counted_verdicts(rows) if r.claim is not None and r.claim.statistic is not None]
    if not shown:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 0.36 * len(shown) + 1.6))
    for y, r in enumerate(reversed(shown)):
        c = r.claim
        assert c is not None and c.statistic is not None  # `shown` holds only these
        color, marker, _ = VERDICT_STYLE[r.verdict]
        if c.ci_low is not None and c.ci_high is not None:
            ax.plot([c.ci_low, c.ci_high], [y, y], color=color, lw=2)
        ax.plot(c.statistic, y, marker, color=color, ms=7)
        mark = paper_mark(r)
        if mark is not None:
            ax.plot(mark, y, "x", color="black", ms=8, mew=2)
    ax.set_yticks(range(len(shown)), [forest_label(r) for r in reversed(shown)], fontsize=9)
    ax.axvline(0, color="0.8", lw=1, zorder=0)
    ax.set_xlabel("statistic (each claim on its own scale; see its measure below)")
    ax.set_title("Claims: statistic and 95 % CI (x = the paper's figure)", fontsize=10)
    present = list(dict.fromkeys(r.verdict for r in shown))
    ax.legend(handles=[Line2D([], [], color=VERDICT_STYLE[v][0], marker=VERDICT_STYLE[v][1], ls="", label=v)
                       for v in present], loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / len(shown)),
              ncol=min(3, len(present)), fontsize=8, frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
