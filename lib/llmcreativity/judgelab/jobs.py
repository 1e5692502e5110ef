"""The three judging jobs, one vocabulary: what each judges, on which human labels, with which gating statistic
and its chance value.

A job's id is the `claims.spec.JudgeKind` of the claims it gates, so a claim, a judge and its validity
record name the job alike.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JobSpec:
    """One judging job."""

    job: str
    """Its id, the `JudgeKind` of the claims it gates."""
    title: str
    """What is judged, in words."""
    labels: str
    """The human labels it is validated on."""
    statistic: str
    """The gating statistic of a judge's agreement with them."""
    chance: float
    """The statistic's value for a judge that knows nothing: the gate is a 95 % interval above it."""
    split: str
    """How its items are split into development and test."""
    baseline: str
    """What a fitted judge must beat on the same test items (paired)."""


JOBS: dict[str, JobSpec] = {
    "convergent": JobSpec("convergent", "solution validity", "MacGyver correct / wrong labels",
                          "AUC vs MacGyver labels", 0.5, "by problem (a seeded 30 % of problems for test)",
                          "source only (which model or person wrote the solution)"),
    "entailment": JobSpec("entailment", "semantic equivalence", "MuseScorer coders' same-idea buckets",
                          "mean ARI vs MuseScorer coders (held-out objects)", 0.0,
                          "by object (fit on 3, test on 2)", "the embedding-cosine judge, tuned alike"),
    "rubric": JobSpec("rubric", "story quality", "HANNA human ratings (3 raters x 6 criteria)",
                      "Spearman rho vs HANNA consensus (nested cross-validation)", 0.0,
                      "nested cross-validation over the 96 stories", "story length"),
}
"""Job id -> its spec."""


def job_spec(job: str) -> JobSpec:
    """The spec of `job`; an unknown job raises naming the known ones."""
    if job not in JOBS:
        raise ValueError(f"job={job!r} is not a judging job; choose one of {sorted(JOBS)}")
    return JOBS[job]
