"""Semantic entropy of step-wise solutions: sampling, entailment clustering and estimators."""

from .chains import STEP_SAMPLING, Candidate, Chain, StepResult, StepwiseSettings, chain_id
from .clustering import Clustering, cluster_by_bidirectional_entailment
from .domains import (
    HYPOGEN_PROMPT,
    MACGYVER_PROMPT,
    SCIFI_PROMPT,
    Problem,
    StepPrompt,
    hypogen_astro_problems,
    macgyver_problems,
    scifi_problems,
)
from .entailment import EmbeddingSimilarityJudge, EntailmentJudge, LLMEntailmentJudge, NLIEntailmentJudge
from .grid_run import run_chains
from .se_estimators import (
    cluster_log_probabilities,
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)
from .stepwise import run_chain, run_step

__all__ = [
    "HYPOGEN_PROMPT", "MACGYVER_PROMPT", "SCIFI_PROMPT", "STEP_SAMPLING", "Candidate", "Chain", "Clustering",
    "EmbeddingSimilarityJudge", "EntailmentJudge", "LLMEntailmentJudge", "NLIEntailmentJudge", "Problem", "StepPrompt",
    "StepResult", "StepwiseSettings", "chain_id", "cluster_by_bidirectional_entailment", "cluster_log_probabilities",
    "discrete_semantic_entropy", "hypogen_astro_problems", "length_normalized_semantic_entropy", "macgyver_problems",
    "probability_weighted_semantic_entropy", "run_chain", "run_chains", "run_step", "scifi_problems",
]
