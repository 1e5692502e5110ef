"""Inputs of judge validation: labelled (problem, solution, label) tables, from MacGyver or from a user's file.

A user's own labelled data is a JSONL or CSV file with one row per item and the columns
`item_id` (unique text or number), `problem` (the task), `solution` (the response judged) and
`label` (the human verdict: true/false, 1/0, yes/no or valid/invalid). Optional extra columns
are kept (e.g. `problem_id` to stratify one item per problem).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..paths import require_file
from .records import JudgeItem

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
