"""The landing page's first screen: what this run found for each paper, computed from the claims and judge-validity
records as the claims page reads them (`ledger.ledger_rows`), never typed; then the decided claims in a table small
enough for a phone. A number that does not come from this run as recorded is marked: re-analysed, re-run with new
model calls, or taken from an earlier run's record (`LedgerRow.origin`, `record_page.record_origin`).
"""

from __future__ import annotations

from pathlib import Path

from ..paths import REPO_ROOT
from .ledger import (
    NOT_RUN,
    NOT_TESTABLE,
    PAPERS,
    LedgerRow,
    _decided,
    _fmt,
    _is_check,
    _paper_of,
)
from .se_exploratory_page import statistics_disagree
from .verdict_marks import JUDGE_NOT_VALIDATED, judge_label, verdict_mark

STALE = "stale (its stage has run again since it was recorded)"
CONTRADICTED = ("inconclusive under the registered statistic, while the other SE statistics establish the opposite "
                "sign (exploratory; see the claims page)")
"""An SE claim whose registered verdict is inconclusive and whose unregistered statistics disagree in sign
(`se_exploratory_page.statistics_disagree`): not a sample too small to decide."""
"""How the paragraph names a verdict it does not count: one recorded by a run that is not its stage's latest."""
BREAK = "/\u200b"
COMPACT = "llmc-compact"
"""The class of a table of short cells, which a phone shows whole (no minimum column width: `book/_assets/page.css`)."""
"""A slash after which a line may break (a zero-width space follows it)."""
CITES = {"A": "li2026llmreview", "B": "sen2025creativity"}
"""A claim-id prefix -> the paper's bibliography key."""
QUESTIONS = {"A": "does blind peer review among writing agents make their stories more creative?",
             "B": "can creativity be measured without human raters (semantic entropy, a retrieval judge)?"}
"""A claim-id prefix -> the paper's question, in a few words."""


