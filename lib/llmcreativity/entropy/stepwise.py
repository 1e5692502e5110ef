"""The step-wise semantic-entropy protocol.

For one problem, each step has two stages (the paper's protocol, `continuation="greedy"`):

1. sample n candidate next steps with their token log-probabilities, cluster them by bidirectional
   entailment and compute semantic entropy over the clusters (the samples serve the entropy only);
2. decode one continuation at temperature 0, y_k = argmax-decode p(. | x, y_1..y_{k-1}), and append it.

With `continuation="best_sample"` stage 2 is skipped and the sampled candidate with the highest
sequence log-probability sum_j log p(x_j | x_<j) is appended instead (this favours the shortest).
Under "greedy" the chain ends when the greedy continuation says the solution is complete (it starts with
the domain's stop word) or is empty, or at the step cap (`chain_end="greedy"`, the paper's "repeated until
done"); the samples' STOP votes are recorded but end nothing. The option `chain_end="votes"` (this
project's earlier rule, and always under "best_sample") ends the chain as soon as at least `stop_fraction`
of the candidates say STOP, before any greedy step is decoded.

Candidates that say STOP form one cluster, and empty candidates another, without asking the judge.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Literal

from ..llm.backend import Backend
from .chains import Candidate, Chain, StepResult, StepwiseSettings, chain_id
from .clustering import cluster_by_bidirectional_entailment
from .domains import Problem, StepPrompt
from .entailment import EntailmentJudge
from .se_estimators import (
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)


def sample_candidates(lm: Backend, prompt: str, settings: StepwiseSettings, template: StepPrompt) -> list[Candidate]:
    """n candidates for the next step: one call with n samples, or n calls of one sample (seeds seed..seed+n-1)."""
    cfg = settings.generate_config()
    if settings.batched:
        completions = lm.generate([prompt], cfg)[0]
    else:
        completions = [lm.generate([prompt], cfg.merge(n=1, seed=cfg.seed + i))[0][0] for i in range(cfg.n)]
    return [
        Candidate(c.text.strip(), tuple(float(v) for v in c.logprobs), template.is_stop(c.text.strip()),
                  c.finish_reason)
        for c in completions
    ]


def sample_greedy(lm: Backend, prompt: str, settings: StepwiseSettings, template: StepPrompt) -> Candidate:
    """The step's one temperature-0 continuation (`settings.greedy_config()`), as a Candidate."""
    c = lm.generate([prompt], settings.greedy_config())[0][0]
    text = c.text.strip()
    return Candidate(text, tuple(float(v) for v in c.logprobs), template.is_stop(text), c.finish_reason)


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
    for i, cid in zip(content, clustering.ids, strict=True):
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
    lm: Backend, judge: EntailmentJudge, problem: Problem, template: StepPrompt, settings: StepwiseSettings,
    steps_so_far: Sequence[str], index: int,
) -> StepResult:
    """Sample, cluster and score one step; then decode the greedy continuation ("greedy"; under `chain_end="votes"`
    only unless STOP wins the sample vote) or, unless STOP wins, choose the most probable content candidate
    ("best_sample")."""
    t0 = time.perf_counter()
    cands = sample_candidates(lm, template.render(problem.text, steps_so_far), settings, template)
    t1 = time.perf_counter()
    ids, calls = cluster_candidates(cands, judge, context=problem.text, batch_size=settings.cluster_batch)
    t2 = time.perf_counter()
    texts = [c.text for c in cands]
    stop_votes = sum(c.is_stop for c in cands)
    usable = [i for i, c in enumerate(cands) if c.text and not c.is_stop]
    weighable = any(c.logprobs for c in cands)  # with no token anywhere, probability weights are undefined
    chosen = greedy = None
    voted_stop = stop_votes >= settings.stop_fraction * len(cands)
    if settings.continuation == "greedy":
        ends = settings.chain_end == "votes" and voted_stop
        if not ends:
            greedy = sample_greedy(lm, template.render(problem.text, steps_so_far), settings, template)
            ends = greedy.is_stop or not greedy.text
    else:
        ends = voted_stop or not usable
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
        continuation=greedy,
        ended=ends,
    )


def run_chain(
    lm: Backend, judge: EntailmentJudge, problem: Problem, template: StepPrompt, settings: StepwiseSettings
) -> Chain:
    """Run the step-wise protocol on one problem until it ends (`StepwiseSettings.chain_end`) or the step cap."""
    steps: list[StepResult] = []
    solution: list[str] = []
    ended: Literal["stop", "cap", "empty"] = "cap"
    for k in range(1, settings.step_cap + 1):
        step = run_step(lm, judge, problem, template, settings, solution, k)
        steps.append(step)
        if step.appended is None:
            voted = settings.chain_end == "votes" and step.stop_votes >= settings.stop_fraction * settings.sampling.n
            said_stop = voted or (step.continuation is not None and step.continuation.is_stop)
            ended = "stop" if said_stop else "empty"
            break
        solution.append(step.appended)
    return Chain(
        id=chain_id(problem, lm.identity, judge.identity, template, settings),
        problem_id=problem.id, domain=problem.domain, model=lm.identity, judge=judge.identity,
        settings=settings, steps=tuple(steps), ended=ended,
    )
