"""Tables of backend outputs for notebooks."""

from __future__ import annotations

import math

import pandas as pd

from .registry import MODELS
from .types import Completion


def registry_table() -> pd.DataFrame:
    """One row per registry model with its facts."""
    return pd.DataFrame([
        {"name": s.name, "kind": s.kind, "family": s.family, "parameters (M)": s.parameters,
         "chat template": s.chat, "pip packages": len(s.distributions),
         "assembled size (MB)": round(s.size_bytes / 2**20)}
        for s in MODELS.values()
    ])


def completions_table(samples: dict[float, list[Completion]]) -> pd.DataFrame:
    """One row per completion: temperature, text, length, log p(sequence) and mean token log-probability."""
    return pd.DataFrame([
        {"temperature": t, "sample": i, "text": c.text, "tokens": len(c.tokens), "finish": c.finish_reason,
         "log p(seq)": c.sum_logprob, "mean log p": c.mean_logprob,
         "perplexity": math.exp(-c.mean_logprob) if c.tokens else math.nan}
        for t, cs in samples.items() for i, c in enumerate(cs)
    ])


def token_table(completion: Completion) -> pd.DataFrame:
    """One row per token of `completion`: the token, log p and p."""
    return pd.DataFrame({"position": range(len(completion.tokens)), "token": completion.tokens,
                         "log p": completion.logprobs, "p": [math.exp(x) for x in completion.logprobs]})
