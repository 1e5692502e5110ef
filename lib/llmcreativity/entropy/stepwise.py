"""The step-wise semantic-entropy protocol.

For one problem: at each step, sample n candidate next steps with their token log-probabilities,
cluster them by bidirectional entailment, compute semantic entropy over the clusters, then append
the candidate with the highest sequence probability (greedy chaining) and continue. The chain
ends when at least `stop_fraction` of the candidates say the solution is complete (they start
with the domain's stop word), or at the step cap.

Candidates that say STOP form one cluster, and empty candidates another, without asking the judge.
"""

from __future__ import annotations

import hashlib
import math
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tqdm.auto import tqdm

from ..jsonl import append_jsonl, read_jsonl
from ..llm import GenerateConfig
from .clustering import cluster_by_bidirectional_entailment
from .domains import Problem, StepPrompt
from .entailment import EntailmentJudge
from .estimators import (
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)


@dataclass(frozen=True)
class StepwiseSettings:
    """Sampling and stopping settings of one step-wise run."""

    n: int = 10
    """Candidates sampled per step."""
    temperature: float = 0.8
    """Sampling temperature."""
    top_p: float = 1.0
    """Nucleus mass."""
    max_tokens: int = 48
    """Most tokens per candidate step (a step ends at a newline)."""
    step_cap: int = 3
    """Most steps per chain."""
    stop_fraction: float = 0.5
    """The chain ends when at least this share of a step's candidates say STOP."""
    seed: int = 0
    """Sampling seed."""
    batched: bool = True
    """Sample the n candidates in one call (True) or in n calls of one sample each (False)."""
    cluster_batch: int = 4
    """Cluster representatives compared per judge call."""

    def __post_init__(self) -> None:
        if not isinstance(self.step_cap, int) or self.step_cap < 1:
            raise ValueError(f"step_cap={self.step_cap!r}: must be an integer >= 1")
        if not 0.0 < self.stop_fraction <= 1.0:
            raise ValueError(f"stop_fraction={self.stop_fraction!r}: must lie in (0, 1]")
        if self.n < 2:
            raise ValueError(f"n={self.n!r}: entropy over candidates needs at least 2 samples per step")

    def generate_config(self) -> GenerateConfig:
        """The sampling config of a batched step (one call, n samples, stopping at a newline)."""
        return GenerateConfig(n=self.n, temperature=self.temperature, top_p=self.top_p,
                              max_tokens=self.max_tokens, stop=("\n",), seed=self.seed)


@dataclass(frozen=True)
class Candidate:
    """One sampled next step."""

    text: str
    """The candidate, whitespace-stripped."""
    logprobs: tuple[float, ...]
    """Per-token log-probabilities (natural log)."""
    is_stop: bool
    """True when it starts with the stop word."""
    finish_reason: str
    """"stop" (newline or end of sequence) or "length" (hit max_tokens)."""

    @property
    def sum_logprob(self) -> float:
        """log p(s) = sum_j log p(x_j | x_<j); -inf for a candidate with no tokens (no evidence of mass)."""
        return float(sum(self.logprobs)) if self.logprobs else -math.inf


@dataclass(frozen=True)
class StepResult:
    """One step of a chain: its candidates, their clusters and entropies."""

    index: int
    """1-based step number."""
    candidates: tuple[Candidate, ...]
    """The n sampled candidates."""
    cluster_ids: tuple[int, ...]
    """Cluster of each candidate."""
    n_clusters: int
    """Number of distinct clusters."""
    se_discrete: float
    """Discrete semantic entropy (nats)."""
    se_probability: float
    """Probability-weighted semantic entropy (nats)."""
    se_length_normalized: float
    """Length-normalized semantic entropy (nats)."""
    judge_calls: int
    """Entailment pairs judged to cluster this step."""
    stop_votes: int
    """Candidates that said STOP."""
    chosen: int | None
    """Index of the candidate appended to the chain; None when the chain ended here."""
    sample_seconds: float
    """Wall time of sampling the candidates."""
    cluster_seconds: float
    """Wall time of clustering them."""


