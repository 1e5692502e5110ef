"""Language-model backends, the model registry, the call cache and usage accounting."""

from .backend import Backend, TextEmbedder, answer_probs_batch, check_prompt
from .cached_backend import CachedBackend, CacheMiss, CallRecord
from .generate_config import GenerateConfig
from .local_models import get_backend, get_embedder
from .registry import MODELS, ModelSpec, get_spec, materialize
from .response_cache import ResponseCache, cache_key
from .roles import get_role_backend, get_role_embedder
from .scripted import ScriptedBackend, ScriptedEmbedder
from .sentence_transformers_local import SentenceTransformersEmbedder
from .types import AnswerDistribution, Completion, Message, Prompt, TokenScores, Usage

__all__ = [
    "answer_probs_batch",
    "AnswerDistribution", "Backend", "CacheMiss", "CachedBackend", "CallRecord", "Completion", "GenerateConfig",
    "MODELS", "Message", "ModelSpec", "Prompt", "ResponseCache", "ScriptedBackend", "ScriptedEmbedder",
    "SentenceTransformersEmbedder", "TextEmbedder", "TokenScores", "Usage", "cache_key", "check_prompt",
    "get_backend", "get_embedder",
    "get_role_backend", "get_role_embedder", "get_spec", "materialize",
]
