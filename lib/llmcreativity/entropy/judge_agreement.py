"""The entailment-validation chapter's judges and their repeated agreement with the MuseScorer coders."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pandas as pd

from ..llm import get_role_backend
from ..llm.backend import Backend, TextEmbedder
from .entailment import EmbeddingSimilarityJudge, EntailmentJudge, LLMEntailmentJudge, NLIEntailmentJudge
from .musescorer_validation import agreement_table, sample_round


def entailment_judges(llm_models: Sequence[str], llm_thresholds: Sequence[float], answers: Sequence[str],
                      embedder: TextEmbedder, thresholds: Sequence[float], nli_model: str = "",
                      load: Callable[[str], Backend] | None = None) -> dict[str, EntailmentJudge]:
    """Fresh judges by name: an LLM judge per (model, p(Yes) threshold), an embedding judge per cosine threshold,
    and the NLI cross-encoder at `nli_model` when one is given. `load` turns a model (a role spec) into a backend
    (None: the backend of role `entailment_judges`)."""
    load = load or (lambda spec: get_role_backend("entailment_judges", spec))
    judges: dict[str, EntailmentJudge] = {
        f"LLM {m} p>={t}": LLMEntailmentJudge(load(m), answers=answers, threshold=t)
        for m in llm_models for t in llm_thresholds}
    judges |= {f"embedding cos>={t}": EmbeddingSimilarityJudge(embedder, threshold=t) for t in thresholds}
    if nli_model:
        judges[f"NLI {nli_model}"] = NLIEntailmentJudge(nli_model)
    return judges


def repeated_agreement(ideas: pd.DataFrame, round_id: int, size: int, repeats: int,
                       make_judges: Callable[[], dict[str, EntailmentJudge]], *, seed: int = 0,
                       batch_size: int = 4) -> pd.DataFrame:
    """`agreement_table` on `repeats` random samples of `size` ideas of one round (sample r drawn with seed + r),
    each with fresh judges from `make_judges`; columns `repeat` and `seconds` (wall time of that sample) added."""
    rows = []
    for rep in range(repeats):
        sample = sample_round(ideas, round_id, size, seed=seed + rep)
        t0 = time.perf_counter()
        table = agreement_table(sample, make_judges(), batch_size=batch_size)
        rows.append(table.assign(repeat=rep, seconds=time.perf_counter() - t0))
    return pd.concat(rows, ignore_index=True)
