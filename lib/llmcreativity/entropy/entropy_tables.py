"""The semantic-entropy stage's tables: steps labelled by model, and one row per chain for later stages.

The per-chain table keeps each chain's chosen steps as a list (`solution_steps`), not as text;
`solution_text` is the one place the steps are written out as "Step k: ...".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..llm.backend import TextEmbedder
from ..llm.registry import MODELS, local_model
from .analysis import step_table
from .chains import Chain

CHAIN_KEYS = ["chain", "model_name", "params_m", "domain", "problem_id", "temperature"]
"""Columns that identify a chain in the per-chain table."""
CHAIN_MEANS = ["se_probability", "se_discrete", "se_length_normalized", "se_probability_distinct",
               "se_length_normalized_distinct", "n_clusters", "mean_cosine"]
"""Step measures averaged over a chain's steps."""


def solution_text(steps: Sequence[str]) -> str:
    """A chain's chosen steps as the text a judge reads: "Step 1: ...\\nStep 2: ..." ("" for no steps).

    >>> solution_text(["Fill the cup.", "Pour."])
    'Step 1: Fill the cup.\\nStep 2: Pour.'
    """
    return "\n".join(f"Step {k}: {s}" for k, s in enumerate(steps, 1))


def model_step_table(chains: Sequence[Chain], embedder: TextEmbedder, names: Mapping[str, str]) -> pd.DataFrame:
    """`analysis.step_table` with `model_name` (registry name or role spec, from `names`: identity -> name) and
    `params_m` (the model's parameters in millions, from the registry, `llama.cpp:NAME` sized as NAME; NaN for a
    model on an endpoint, whose size is unknown here)."""
    steps = step_table(chains, embedder)
    steps["model_name"] = steps["model"].map(names)
    steps["params_m"] = steps["model_name"].map(
        lambda m: MODELS[local].parameters if (local := local_model(m)) in MODELS else float("nan"))
    return steps


def chain_table(steps: pd.DataFrame, chains: Sequence[Chain], problems: Mapping[str, str]) -> pd.DataFrame:
    """One row per chain: `CHAIN_KEYS`, the mean over its steps of `CHAIN_MEANS`, the problem text
    (`problems`: problem id -> text), `solution_steps` (list of the appended steps) and `ended`."""
    means = steps.groupby(CHAIN_KEYS, as_index=False, dropna=False)[CHAIN_MEANS].mean()
    extra = pd.DataFrame([{"chain": c.id, "problem": problems[c.problem_id], "solution_steps": list(c.solution),
                           "ended": c.ended} for c in chains], columns=["chain", "problem", "solution_steps", "ended"])
    return means.merge(extra, on="chain", how="left")


def temperature_summary(chains: pd.DataFrame) -> pd.DataFrame:
    """Chains, mean SE (three estimators) and mean cluster count per (model, temperature)."""
    return (chains.groupby(["model_name", "temperature"])
            .agg(chains=("chain", "size"), se_discrete=("se_discrete", "mean"),
                 se_probability=("se_probability", "mean"), se_length_normalized=("se_length_normalized", "mean"),
                 clusters=("n_clusters", "mean")))


def ending_table(chains: pd.DataFrame) -> pd.DataFrame:
    """Per (model, temperature): chains, how many `finished` (the chain said STOP), were `capped` (the step cap cut an
    unfinished solution) or ended `empty`, and the share finished, from the per-chain table's `ended` column."""
    ended = pd.crosstab([chains["model_name"], chains["temperature"]], chains["ended"])
    out = ended.reindex(columns=["stop", "cap", "empty"], fill_value=0).rename(
        columns={"stop": "finished", "cap": "capped"})
    out.columns.name = None
    return out.assign(chains=out.sum(axis=1), finished_share=out["finished"] / out.sum(axis=1))[
        ["chains", "finished", "capped", "empty", "finished_share"]]
