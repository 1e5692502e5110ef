"""Inputs of judge validation: labelled (problem, solution, label) tables, from MacGyver or from a user's file, and
the judges the chapter runs under a set of its parameters, as settings (`validation_arms`).

A user's own labelled data is a JSONL or CSV file with one row per item and the columns
`item_id` (unique text or number), `problem` (the task), `solution` (the response judged) and
`label` (the human verdict: true/false, 1/0, yes/no or valid/invalid). Optional extra columns
are kept (e.g. `problem_id` to stratify one item per problem).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..paths import require_file
from .criteria import criteria_set
from .judgement import JudgeItem
from .settings import (
    AnswerProbabilitySettings,
    ChatEvalSettings,
    JudgeSettings,
    PanelSettings,
    SingleCallSettings,
    on_base_model,
)

_TRUE = {"true", "1", "yes", "valid", "correct"}
_FALSE = {"false", "0", "no", "invalid", "wrong", "incorrect"}
REQUIRED = ("item_id", "problem", "solution", "label")
"""Columns a labelled file must have."""


def load_labelled(path: str | Path) -> pd.DataFrame:
    """Read a user's labelled file (JSONL or CSV) into columns item_id, problem, solution, valid (+ extras)."""
    p = require_file(path, "labelled data file", "give a JSONL or CSV with columns item_id, problem, solution, label")
    df = pd.read_json(p, lines=True) if p.suffix in {".jsonl", ".json"} else pd.read_csv(p)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"{p}: columns {missing} are missing; a labelled file needs {list(REQUIRED)}")
    text = df["label"].astype(str).str.strip().str.lower()
    bad = sorted(set(text) - _TRUE - _FALSE)
    if bad:
        raise ValueError(f"{p}: label values {bad[:5]} are not recognised; "
                         "use true/false, 1/0, yes/no or valid/invalid")
    df = df.assign(item_id=df["item_id"].astype(str), valid=text.isin(_TRUE)).drop(columns="label")
    if not df["item_id"].is_unique:
        raise ValueError(f"{p}: item_id values repeat; every item needs its own id")
    return df


def items_and_labels(df: pd.DataFrame) -> tuple[list[JudgeItem], dict[str, bool]]:
    """JudgeItems of a table with item_id, problem, solution, valid, and the label of each item_id."""
    missing = [c for c in ("item_id", "problem", "solution", "valid") if c not in df.columns]
    if missing:
        raise ValueError(f"columns {missing} are missing; expected item_id, problem, solution, valid")
    items = [JudgeItem(str(r.item_id), str(r.problem), str(r.solution)) for r in df.itertuples()]
    return items, {str(r.item_id): bool(r.valid) for r in df.itertuples()}


NO_EARLY_STOP = 1.01
"""T of the retrieval judge's twin without early stopping (T > 1 never stops), as the judge-validation chapter runs
it."""


@dataclass(frozen=True)
class ValidationArms:
    """The judges the judge-validation chapter runs under one set of its parameters, as settings: its `by_kind`
    table, the T-and-k sweep and B10's weaker base model."""

    by_kind: dict[str, JudgeSettings]
    """The chapter's kind ("single", "cot", "p_yes", "chateval", "retrieval", "retrieval, no early stop",
    "retrieval, partitioned"; `se_judge` names one) -> its judge's settings."""
    sweep: tuple[PanelSettings, ...]
    """The full-view retrieval judges of the sweep, one per (k, T) of `k_sweep` x `t_sweep`."""
    weak_model: str
    """B10's weaker base model of the paper's judge (`weak_convergent_judge`); "" when none is set."""

    def panel(self, kind: str) -> PanelSettings:
        """The settings of a retrieval judge of `by_kind`, e.g. "retrieval"."""
        settings = self.by_kind[kind]
        if not isinstance(settings, PanelSettings):
            raise ValueError(f"kind {kind!r} is no retrieval judge ({settings.name})")
        return settings

    @property
    def reference(self) -> PanelSettings:
        """The paper's judge: the full-view retrieval judge with early stopping at `stop_confidence`."""
        return self.panel("retrieval")

    @property
    def twin(self) -> PanelSettings:
        """The paper's judge without early stopping (T = `NO_EARLY_STOP`)."""
        return self.panel("retrieval, no early stop")

    @property
    def weak_name(self) -> str:
        """The name of the paper's judge on the weaker base model (`on_base_model`); "" when none is set."""
        return on_base_model(self.reference.name, self.weak_model) if self.weak_model else ""


def validation_arms(params: Mapping[str, Any]) -> ValidationArms:
    """The judges the judge-validation chapter runs with its parameters `params` (every one it reads: `criteria`,
    `criteria_mode`, `rounds`, `k`, `stop_confidence`, `k_sweep`, `t_sweep`, `max_tokens`, `weak_convergent_judge`),
    as settings; the chapter's reply lengths of the single and CoT judges are not in their names."""
    common: dict[str, Any] = {"criteria_mode": params["criteria_mode"],
                              "n_criteria": len(criteria_set(params["criteria"]))}
    panel = dict(common, views="full", rounds=params["rounds"], max_tokens=params["max_tokens"])
    by_kind: dict[str, JudgeSettings] = {
        "single": SingleCallSettings(**common),
        "cot": SingleCallSettings(**common, reasoning=True),
        "p_yes": AnswerProbabilitySettings(**common),
        "chateval": ChatEvalSettings(**common, rounds=params["rounds"], max_tokens=params["max_tokens"]),
        "retrieval": PanelSettings(**panel, k=params["k"], stop_confidence=params["stop_confidence"]),
        "retrieval, no early stop": PanelSettings(**panel, k=params["k"], stop_confidence=NO_EARLY_STOP),
        "retrieval, partitioned": PanelSettings(**dict(panel, views="partitioned"), k=params["k"],
                                                stop_confidence=params["stop_confidence"]),
    }
    sweep = tuple(PanelSettings(**panel, k=k, stop_confidence=t) for k in params["k_sweep"] for t in params["t_sweep"])
    return ValidationArms(by_kind, sweep, params["weak_convergent_judge"])
