"""Semantic entropy of step-wise solutions: sampling, entailment clustering and estimators."""

from .clustering import Clustering, cluster_by_bidirectional_entailment
from .domains import MACGYVER_PROMPT, SCIFI_PROMPT, Problem, StepPrompt, macgyver_problems, scifi_problems
from .entailment import EmbeddingSimilarityJudge, EntailmentJudge, LLMEntailmentJudge, NLIEntailmentJudge
from .estimators import (
    cluster_log_probabilities,
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)
from .stepwise import Candidate, Chain, StepResult, StepwiseSettings, run_chain, run_chains, run_step

__all__ = [
    "MACGYVER_PROMPT", "SCIFI_PROMPT", "Candidate", "Chain", "Clustering", "EmbeddingSimilarityJudge",
    "EntailmentJudge", "LLMEntailmentJudge", "NLIEntailmentJudge", "Problem", "StepPrompt", "StepResult",
    "StepwiseSettings", "cluster_by_bidirectional_entailment", "cluster_log_probabilities",
    "discrete_semantic_entropy", "length_normalized_semantic_entropy", "macgyver_problems",
    "probability_weighted_semantic_entropy", "run_chain", "run_chains", "run_step", "scifi_problems",
]