def record_name(folder: str) -> str:
    """A record folder as the page names it: its path in the repository (`published/decisive`), else its name."""
    try:
        return str(Path(folder).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return Path(folder).name


def origin_mark(r: LedgerRow) -> str:
    """How a number's source is marked when it is not this run's as recorded: "earlier run" (taken from another
    record), "re-run" (its stage computed model calls its record lacks), "re-analysed" (other analysis parameters
    than recorded); "" for this run's own number, live or replayed as recorded."""
    if r.origin.startswith("from "):
        return "earlier run"
    marks = (["re-run"] if r.origin.startswith("fresh") else []) + (["re-analysed"] if "re-analysed" in r.origin
                                                                     else [])
    return ", ".join(marks)


def _verdict(r: LedgerRow) -> str:
    mark = origin_mark(r)
    return f"{verdict_mark(r.verdict)}**{r.verdict}**" + (f" *({mark})*" if mark else "")


def _figure(r: LedgerRow, digits: int = 3) -> str:
    c = r.claim
    assert c is not None

    def f(x: float | None) -> str:
        return _fmt(x) if digits == 3 or x is None else f"{x:.{digits}g}"

    ci = f" [{f(c.ci_low)}, {f(c.ci_high)}]" if c.ci_low is not None else ""
    return f"{f(c.statistic)}{ci}, n = {c.n}"


def _lines(rows: list[LedgerRow]) -> list[LedgerRow]:
    """Every verdict line of `rows`: each row, then its verdicts under named judges."""
    return [x for r in rows for x in (r, *r.also)]


def _under(r: LedgerRow) -> str:
    c = r.claim
    return f", under the {judge_label(c.judge, r.judges)}" if c is not None and c.judge else ""


def _judges_sentence(rows: list[LedgerRow]) -> str:
    """The judge agreements the paper's claims rest on, as measured: a judge a decided line rests on with its figure,
    and for a kind whose stage judges all fail, how many were measured."""
    said, out = set(), []
    for r in _lines(rows):
        if not r.judges or r.spec is None or not r.spec.gated:
            continue
        key = (r.spec.judge, r.claim.judge if r.claim else "")
        if key in said:
            continue
        said.add(key)
        passed = [v for v in r.judges if v.validated]
        if key[1] and passed:
            v = passed[0]
            ci = f" [{v.low:.2g}, {v.high:.2g}]" if v.low is not None and v.high is not None else ""
            out.append(f"the {judge_label(v.judge, r.judges)} agrees with people ({v.statistic} "
                       f"{v.estimate:.2g}{ci}, n = {v.n})")
        elif not passed and not key[1]:
            kind, count = r.spec.judge, len(r.judges)
            out.append(f"none of the {count} {kind} judges this run measured beats chance against human labels"
                       if count > 1 else
                       f"the {kind} judge this run measured does not beat chance against human labels")
    return "; ".join(out)


def paper_paragraph(rows: list[LedgerRow], prefix: str, title: str) -> str:
    """One paper's finding in a short paragraph: its decided claims with verdict, statistic and n; the judges they
    rest on; what keeps the rest undecided."""
    mine = [r for r in rows if _paper_of(r.claim_id) == prefix]
    decided = [x for x in _lines(mine) if _decided(x)]
    parts = [f"**{title.split(' (')[0]}** {{cite}}`{CITES[prefix]}` asks: {QUESTIONS[prefix]}"]
    if decided:
        parts.append("This run decided " + "; ".join(
            f"**{x.claim_id}**{' (a project check)' if _is_check(x) else ''} {_verdict(x)}: "
            f"{x.spec.short if x.spec else ''} ({_figure(x)}{_under(x)})" for x in decided) + ".")
    else:
        parts.append("This run decided none of its claims.")
    if judges := _judges_sentence(mine):
        parts.append(judges[0].upper() + judges[1:] + ".")
    rest: dict[str, list[str]] = {}
    for r in mine:
        if any(_decided(x) for x in (r, *r.also)):
            continue
        shown = next((a for a in r.also if a.verdict != JUDGE_NOT_VALIDATED), r)
        verdict = STALE if shown.stale else shown.verdict
        if verdict == "inconclusive" and shown.claim is not None and statistics_disagree(
                r.claim_id, shown.claim.stage, shown.claim.run_id):
            verdict = CONTRADICTED  # not a sample too small: the page says which statistics disagree
        rest.setdefault(verdict, []).append(r.claim_id)
    order = ["inconclusive", CONTRADICTED, JUDGE_NOT_VALIDATED, NOT_TESTABLE, NOT_RUN]
    if rest:
        parts.append("Undecided: " + "; ".join(
            f"{', '.join(ids)} {verdict}" for verdict, ids in sorted(
                rest.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else -1)) + ".")
    return " ".join(parts)


def decided_table(rows: list[LedgerRow]) -> str:
    """The decided claims of both papers, three short columns (a phone shows them whole): claim, verdict, statistic
    [95 % CI] to two digits and n."""
    decided = [x for x in _lines(rows) if _decided(x)]
    if not decided:
        return ""
    # `llmc-compact`: its short cells need no phone-width minimum (book/_assets/page.css), so a phone shows it whole
    out = [":::{table}", f":class: {COMPACT}", "", "| claim | verdict | statistic [95 % CI], n |", "|---|---|---|"]
    # a break allowed after "/" ("Debate/Discussion" would hold the column wider than a phone)
    out += [f"| **{x.claim_id}** {(x.spec.short if x.spec else '').replace('/', BREAK)} | {_verdict(x)} | "
            f"{_figure(x, 2)} |" for x in decided]
    return "\n".join([*out, ":::"])


def where_from(rows: list[LedgerRow], record: str = "") -> str:
    """Where the numbers come from: this run's stages as recorded (named `record` when replayed), with what is
    marked otherwise."""
    lines = [x for x in _lines(rows) if x.claim is not None]
    marked = sorted({m for x in lines if (m := origin_mark(x))})
    own = (f"rebuilt by this run from the record `{record}`, every model call answered from it" if record
           else "computed by this run")
    return (f"The numbers are {own}"
            + (f"; a number marked {', '.join(f'*{m}*' for m in marked)} is not as recorded: its line on the "
               "claims page says why" if marked else "") + ".")


def landing_markdown(rows: list[LedgerRow], record: str = "") -> str:
    """The landing page's findings: one paragraph a paper, the decided claims' table, where the numbers come from,
    and a link to the claims page. `record`: the record this run replayed, if any."""
    out = ["## What this run found", ""]
    for title, prefix in PAPERS:
        if prefix:
            out += [paper_paragraph(rows, prefix, title), ""]
    if table := decided_table(rows):
        out += [table, ""]
    out += [where_from(rows, record) + " Every claim, its estimator and the paper's own figure: the "
            "[claims page](claims.md)."]
    return "\n".join(out)
