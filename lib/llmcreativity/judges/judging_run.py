"""Running a judge over many items, resumably, into one JSONL file of Judgements."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from ..dataclass_json import from_json, to_json
from ..jsonl import read_jsonl
from ..llm.concurrency import item_workers
from ..resume import run_resumable, unique_keys
from .judgement import JudgeItem, Judgement


class Judge(Protocol):
    """Anything that judges one item: every judge of this package."""

    @property
    def name(self) -> str:
        """Judge name with its settings; the judge's key in a judgements file."""
        ...

    def judge(self, item: JudgeItem) -> Judgement:
        """The judgement of one item."""
        ...


def read_judgements(path: str | Path) -> list[Judgement]:
    """Judgements stored in a JSONL file (a truncated last line of a killed run is skipped)."""
    return [from_json(Judgement, row) for row in read_jsonl(path)]


def run_judge(judge: Judge, items: Iterable[JudgeItem], path: str | Path, *, progress: bool = True,
              workers: int | None = None) -> list[Judgement]:
    """Judge every item, appending each Judgement to the JSONL `path`; items already there are read, not redone.

    Returns the judgements of `items` in their order. A run killed mid-way resumes without loss or
    duplication; a partial last line (killed while writing) is ignored and that item is redone.
    `workers`: items judged at once; None takes the judge model's endpoint `max_concurrency` (one at a time
    for a local model, `llm.concurrency.item_workers`). The file is written in item order either way.
    """
    items = list(items)
    unique_keys([it.item_id for it in items], "item_id")
    run_resumable(path, items, key=lambda it: it.item_id,
                  done=lambda rows: {r["item_id"] for r in rows if r["judge"] == judge.name},
                  compute=lambda it: [to_json(judge.judge(it))], desc=judge.name, progress=progress,
                  workers=item_workers(getattr(judge, "lm", None)) if workers is None else workers)
    stored = {j.item_id: j for j in read_judgements(path) if j.judge == judge.name}
    return [stored[it.item_id] for it in items]
