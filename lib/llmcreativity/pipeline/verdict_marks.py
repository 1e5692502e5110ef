"""How a verdict and a judge look on the landing and claims pages: one colour and one marker shape per verdict, shared
by the forest plot and the pages' text (`VERDICT_STYLE`, `verdict_mark`), and the short label a judge or model carries
when a page is rendered (`judge_label`). The records keep the full names: only the rendering shortens them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..claims.judge_validity import LAB_STAGE, JudgeValidity
from ..llm.registry import short_label
from .claim_records import SAMPLE_TOO_SMALL

JUDGE_NOT_VALIDATED = "judge not validated"
TOO_SMALL = f"inconclusive: {SAMPLE_TOO_SMALL}"

VERDICT_STYLE: dict[str, tuple[str, str, str]] = {
    "supported": ("#2ca02c", "o", "●"),
    "not supported": ("#d62728", "s", "■"),
    "inconclusive": ("#7f7f7f", "D", "◆"),
    TOO_SMALL: ("#7f7f7f", "v", "▼"),
    JUDGE_NOT_VALIDATED: ("#9467bd", "^", "▲"),
}
"""A counted verdict -> (colour, matplotlib marker, the same shape as a character). The forest plot draws each verdict
so and the pages mark its word with the same shape in the same colour: the shape alone tells verdicts apart."""

JOBS = {"entailment": "equivalence", "convergent": "convergent", "rubric": "rubric"}
"""A judge kind -> the job the pages name it by."""
MODEL_NAMES = {"all-minilm-l6-v2": "MiniLM", "all-mpnet-base-v2": "MPNet"}
"""Embedders by the short names the pages give them."""
METHOD_NAMES = {"cosine average": "cosine", "nested choice among embedding heads": "embedding heads"}
"""A laboratory judge's method by the words the pages give it."""
LAB_JUDGE = re.compile(r"^(?P<kind>\w+): (?P<method>.+?)(?: \((?P<model>[\w.\-/]+)\))? \[lab [0-9a-f]+\]$")
"""A judge laboratory's judge name: `<kind>: <method> (<model>) [lab <hash>]`."""


def verdict_mark(verdict: str) -> str:
    """The verdict's shape in its colour, as inline HTML before its word ("" for a verdict the summary never counts);
    a builder other than HTML drops it and keeps the word."""
    style = VERDICT_STYLE.get(verdict)
    if style is None:
        return ""
    return f'<span class="verdict-mark" style="color:{style[0]}" aria-hidden="true">{style[2]}</span> '


def judge_label(name: str, records: Iterable[JudgeValidity] = (), *, brief: bool = False) -> str:
    """The label a page gives the judge `name` (as recorded): a laboratory judge as "confirmed equivalence judge
    (MiniLM cosine)" when its record (`records`) beat chance on the test split, "the laboratory's rubric choice
    (embedding heads), not confirmed" when it did not, and its job and method alone without a record; any other
    judge with its model identities shortened (`registry.short_label`). `brief`: only the words in brackets (a
    laboratory judge's model and method), for a plot's axis.

    >>> judge_label("entailment: cosine average (all-minilm-l6-v2) [lab 0a8d76152bcc]")
    "the laboratory's equivalence judge (MiniLM cosine)"
    """
    m = LAB_JUDGE.match(name)
    if m is None:
        return short_label(name)
    model = m["model"] or ""
    inner = " ".join(x for x in (MODEL_NAMES.get(model, model), METHOD_NAMES.get(m["method"], m["method"])) if x)
    if brief:
        return inner
    job = JOBS.get(m["kind"], m["kind"])
    mine = [v for v in records if v.judge == name and v.stage == LAB_STAGE]
    if not mine:
        return f"the laboratory's {job} judge ({inner})"
    if all(v.validated for v in mine):
        return f"confirmed {job} judge ({inner})"
    return f"the laboratory's {job} choice ({inner}), not confirmed"


def label_judges(text: str, records: Iterable[JudgeValidity], names: Iterable[str] = ()) -> str:
    """`text` (a rendered page) with every laboratory judge's recorded name (of `records` and `names`) replaced by its
    label (`judge_label`); the records keep the names."""
    records = list(records)
    for name in sorted({*names, *(v.judge for v in records)} - {""}, key=len, reverse=True):
        if LAB_JUDGE.match(name):
            text = text.replace(name, judge_label(name, records))
    return text
