"""The semantic-entropy chapter's sampling grid: every model x temperature x problem, one chain each."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..llm import get_role_backend
from .chains import Chain, StepwiseSettings
from .domains import HYPOGEN_PROMPT, MACGYVER_PROMPT, SCIFI_PROMPT, Problem
from .entailment import EntailmentJudge
from .grid_run import run_chains

TEMPLATES = {"macgyver": MACGYVER_PROMPT, "scifi100": SCIFI_PROMPT, "hypogen-astro": HYPOGEN_PROMPT}
"""Domain -> the step-wise prompt its problems are asked with."""


@dataclass(frozen=True)
class GridRun:
    """The chains of a grid, with what they cost and which registry name each model identity has."""

    chains: list[Chain]
    """Every chain, model by model, in `run_chains` order."""
    usage: pd.DataFrame
    """Each model's `usage_summary()` with a `model` column (registry name)."""
    names: dict[str, str]
    """Backend identity -> the registry name it was loaded from."""


def run_grid(models: Sequence[str], judge: EntailmentJudge, problems: Mapping[str, Sequence[Problem]],
             settings: Sequence[StepwiseSettings], out_path: str | Path, *,
             load: Callable[[str], Any] | None = None) -> GridRun:
    """`run_chains` for every model (a role spec) over every domain's problems (`TEMPLATES` prompt) and setting.

    Chains are appended to `out_path` as they finish; a re-run reads finished chains back. `load` turns a
    model's spec into a backend (None: the backend of role `se_models`, `llm.get_role_backend`).
    """
    load = load or (lambda spec: get_role_backend("se_models", spec))
    unknown = set(problems) - set(TEMPLATES)
    if unknown:
        raise ValueError(f"domains {sorted(unknown)} have no step prompt: use {sorted(TEMPLATES)}")
    chains: list[Chain] = []
    usage, names = [], {}
    for name in models:
        lm = load(name)
        names[lm.identity] = name
        for domain, domain_problems in problems.items():
            if domain_problems:
                chains += run_chains(lm, judge, domain_problems, TEMPLATES[domain], settings, out_path)
        usage.append(lm.usage_summary().assign(model=name))
    return GridRun(chains, pd.concat(usage, ignore_index=True) if usage else pd.DataFrame(), names)
