"""Rule-based creativity metrics: surprisal, lexical divergence, semantic novelty, volume gain, diversity."""

from llmcreativity.metrics.divergence import (
    KL_WINDOW,
    LEXICAL_KL_MODES,
    kl_divergence,
    lexical_divergence,
    lexical_divergences,
    lexical_kl,
    smoothed_distribution,
    windowed_lexical_divergences,
)
from llmcreativity.metrics.diversity import distinct_n, mean_pairwise_cosine, self_bleu
from llmcreativity.metrics.novelty import Novelty, semantic_novelty, semantic_novelty_batch
from llmcreativity.metrics.surprisal import (
    PROMPT_CONTEXT,
    SURPRISAL_CONTEXTS,
    Surprisal,
    check_surprisal_context,
    first_words,
    mean_surprisal,
    story_surprisal,
    surprisal_from_logprobs,
)
from llmcreativity.metrics.volume import VolumeReference, logdet_cov, volume_gain_direct

__all__ = [
    "KL_WINDOW",
    "LEXICAL_KL_MODES",
    "PROMPT_CONTEXT",
    "SURPRISAL_CONTEXTS",
    "Novelty",
    "Surprisal",
    "VolumeReference",
    "check_surprisal_context",
    "distinct_n",
    "kl_divergence",
    "lexical_divergence",
    "lexical_divergences",
    "lexical_kl",
    "logdet_cov",
    "mean_pairwise_cosine",
    "first_words",
    "mean_surprisal",
    "self_bleu",
    "semantic_novelty",
    "semantic_novelty_batch",
    "smoothed_distribution",
    "story_surprisal",
    "surprisal_from_logprobs",
    "volume_gain_direct",
    "windowed_lexical_divergences",
]
