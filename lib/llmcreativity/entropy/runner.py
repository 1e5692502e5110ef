"""Running the step-wise protocol over a grid of problems and settings, resumably, into one JSONL file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..jsonl import read_jsonl
from ..llm.backend import Backend
from ..resume import run_resumable
from .chains import Chain, StepwiseSettings, chain_id
from .domains import Problem, StepPrompt
from .entailment import EntailmentJudge
from .stepwise import run_chain


def run_chains(
    lm: Backend, judge: EntailmentJudge, problems: Sequence[Problem], template: StepPrompt,
    settings: Sequence[StepwiseSettings], out_path: str | Path, *, progress: bool = True,
) -> list[Chain]:
    """Run every (problem, settings) pair, appending each finished chain to `out_path` (JSONL).

    Chains already in the file (same id) are skipped, so an interrupted run resumes where it
    stopped. Returns the chains of this grid, read back or freshly computed, in grid order.
    """
    jobs = [(p, s) for s in settings for p in problems]
    ids = {job: chain_id(job[0], lm.identity, judge.identity, template, job[1]) for job in jobs}
    run_resumable(out_path, jobs, key=ids.__getitem__, done=lambda rows: {r["id"] for r in rows},
                  compute=lambda job: [run_chain(lm, judge, job[0], template, job[1]).to_dict()],
                  desc=f"step-wise SE {lm.identity}", progress=progress)
    stored = {r["id"]: r for r in read_jsonl(out_path)}
    return [Chain.from_dict(stored[ids[job]]) for job in jobs]
