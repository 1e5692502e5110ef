"""MuseScorer (cssai-research/MuseScorer): alternate-uses ideas sorted by two human coders into "same idea" buckets.

The file holds 5,703 alternate-uses ideas in five rounds (1 shoe, 2 button, 3 key, 4 wooden
pencil, 5 automobile tire); columns `ali` and `krish` give each coder's bucket per idea.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..paths import data_dir, read_data_table

ROUND_OBJECTS: dict[int, str] = {1: "shoe", 2: "button", 3: "key", 4: "wooden pencil", 5: "automobile tire"}
"""Object whose alternate uses each round collected."""

CODERS: tuple[str, str] = ("ali", "krish")
"""Columns holding the two human partitions."""


def load_musescorer(path: str | Path | None = None) -> pd.DataFrame:
    """Ideas with columns id, round_id, idea_content, ali, krish (other model columns dropped)."""
    want = ["id", "round_id", "idea_content", *CODERS]
    df = read_data_table(
        path or data_dir() / "musescorer" / "df_annotated_socialmuse.csv",
        "MuseScorer annotated ideas",
        "download 2_agreement_analysis/data/df_annotated_socialmuse.csv from github.com/cssai-research/MuseScorer "
        "or set LLMCREATIVITY_DATA",
        want, "df_annotated_socialmuse.csv",
    )
    return df[want].dropna(subset=["idea_content"]).reset_index(drop=True)
