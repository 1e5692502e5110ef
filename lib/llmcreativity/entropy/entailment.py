"""Entailment judges: does statement A entail statement B?

Three interchangeable judges behind one protocol:

* `LLMEntailmentJudge` asks an instruct model a yes/no question and reads p(Yes) from its
  next-token probabilities (`lm.answer_probs`); the backend's persistent cache stores every answer.
* `NLIEntailmentJudge` runs a natural-language-inference cross-encoder (e.g. a DeBERTa model
  fine-tuned on MNLI) through `transformers`, for users who have one on disk.
* `EmbeddingSimilarityJudge` is a cheap **approximation, not entailment**: it says "entails" when
  the cosine similarity of two sentence embeddings reaches a threshold, which is symmetric.

Every judge counts the (premise, hypothesis) pairs it was asked about in `calls`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from ..llm.backend import Backend, TextEmbedder
from ..llm.call_policy import CallPolicy

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

Pair = tuple[str, str]
"""(premise, hypothesis): the question is whether the premise entails the hypothesis."""


@runtime_checkable
class EntailmentJudge(Protocol):
    """Decides, for each (premise, hypothesis) pair, whether the premise entails the hypothesis."""

    identity: str
    """Names the judge and every setting that changes its decisions."""
    calls: int
    """Number of pairs judged so far (cache hits included)."""

    def entails(self, pairs: Sequence[Pair], context: str | None = None) -> list[bool]:
        """One decision per pair; `context` (e.g. the problem both statements answer) may inform it."""
        ...


def _check_pairs(pairs: Sequence[Pair]) -> None:
    for p in pairs:
        if not (isinstance(p, tuple) and len(p) == 2 and all(isinstance(s, str) for s in p)):
            raise ValueError(f"pair {p!r}: each pair must be a (premise, hypothesis) tuple of two strings")


class LLMEntailmentJudge:
    """Asks an instruct model "does A entail B?" and answers Yes when p(Yes | prompt) >= threshold.

    p(Yes) is read from `lm.answer_probs(messages, [yes, no])`, renormalized over the two answers.
    """

    def __init__(self, lm: Backend, *, answers: Sequence[str] = ("Yes", "No"), threshold: float = 0.5):
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold={threshold!r}: must lie strictly between 0 and 1")
        if len(answers) != 2 or answers[0] == answers[1]:
            raise ValueError(f"answers={answers!r}: give the (yes, no) answer strings, e.g. ('Yes', 'No')")
        self.lm = lm
        self.answers: tuple[str, str] = (answers[0], answers[1])
        self.threshold = threshold
        self.calls = 0
        self.identity = f"llm-entailment({lm.identity}, answers={answers[0]}/{answers[1]}, threshold={threshold})"

    def messages(self, premise: str, hypothesis: str, context: str | None = None) -> list[dict[str, str]]:
        """The chat prompt that asks whether `premise` entails `hypothesis`."""
        ctx = f"Both statements answer this task:\n{context.strip()}\n\n" if context else ""
        yes, no = self.answers
        user = (
            f"{ctx}Statement A: {premise.strip()}\n"
            f"Statement B: {hypothesis.strip()}\n\n"
            "If Statement A is true, does Statement B have to be true as well, "
            f"so that B says nothing A does not? Answer {yes} or {no}."
        )
        return [
            {"role": "system", "content": "You judge whether one statement entails another. Reply with one word."},
            {"role": "user", "content": user},
        ]

    def yes_probability(self, premise: str, hypothesis: str, context: str | None = None) -> float:
        """p(yes) renormalized over the two answers."""
        dist = self.lm.answer_probs(self.messages(premise, hypothesis, context), list(self.answers))
        return float(dist.probs[self.answers[0]])

    def entails(self, pairs: Sequence[Pair], context: str | None = None) -> list[bool]:
        _check_pairs(pairs)
        self.calls += len(pairs)
        return [self.yes_probability(a, b, context) >= self.threshold for a, b in pairs]


class NLIEntailmentJudge:
    """A natural-language-inference cross-encoder: entails when the argmax label is the entailment label.

    `model` is a Hugging Face id or a local folder of a sequence-classification model whose
    `config.id2label` names an entailment class (e.g. microsoft/deberta-large-mnli). Pairs are
    scored in batches of `batch_size`. The context, if given, is prefixed to both statements.
    Each pair's verdict is kept in the call cache (`cache`, as `get_backend`'s) under
    hash(identity, "entail", premise, hypothesis) and logged to the call log of its call policy (`policy`, as a
    `CachedBackend`'s: the run's by default, fixed when the judge is made), so a replay answers it without the
    model, which loads only for the pairs the cache lacks.
    """

    def __init__(self, model: str | Path, *, batch_size: int = 16, device: str = "cpu",
                 cache: str | Path | None = "default", cache_only: bool | None = None,
                 policy: CallPolicy | None = None):
        from ..llm.cache_wrapping import open_call_cache

        self.path = str(model)
        self.batch_size = batch_size
        self.device = device
        self.calls = 0
        self.identity = f"nli-entailment({model})"
        self.cache = open_call_cache(cache)
        run_policy = CallPolicy.from_context() if policy is None else policy
        self.policy = run_policy.for_wrapper(self.cache is not None, cache_only)
        """How the judge answers and logs its verdicts (`llm.call_policy.CallPolicy.for_wrapper`)."""

    @property
    def cache_only(self) -> bool:
        """Whether a pair the cache lacks raises `CacheMiss` instead of being computed (a replay)."""
        return self.policy.cache_only

    @functools.cached_property
    def _model(self) -> tuple[PreTrainedTokenizerBase, PreTrainedModel, int]:
        """(tokenizer, model, index of the entailment label), loaded on the first pair the cache lacks."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(self.path)
        model = AutoModelForSequenceClassification.from_pretrained(self.path).to(self.device).eval()
        labels = {i: str(name).lower() for i, name in model.config.id2label.items()}
        hits = [i for i, name in labels.items() if name.startswith("entail")]
        if len(hits) != 1:
            raise ValueError(
                f"model {self.path}: config.id2label={labels} has no single 'entailment' label; "
                "use an NLI model (e.g. one fine-tuned on MNLI)"
            )
        return tokenizer, model, hits[0]

    def _compute(self, pairs: Sequence[Pair]) -> list[bool]:
        import torch

        tokenizer, model, entailment = self._model
        out: list[bool] = []
        for start in range(0, len(pairs), self.batch_size):
            chunk = pairs[start : start + self.batch_size]
            enc = tokenizer([a for a, _ in chunk], [b for _, b in chunk], padding=True, truncation=True,
                            return_tensors="pt").to(self.device)
            with torch.no_grad():
                logits = model(**enc).logits
            out.extend((logits.argmax(dim=-1) == entailment).tolist())
        return out

    def entails(self, pairs: Sequence[Pair], context: str | None = None) -> list[bool]:
        from ..llm.call_log import CacheMiss, LoggedCall, log_call, miss_message
        from ..llm.response_cache import cache_key

        _check_pairs(pairs)
        self.calls += len(pairs)
        prefix = f"{context.strip()} " if context else ""
        full = [(prefix + a, prefix + b) for a, b in pairs]
        keys = [cache_key(self.identity, "entail", a, b) for a, b in full]
        found: list[bool | None] = []
        for (a, b), key in zip(full, keys, strict=True):
            call = LoggedCall("nli", self.identity, "entail", [key], {"premise": a, "hypothesis": b},
                              stage=self.policy.stage)
            log_call(self.policy.call_log, call, batched=self.policy.cache_only)
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is None and self.policy.cache_only:
                raise CacheMiss(miss_message(call))
            found.append(None if hit is None else bool(hit))
        todo = [i for i, v in enumerate(found) if v is None]
        for i, verdict in zip(todo, self._compute([full[i] for i in todo]) if todo else [], strict=True):
            found[i] = bool(verdict)
            if self.cache is not None:
                self.cache.put(keys[i], found[i])
        return [bool(v) for v in found]


