"""Score your own items with a confirmed judge: `llmcreativity judge --job JOB --input FILE.jsonl`.

A judge is confirmed when the judge laboratory scored it on a test split from a committed choice and it passed
(its interval above chance and above its baseline): its validity record is in the published run's record
(`published/run`, stage judge_lab). Only confirmed judges score items; a job without one is refused, naming why.

Input: JSON Lines, one object per item, with the job's fields (`FIELDS`); every line is checked before any model
loads. Output: the same objects with the judge's answer added (`ANSWER`), as JSON Lines.

- entailment (semantic equivalence): "text", and optionally "group" (items are clustered within their group,
  e.g. the answers to one question); adds "cluster", an id unique within the group.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..paths import PUBLISHED_RECORD, REPO_ROOT
from .jobs import JOBS, job_spec

FIELDS: dict[str, tuple[str, ...]] = {"entailment": ("text",), "convergent": ("problem", "solution"),
                                      "rubric": ("story",)}
"""Job -> the fields every input item must have (non-empty strings)."""
ANSWER: dict[str, str] = {"entailment": "cluster", "convergent": "valid_score", "rubric": "quality_score"}
"""Job -> the field the judge's answer is written to."""


class ItemsError(ValueError):
    """An input file the judge cannot read, named with the line, the field and the fix."""


def read_items(path: str | Path, job: str) -> list[dict[str, Any]]:
    """The items of the JSON Lines file `path` for `job`, each checked for the job's fields."""
    spec = job_spec(job)
    p = Path(path)
    if not p.is_file():
        raise ItemsError(f"{p}: no such file; give a JSON Lines file with one item per line")
    items = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ItemsError(f"{p} line {n} is not JSON ({e.msg}); write one JSON object per line") from e
        if not isinstance(row, dict):
            raise ItemsError(f"{p} line {n} is a JSON {type(row).__name__}, not an object; write e.g. "
                             f'{{"{FIELDS[job][0]}": "..."}}')
        for field in FIELDS[job]:
            value = row.get(field)
            if not isinstance(value, str) or not value.strip():
                raise ItemsError(f"{p} line {n}: field {field!r} is {'missing' if field not in row else 'empty'}; "
                                 f"every {spec.title} item needs {', '.join(repr(f) for f in FIELDS[job])}")
        items.append(row)
    if not items:
        raise ItemsError(f"{p} holds no item; write one JSON object per line with {', '.join(FIELDS[job])}")
    return items


def _validity(job: str, folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(every validity record of `job`'s judges in the record's judge_lab stage, those that passed)."""
    from ..pipeline.judge_validity import JudgeValidity
    from ..pipeline.record import read_record

    entry = read_record(folder)["stages"].get("judge_lab")
    rows = [r for r in (entry or {}).get("judge_validity", []) if r.get("kind") == job]
    return rows, [r for r in rows if JudgeValidity.from_dict(r).validated]


def confirmed_judge(job: str, record: Path | None = None) -> dict[str, Any]:
    """The confirmed judge of `job` in the published record (its validity record); refused, naming why, when the
    laboratory confirmed none."""
    spec = job_spec(job)
    folder = record or REPO_ROOT / PUBLISHED_RECORD
    rows, passed = _validity(job, folder)
    if not passed:
        why = (f"its judge failed on its test split ({rows[0]['judge']}: {rows[0]['estimate']:.3f} "
               f"[{rows[0]['low']:.3f}, {rows[0]['high']:.3f}])" if rows else "the laboratory has not confirmed one")
        others = sorted(j for j in JOBS if j != job and _validity(j, folder)[1])
        raise ItemsError(f"job {job!r} ({spec.title}) has no confirmed judge: {why}; see the judge laboratory's "
                         f"chapter. Jobs with one: {others or 'none'}")
    return passed[0]


def cluster_texts(texts: Sequence[str], embedder: Any, threshold: float) -> np.ndarray:
    """Average-linkage clusters of `texts` by cosine, cut at `threshold` (the confirmed equivalence judge)."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    if len(texts) == 1:
        return np.zeros(1, dtype=int)
    v = np.asarray(embedder.encode(list(texts)), dtype=np.float64)
    distance = squareform(np.clip(1.0 - v @ v.T, 0.0, 2.0), checks=False)
    labels: np.ndarray = fcluster(linkage(distance, method="average"), t=1.0 - threshold, criterion="distance") - 1
    return labels


def score_file(job: str, path: str | Path, output: str | Path, record: Path | None = None) -> Path:
    """Score the items of `path` with `job`'s confirmed judge and write them, answered, to `output`."""
    from ..llm.local_models import get_embedder
    from .choice import Choice as ChoiceRecord
    from .choice import choice_path

    items = read_items(path, job)
    judge = confirmed_judge(job, record)
    from ..json_records import from_json

    choice = from_json(ChoiceRecord, json.loads(choice_path(job).read_text(encoding="utf-8")))
    if job != "entailment" or not choice.protocol.startswith("cosine average ("):
        raise ItemsError(f"the confirmed {job} judge {judge['judge']!r} has no scorer for your items yet")
    embedder = get_embedder(choice.protocol[choice.protocol.index("(") + 1:choice.protocol.rindex(")")])
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(items):
        groups.setdefault(str(row.get("group", "")), []).append(i)
    for rows in groups.values():
        labels = cluster_texts([items[i]["text"] for i in rows], embedder, float(choice.settings["threshold"]))
        for i, label in zip(rows, labels, strict=True):
            items[i][ANSWER[job]] = int(label)
    out = Path(output)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    return out