@dataclass(frozen=True)
class Chain:
    """One problem solved step by step, with the entropy of every step."""

    id: str
    """Hash of problem, model, judge, prompt and settings: the resume key."""
    problem_id: str
    """Problem.id."""
    domain: str
    """Problem.domain."""
    model: str
    """Identity of the sampling model."""
    judge: str
    """Identity of the entailment judge."""
    settings: StepwiseSettings
    """Sampling and stopping settings."""
    steps: tuple[StepResult, ...]
    """The steps, in order."""
    ended: Literal["stop", "cap", "empty"]
    """Why the chain ended: STOP majority, step cap, or no usable candidate."""

    @property
    def solution(self) -> tuple[str, ...]:
        """The chosen steps."""
        return tuple(s.candidates[s.chosen].text for s in self.steps if s.chosen is not None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Chain:
        steps = tuple(
            StepResult(**{**s, "candidates": tuple(Candidate(**{**c, "logprobs": tuple(c["logprobs"])}) for c in s["candidates"]),
                          "cluster_ids": tuple(s["cluster_ids"])})
            for s in d["steps"]
        )
        return cls(**{**d, "settings": StepwiseSettings(**d["settings"]), "steps": steps})


def chain_id(problem: Problem, model: str, judge: str, template: StepPrompt, settings: StepwiseSettings) -> str:
    """Stable id of one run; identical inputs give the identical id."""
    key = json.dumps([problem.id, problem.text, model, judge, asdict(template), asdict(settings)], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def sample_candidates(lm: Any, prompt: str, settings: StepwiseSettings, template: StepPrompt) -> list[Candidate]:
    """n candidates for the next step: one call with n samples, or n calls of one sample (seeds seed..seed+n-1)."""
    cfg = settings.generate_config()
    if settings.batched:
        completions = lm.generate([prompt], cfg)[0]
    else:
        completions = [lm.generate([prompt], cfg.merge(n=1, seed=settings.seed + i))[0][0] for i in range(settings.n)]
    return [
        Candidate(c.text.strip(), tuple(float(v) for v in c.logprobs), template.is_stop(c.text.strip()), c.finish_reason)
        for c in completions
    ]


def cluster_candidates(
    candidates: Sequence[Candidate], judge: EntailmentJudge, *, context: str | None, batch_size: int
) -> tuple[list[int], int]:
    """Cluster ids of the candidates and the judge calls made.

    Content candidates are clustered by bidirectional entailment; all STOP candidates share one
    extra cluster and all empty candidates another.
    """
    content = [i for i, c in enumerate(candidates) if c.text and not c.is_stop]
    clustering = cluster_by_bidirectional_entailment(
        [candidates[i].text for i in content], judge, context=context, batch_size=batch_size
    )
    ids = [-1] * len(candidates)
    for i, cid in zip(content, clustering.ids):
        ids[i] = cid
    extra = clustering.n_clusters
    for kind in ("stop", "empty"):
        members = [i for i, c in enumerate(candidates)
                   if (c.is_stop if kind == "stop" else (not c.text and not c.is_stop))]
        if members:
            for i in members:
                ids[i] = extra
            extra += 1
    return ids, clustering.judge_calls


def run_step(
    lm: Any, judge: EntailmentJudge, problem: Problem, template: StepPrompt, settings: StepwiseSettings,
    steps_so_far: Sequence[str], index: int,
) -> StepResult:
    """Sample, cluster and score one step; choose the most probable content candidate unless STOP wins."""
    t0 = time.perf_counter()
    cands = sample_candidates(lm, template.render(problem.text, steps_so_far), settings, template)
    t1 = time.perf_counter()
    ids, calls = cluster_candidates(cands, judge, context=problem.text, batch_size=settings.cluster_batch)
    t2 = time.perf_counter()
    texts = [c.text for c in cands]
    stop_votes = sum(c.is_stop for c in cands)
    usable = [i for i, c in enumerate(cands) if c.text and not c.is_stop]
    ends = stop_votes >= settings.stop_fraction * len(cands) or not usable
    weighable = any(c.logprobs for c in cands)  # with no token anywhere, probability weights are undefined
    chosen = None if ends else max(usable, key=lambda i: cands[i].sum_logprob)
    return StepResult(
        index=index,
        candidates=tuple(cands),
        cluster_ids=tuple(ids),
        n_clusters=len(set(ids)),
        se_discrete=discrete_semantic_entropy(ids),
        se_probability=(probability_weighted_semantic_entropy(ids, [c.sum_logprob for c in cands], texts)
                        if weighable else math.nan),
        se_length_normalized=(length_normalized_semantic_entropy(ids, [c.logprobs for c in cands], texts)
                              if weighable else math.nan),
        judge_calls=calls,
        stop_votes=stop_votes,
        chosen=chosen,
        sample_seconds=t1 - t0,
        cluster_seconds=t2 - t1,
    )


def run_chain(
    lm: Any, judge: EntailmentJudge, problem: Problem, template: StepPrompt, settings: StepwiseSettings
) -> Chain:
    """Run the step-wise protocol on one problem until STOP majority or the step cap."""
    steps: list[StepResult] = []
    solution: list[str] = []
    ended: Literal["stop", "cap", "empty"] = "cap"
    for k in range(1, settings.step_cap + 1):
        step = run_step(lm, judge, problem, template, settings, solution, k)
        steps.append(step)
        if step.chosen is None:
            ended = "stop" if step.stop_votes >= settings.stop_fraction * settings.n else "empty"
            break
        solution.append(step.candidates[step.chosen].text)
    return Chain(
        id=chain_id(problem, lm.identity, judge.identity, template, settings),
        problem_id=problem.id, domain=problem.domain, model=lm.identity, judge=judge.identity,
        settings=settings, steps=tuple(steps), ended=ended,
    )


def run_chains(
    lm: Any, judge: EntailmentJudge, problems: Sequence[Problem], template: StepPrompt,
    settings: Sequence[StepwiseSettings], out_path: str | Path, *, progress: bool = True,
) -> list[Chain]:
    """Run every (problem, settings) pair, appending each finished chain to `out_path` (JSONL).

    Chains already in the file (same id) are skipped, so an interrupted run resumes where it
    stopped. Returns the chains of this grid, read back or freshly computed, in grid order.
    """
    jobs = [(p, s) for s in settings for p in problems]
    ids = [chain_id(p, lm.identity, judge.identity, template, s) for p, s in jobs]
    done = {r["id"] for r in read_jsonl(out_path)}
    todo = [(j, i) for j, i in zip(jobs, ids) if i not in done]
    for (p, s), _ in tqdm(todo, desc=f"step-wise SE {lm.identity}", disable=not progress or not todo):
        append_jsonl(out_path, [run_chain(lm, judge, p, template, s).to_dict()])
    stored = {r["id"]: r for r in read_jsonl(out_path)}
    return [Chain.from_dict(stored[i]) for i in ids]
