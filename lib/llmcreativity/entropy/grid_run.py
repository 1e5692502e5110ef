"""Running the step-wise protocol over a grid of problems and settings, resumably, into one JSONL file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..dataclass_json import from_json, to_json
from ..jsonl import read_jsonl
from ..llm.backend import Backend
from ..llm.concurrency import item_workers
from ..resume import run_resumable
from .chains import Chain, StepwiseSettings, chain_id
from .domains import Problem, StepPrompt
from .entailment import EmbeddingSimilarityJudge, EntailmentJudge, LLMEntailmentJudge
from .stepwise import run_chain


def run_chains(
    lm: Backend, judge: EntailmentJudge, problems: Sequence[Problem], template: StepPrompt,
    settings: Sequence[StepwiseSettings], out_path: str | Path, *, progress: bool = True, workers: int | None = None,
) -> list[Chain]:
    """Run every (problem, settings) pair, appending each finished chain to `out_path` (JSONL).

    Chains already in the file (same id) are skipped, so an interrupted run resumes where it
    stopped. Returns the chains of this grid, read back or freshly computed, in grid order.
    `workers`: chains run at once; None takes `item_workers` of the sampling model and the judge's model
    (an endpoint's `max_concurrency`, one at a time when either is local). The file is in grid order.
    """
    jobs = [(p, s) for s in settings for p in problems]
    ids = {job: chain_id(job[0], lm.identity, judge.identity, template, job[1]) for job in jobs}
    run_resumable(out_path, jobs, key=ids.__getitem__, done=lambda rows: {r["id"] for r in rows},
                  compute=lambda job: [to_json(run_chain(lm, judge, job[0], template, job[1]))],
                  desc=f"step-wise SE {lm.identity}", progress=progress,
                  workers=item_workers(lm, _judge_model(judge)) if workers is None else workers)
    stored = {r["id"]: r for r in read_jsonl(out_path)}
    return [from_json(Chain, stored[ids[job]]) for job in jobs]


def _judge_model(judge: EntailmentJudge) -> object | None:
    """The model whose concurrency limits the judge: an LLM judge's backend; None for the embedding approximation
    (its embedder serialises its own calls); the judge itself otherwise (an NLI cross-encoder on this machine: 1)."""
    if isinstance(judge, LLMEntailmentJudge):
        return judge.lm
    if isinstance(judge, EmbeddingSimilarityJudge):
        return None
    return judge
