"""Grading many stories with the rubric judge, resumably, into one JSONL file of scores."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...dataclass_json import to_json
from ...llm.concurrency import item_workers
from ...resume import run_resumable, unique_keys
from ..judgement import JudgeItem
from .judge import RubricJudge
from .rubric_scores import MODES, Mode, RubricScore, read_scores


def run_rubric(judge: RubricJudge, items: Iterable[JudgeItem], path: str | Path, mode: Mode, *,
               progress: bool = True, workers: int | None = None) -> list[RubricScore]:
    """Grade every item under `mode`, appending to the JSONL file `path`; stories already graded are skipped.

    A story counts as done when all of the judge's dimensions are in the file for this judge and
    mode, so a killed run resumes with the story it was grading. Returns the file's records for the
    given items, judge and mode (one per story and dimension, the last copy when resumed). `workers`: stories
    graded at once; None takes the judge model's endpoint `max_concurrency` (one at a time for a local model).
    """
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: choose one of {MODES}")
    items = list(items)
    unique_keys([it.item_id for it in items], "item_id")
    keys = {d.key for d in judge.dimensions}

    def done(rows: list[dict[str, Any]]) -> set[str]:
        graded: dict[str, set[str]] = {}
        for row in rows:
            if row["judge"] == judge.lm.identity and row["mode"] == mode:
                graded.setdefault(row["story_id"], set()).add(row["dimension"])
        return {story for story, dims in graded.items() if keys <= dims}

    run_resumable(path, items, key=lambda it: it.item_id, done=done,
                  compute=lambda it: [to_json(s) for s in judge.score(it, mode)], desc=f"rubric ({mode})",
                  progress=progress, workers=item_workers(judge.lm) if workers is None else workers)
    return read_scores(path, judge=judge.lm.identity, mode=mode, story_ids={it.item_id for it in items})