class EmbeddingSimilarityJudge:
    """APPROXIMATION, not entailment: "entails" when cos(emb(A), emb(B)) >= threshold.

    The decision is symmetric, so bidirectional clustering with it is threshold clustering on
    cosine similarity against cluster representatives. Embeddings are computed once per text
    and kept in memory; the context is ignored.
    """

    def __init__(self, embedder: TextEmbedder, *, threshold: float = 0.8):
        if not -1.0 <= threshold <= 1.0:
            raise ValueError(f"threshold={threshold!r}: a cosine similarity threshold lies in [-1, 1]")
        self.embedder = embedder
        self.threshold = threshold
        self.calls = 0
        self.identity = f"embedding-similarity-approximation({embedder.identity}, threshold={threshold})"
        self._vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalized embeddings of `texts`, encoding only texts not seen before, in one batch."""
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if new:
            for t, v in zip(new, np.asarray(self.embedder.encode(new), dtype=np.float32), strict=True):
                self._vectors[t] = v / max(float(np.linalg.norm(v)), 1e-12)
        return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    def entails(self, pairs: Sequence[Pair], context: str | None = None) -> list[bool]:
        _check_pairs(pairs)
        self.calls += len(pairs)
        if not pairs:
            return []
        a = self.embed([p[0] for p in pairs])
        b = self.embed([p[1] for p in pairs])
        return [bool(entailed) for entailed in np.sum(a * b, axis=1) >= self.threshold]
