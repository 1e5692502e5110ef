"""The records of the step-wise protocol: its settings, the candidates of a step, a step, a chain, and the chain id."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..llm.config import GenerateConfig
from ..llm.types import FinishReason
from .domains import Problem, StepPrompt

STEP_SAMPLING = GenerateConfig(n=10, temperature=0.8, max_tokens=48)
"""Default sampling of a step: 10 candidates at temperature 0.8, at most 48 tokens each."""


@dataclass(frozen=True)
class StepwiseSettings:
    """Sampling and stopping settings of one step-wise run.

    Stored (and hashed into the chain id) in the flat form of `to_dict`: n, temperature, top_p,
    max_tokens, seed, step_cap, stop_fraction, batched, cluster_batch.
    """

    sampling: GenerateConfig = STEP_SAMPLING
    """Sampling of the candidates: n candidates per step, each ending at a newline (added to `stop`)."""
    step_cap: int = 3
    """Most steps per chain."""
    stop_fraction: float = 0.5
    """The chain ends when at least this share of a step's candidates say STOP."""
    batched: bool = True
    """Sample the n candidates in one call (True) or in n calls of one sample each (False)."""
    cluster_batch: int = 4
    """Cluster representatives compared per judge call."""

    def __post_init__(self) -> None:
        if not isinstance(self.step_cap, int) or self.step_cap < 1:
            raise ValueError(f"step_cap={self.step_cap!r}: must be an integer >= 1")
        if not 0.0 < self.stop_fraction <= 1.0:
            raise ValueError(f"stop_fraction={self.stop_fraction!r}: must lie in (0, 1]")
        if self.sampling.n < 2:
            raise ValueError(f"sampling.n={self.sampling.n!r}: entropy over candidates needs at least 2 samples per "
                             "step")

    def generate_config(self) -> GenerateConfig:
        """The sampling config of a batched step: `sampling`, stopping at a newline."""
        stop = self.sampling.stop if "\n" in self.sampling.stop else (*self.sampling.stop, "\n")
        return self.sampling.merge(stop=stop)

    def to_dict(self) -> dict[str, Any]:
        """The flat plain-JSON form stored in every chain ("stop" only when `sampling` sets one)."""
        flat = self.sampling.to_flat()
        seed = flat.pop("seed")  # stored after the stopping rule, as in every chain written so far
        return {**flat, "step_cap": self.step_cap, "stop_fraction": self.stop_fraction, "seed": seed,
                "batched": self.batched, "cluster_batch": self.cluster_batch}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StepwiseSettings:
        """Inverse of `to_dict`."""
        sampling, rest = GenerateConfig.from_flat(d)
        return cls(sampling, **rest)


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
        """Plain-JSON form (one line of the chains file); settings in their flat form."""
        return {**asdict(self), "settings": self.settings.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Chain:
        """Inverse of `to_dict`."""
        steps = tuple(
            StepResult(**{**s, "cluster_ids": tuple(s["cluster_ids"]),
                          "candidates": tuple(Candidate(**{**c, "logprobs": tuple(c["logprobs"])})
                                              for c in s["candidates"])})
            for s in d["steps"]
        )
        return cls(**{**d, "settings": StepwiseSettings.from_dict(d["settings"]), "steps": steps})


def chain_id(problem: Problem, model: str, judge: str, template: StepPrompt, settings: StepwiseSettings) -> str:
    """Stable id of one run; identical inputs give the identical id."""
    key = json.dumps([problem.id, problem.text, model, judge, asdict(template), settings.to_dict()], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:20]
