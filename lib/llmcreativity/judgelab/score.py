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
    from ..claims.judge_validity import JudgeValidity
    from ..record_file import read_record

    entry = read_record(folder).stages.get("judge_lab")
    rows = [r for r in (entry.judge_validity if entry else ()) if r.get("kind") == job]
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


class ConfirmedEquivalenceJudge:
    """The judge laboratory's confirmed semantic-equivalence judge as a clustering judge of the semantic-entropy
    stage: it partitions a whole set of texts at once (`partition`: average-linkage clusters by cosine, cut at the
    committed threshold), so `entropy.clustering` asks it for the partition instead of pairwise entailment.

    `identity` is its validity record's judge name, which the claims it clusters for name, so the claims page gates
    them on that record alone (`claims.judge_validity.judges_for`)."""

    def __init__(self, embedder: Any, threshold: float, name: str):
        self.embedder = embedder
        """The embedder it clusters with (the similarity measure of B4 must be another, `check_similarity_embedder`)."""
        self.threshold = threshold
        """The committed cosine threshold."""
        self.identity = name
        """Its judge name in the laboratory's validity record."""
        self.calls = 0
        """Pairs judged: always 0 (it partitions whole sets)."""

    def partition(self, texts: Sequence[str]) -> list[int]:
        """Cluster ids of `texts`, numbered 0, 1, ... in order of first appearance."""
        labels = cluster_texts(list(texts), self.embedder, self.threshold) if texts else np.zeros(0, dtype=int)
        order: dict[int, int] = {}
        return [order.setdefault(int(x), len(order)) for x in labels]

    def entails(self, pairs: Sequence[tuple[str, str]], context: str | None = None) -> list[bool]:
        """Not defined: the judge partitions whole sets (`partition`), it does not answer pairs."""
        raise TypeError(f"{self.identity} clusters whole sets of texts (partition), not pairs; cluster with "
                        "entropy.cluster_by_bidirectional_entailment, which asks it for the partition")


def confirmed_equivalence_judge(load_embedder: Any, record: Path | None = None) -> ConfirmedEquivalenceJudge:
    """The confirmed semantic-equivalence judge, its embedder loaded by `load_embedder(name)`: refused (`ItemsError`)
    when the laboratory confirmed none, or when the committed choice file is not the one its validity record was
    scored from."""
    from ..dataclass_json import from_json
    from ..hashing import sha256_file
    from .choice import Choice as ChoiceRecord
    from .choice import choice_path

    judge = confirmed_judge("entailment", record)
    path = choice_path("entailment")
    if not path.exists() or sha256_file(path) != judge.get("choice_sha256"):
        raise ItemsError(f"{path}: not the choice the confirmed judge {judge['judge']!r} was scored from (sha256 "
                         f"{str(judge.get('choice_sha256'))[:12]}); restore it from git")
    choice = from_json(ChoiceRecord, json.loads(path.read_text(encoding="utf-8")))
    if not choice.protocol.startswith("cosine average ("):
        raise ItemsError(f"the confirmed equivalence judge {judge['judge']!r} has no clustering yet")
    name = choice.protocol[choice.protocol.index("(") + 1:choice.protocol.rindex(")")]
    return ConfirmedEquivalenceJudge(load_embedder(name), float(choice.settings["threshold"]), str(judge["judge"]))


def score_file(job: str, path: str | Path, output: str | Path, record: Path | None = None) -> Path:
    """Score the items of `path` with `job`'s confirmed judge and write them, answered, to `output`."""
    from ..llm.local_models import get_embedder

    items = read_items(path, job)
    if job != "entailment":
        judge = confirmed_judge(job, record)
        raise ItemsError(f"the confirmed {job} judge {judge['judge']!r} has no scorer for your items yet")
    equivalence = confirmed_equivalence_judge(get_embedder, record)
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(items):
        groups.setdefault(str(row.get("group", "")), []).append(i)
    for rows in groups.values():
        for i, label in zip(rows, equivalence.partition([items[i]["text"] for i in rows]), strict=True):
            items[i][ANSWER[job]] = label
    out = Path(output)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    return out
