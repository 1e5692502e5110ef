"""The records of the step-wise protocol: its settings, the candidates of a step, a step, a chain, and the chain id.

A `Chain` is stored as its JSON form (`dataclass_json.to_json`), one line of the chains file; its settings in their
flat form (`StepwiseSettings.to_dict`)."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..llm.generate_config import GenerateConfig
from ..llm.types import FinishReason
from .domains import Problem, StepPrompt

STEP_SAMPLING = GenerateConfig(n=10, temperature=0.8, max_tokens=48)
"""Default sampling of a step: 10 candidates at temperature 0.8, at most 48 tokens each."""

Continuation = Literal["greedy", "best_sample"]
"""What a step appends to the chain: one temperature-0 continuation ("greedy", the paper's protocol) or the
sampled candidate with the highest sequence log-probability ("best_sample", which favours short candidates)."""
CONTINUATIONS: tuple[str, ...] = ("greedy", "best_sample")
"""The values of `Continuation`."""

ChainEnd = Literal["greedy", "votes"]
"""What ends a greedy chain: the greedy continuation's own STOP ("greedy", the paper's "repeated until done": the
samples only measure SE, their STOP votes are recorded as data) or at least `stop_fraction` of the sampled candidates
saying STOP before the greedy step is decoded ("votes", this project's earlier rule, kept as an option). A
"best_sample" chain has no greedy continuation and always ends by the votes."""
CHAIN_ENDS: tuple[str, ...] = ("greedy", "votes")
"""The values of `ChainEnd`."""


@dataclass(frozen=True)
class StepwiseSettings:
    """Sampling and stopping settings of one step-wise run.

    Stored (and hashed into the chain id) in the flat form of `to_dict`: n, temperature, top_p,
    max_tokens, seed, step_cap, stop_fraction, batched, cluster_batch and, unless it is the rule every
    chain stored before greedy chaining used ("best_sample"), continuation; so a greedy chain never
    shares an id with a best-sample chain, and best-sample chains keep their ids. A greedy chain that
    ends by its own continuation also stores `chain_end` ("greedy"): greedy chains ended by the sample
    votes (every greedy chain stored before) keep their ids, and the two rules never share one.
    """

    sampling: GenerateConfig = STEP_SAMPLING
    """Sampling of the candidates: n candidates per step, each ending at a newline (added to `stop`)."""
    step_cap: int = 3
    """Most steps per chain."""
    stop_fraction: float = 0.5
    """Under `chain_end="votes"` (and "best_sample"), the chain ends when at least this share of a step's candidates
    say STOP; unused by the greedy end."""
    batched: bool = True
    """Sample the n candidates in one call (True) or in n calls of one sample each (False)."""
    cluster_batch: int = 4
    """Cluster representatives compared per judge call."""
    continuation: Continuation = "greedy"
    """What each step appends: one temperature-0 continuation ("greedy") or the most probable sample
    ("best_sample"); see `Continuation`."""
    chain_end: ChainEnd = "greedy"
    """What ends a greedy chain: its own continuation saying STOP ("greedy") or the sample votes ("votes"); see
    `ChainEnd`. Set to "votes" under "best_sample", which has no greedy continuation."""

    def __post_init__(self) -> None:
        if self.continuation not in CONTINUATIONS:
            raise ValueError(f"continuation={self.continuation!r}: use 'greedy' (one temperature-0 continuation per "
                             "step, the paper's protocol) or 'best_sample' (the most probable sampled candidate)")
        if self.chain_end not in CHAIN_ENDS:
            raise ValueError(f"chain_end={self.chain_end!r}: use 'greedy' (the greedy continuation's own STOP ends the "
                             "chain, the paper's protocol) or 'votes' (stop_fraction of the samples say STOP)")
        if self.continuation == "best_sample":  # no greedy continuation to end the chain: the votes do
            object.__setattr__(self, "chain_end", "votes")
        if not isinstance(self.step_cap, int) or self.step_cap < 1:
            raise ValueError(f"step_cap={self.step_cap!r}: must be an integer >= 1")
        if not 0.0 < self.stop_fraction <= 1.0:
            raise ValueError(f"stop_fraction={self.stop_fraction!r}: must lie in (0, 1]")
        if self.sampling.n < 2:
            raise ValueError(f"sampling.n={self.sampling.n!r}: entropy over candidates needs at least 2 samples per "
                             "step")

    def generate_config(self) -> GenerateConfig:
        """The sampling config of a batched step: `sampling`, stopping at a newline, with log-probabilities (the
        estimators weigh candidates by them, whatever `sampling.logprobs` says)."""
        stop = self.sampling.stop if "\n" in self.sampling.stop else (*self.sampling.stop, "\n")
        return self.sampling.merge(stop=stop, logprobs=True)

    def to_dict(self) -> dict[str, Any]:
        """The flat plain-JSON form stored in every chain ("stop" only when `sampling` sets one; "continuation" only
        when it is not "best_sample"; "chain_end" only when it is not "votes", the rule of every chain stored before
        it)."""
        flat = self.sampling.to_flat(omit=("logprobs",))  # always on for a step (`generate_config`)
        seed = flat.pop("seed")  # stored after the stopping rule, as in every chain written so far
        return {**flat, "step_cap": self.step_cap, "stop_fraction": self.stop_fraction, "seed": seed,
                "batched": self.batched, "cluster_batch": self.cluster_batch,
                **({} if self.continuation == "best_sample" else {"continuation": self.continuation}),
                **({} if self.chain_end == "votes" else {"chain_end": self.chain_end})}

    def greedy_config(self) -> GenerateConfig:
        """The config of a step's one greedy continuation: `generate_config` with n = 1 and temperature 0."""
        return self.generate_config().merge(n=1, temperature=0.0)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StepwiseSettings:
        """Inverse of `to_dict`; a record without "continuation" predates greedy chaining and used "best_sample", one
        without "chain_end" ended by the sample votes."""
        sampling, rest = GenerateConfig.from_flat(d)
        return cls(sampling, **{"continuation": "best_sample", "chain_end": "votes", **rest})


@dataclass(frozen=True)
class Candidate:
    """One sampled next step."""

    text: str
    """The candidate, whitespace-stripped."""
    logprobs: tuple[float, ...]
    """Per-token log-probabilities (natural log)."""
    is_stop: bool
    """True when it starts with the stop word."""
    finish_reason: FinishReason
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
    """Index of the sampled candidate appended to the chain ("best_sample"); None under "greedy" or when the chain
    ended here."""
    sample_seconds: float
    """Wall time of sampling the candidates."""
    cluster_seconds: float
    """Wall time of clustering them."""
    continuation: Candidate | None = None
    """The temperature-0 continuation ("greedy"), appended unless the chain ended here; None under "best_sample"."""
    ended: bool = False
    """True when the chain ended at this step (a STOP or empty greedy continuation; under the "votes" rule also a STOP
    majority of the samples; under "best_sample" no usable candidate)."""

    @classmethod
    def upgrade_row(cls, row: dict[str, Any], schema: int) -> dict[str, Any]:
        """A stored step in the current form: a step stored before `ended` existed ended the chain when it appended
        nothing (no chosen candidate and no continuation)."""
        return {"ended": row.get("chosen") is None and row.get("continuation") is None, **row}

    @property
    def appended(self) -> str | None:
        """The text this step appended to the chain; None when the chain ended here."""
        if self.ended:
            return None
        if self.continuation is not None:
            return self.continuation.text
        return None if self.chosen is None else self.candidates[self.chosen].text


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
    """Why the chain ended: "stop" (the greedy continuation said STOP; under the "votes" rule or "best_sample" also
    a STOP majority of the samples), "cap" (the step cap: an unfinished solution), or "empty" (an empty greedy
    continuation, or no usable sampled candidate under "best_sample")."""

    @property
    def solution(self) -> tuple[str, ...]:
        """The appended steps (`StepResult.appended`), in order."""
        return tuple(s.appended for s in self.steps if s.appended is not None)


def chain_id(problem: Problem, model: str, judge: str, template: StepPrompt, settings: StepwiseSettings) -> str:
    """Stable id of one run; identical inputs give the identical id."""
    key = json.dumps([problem.id, problem.text, model, judge, asdict(template), settings.to_dict()], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:20]
