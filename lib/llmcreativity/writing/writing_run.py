"""Running frameworks over prompts, writing stories and transcripts to JSONL, resumably.

A run appends, per (prompt, framework), first every transcript message and then the final
stories. Which pairs are done is read from the stories file, so a killed run re-run skips
finished pairs and redoes the interrupted one; readers drop the transcript copies that
re-running leaves behind (same message ids, last copy wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..dataclass_json import from_json, to_json
from ..jsonl import append_jsonl, read_jsonl
from ..llm.backend import Backend
from ..output_files import STORIES, TRANSCRIPTS
from ..resume import run_resumable
from .dataset import PromptItem
from .frameworks.protocol import Framework
from .story_record import StoryRecord, story_records


@dataclass(frozen=True)
class RunResult:
    """Where a writing run put its files and what it did."""

    stories_path: Path
    """The stories JSONL file."""
    transcripts_path: Path
    """The transcripts JSONL file."""
    written: int
    """(prompt, framework) pairs computed by this call."""
    skipped: int
    """(prompt, framework) pairs already in the stories file."""


def agent_personas(framework: Framework) -> dict[str, str | None]:
    """Agent name -> persona name for a framework's writers (debate writers have none)."""
    if hasattr(framework, "personas"):
        return {p.name: p.name for p in framework.personas}
    if hasattr(framework, "students"):
        return {p.name: p.name for p in framework.students}
    if hasattr(framework, "persona"):
        return {framework.persona.name: framework.persona.name}
    return {}


def run_writing(frameworks: Sequence[Framework], lm: Backend, items: Sequence[PromptItem], out_dir: str | Path,
                *, progress: bool = True) -> RunResult:
    """Run every framework on every prompt, appending to the stories and transcripts files in `out_dir`
    (`output_files.STORIES`, `output_files.TRANSCRIPTS`).

    Pairs already in the stories file are skipped. Rows written by a different model or with
    different framework settings are an error (pass another `out_dir` for a different setup).
    """
    out = Path(out_dir)
    stories_path, transcripts_path = out / STORIES.path, out / TRANSCRIPTS.path
    names = [f.name for f in frameworks]
    if len(set(names)) != len(names):
        raise ValueError(f"frameworks {names}: each framework may appear once per run")
    settings = {f.name: f.settings() for f in frameworks}

    def done(rows: list[dict[str, Any]]) -> set[tuple[str, str]]:
        for row in rows:
            ours = settings.get(row["framework"])
            if ours is not None and (row["model"] != lm.identity or row["settings"] != ours):
                raise ValueError(
                    f"{stories_path} already holds {row['framework']} stories by model {row['model']!r} with settings "
                    f"{row['settings']}, not {lm.identity!r} with {settings[row['framework']]}: pass another out_dir "
                    "or delete the file to start over"
                )
        return {(row["prompt_id"], row["framework"]) for row in rows}

    def write(job: tuple[PromptItem, Framework]) -> list[dict[str, Any]]:
        item, framework = job
        transcript = framework.run(lm, item)
        append_jsonl(transcripts_path, [to_json(m) for m in transcript])
        records = story_records(transcript, item, model=lm.identity, settings=settings[framework.name],
                                personas=agent_personas(framework))
        return [to_json(r) for r in records]

    jobs = [(it, f) for it in items for f in frameworks]
    written = run_resumable(stories_path, jobs, key=lambda job: (job[0].prompt_id, job[1].name), done=done,
                            compute=write, desc="writing", progress=progress)
    return RunResult(stories_path, transcripts_path, written=len(written), skipped=len(jobs) - len(written))


def load_stories(path: str | Path) -> pd.DataFrame:
    """The stories file as a DataFrame with the `StoryRecord` columns (validated)."""
    rows = [to_json(from_json(StoryRecord, r)) for r in read_jsonl(path)]
    return pd.DataFrame(rows, columns=list(StoryRecord.__dataclass_fields__))
