"""The judge laboratory's tables and figure, on the page only (the stage's files keep every digit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from .jobs import JOBS, job_spec


def job_table(jobs: Sequence[str]) -> pd.DataFrame:
    """The jobs run: what each judges, its labels, gating statistic with its chance value, split and baseline."""
    return pd.DataFrame([{"job": j, "judges": job_spec(j).title, "labels": job_spec(j).labels,
                          "statistic (chance)": f"{job_spec(j).statistic} ({job_spec(j).chance:g})",
                          "split": job_spec(j).split, "baseline": job_spec(j).baseline} for j in jobs
                         if j in JOBS]).set_index("job")


def cost_figure(table: pd.DataFrame, column: str, *, chance: float, ceiling: float, chosen: str, label: str) -> Any:
    """Agreement (`column`) against seconds per item for each protocol of `table`, chance and the human ceiling
    drawn as lines, the chosen protocol marked."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for _, row in table.iterrows():
        mine = row["protocol"] == chosen
        ax.scatter(max(float(row["seconds"]), 1e-4), row[column], s=60 if mine else 30,
                   color="tab:red" if mine else "tab:blue", zorder=3)
        ax.annotate(str(row["protocol"]) + (" (chosen)" if mine else ""), (max(float(row["seconds"]), 1e-4),
                    row[column]), fontsize=7, xytext=(4, 2), textcoords="offset points")
    ax.axhline(chance, color="gray", ls=":", label=f"chance ({chance:g})")
    ax.axhline(ceiling, color="black", ls="--", label=f"human ceiling ({ceiling:.2f})")
    ax.set_xscale("log")
    ax.set_xlabel("seconds per item (features; this machine)")
    ax.set_ylabel(label)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def confirmation_table(results: Sequence[Any]) -> pd.DataFrame:
    """One row per job scored on its test split: the judge, n, statistic with its 95 % CI, chance, the paired
    difference from the baseline with its CI, the human ceiling, and whether it passed (numbers unrounded: the page's
    `table` rounds them to their intervals)."""
    rows = [{"job": r.job, "judge": r.protocol, "n (groups)": f"{r.n} ({r.groups})", "statistic": r.statistic,
             "estimate": r.estimate, "ci_low": r.low, "ci_high": r.high, "chance": r.chance,
             "difference": r.estimate - r.baseline_estimate, "difference_low": r.difference_low,
             "difference_high": r.difference_high, "ceiling": r.ceiling,
             "confirmed": "provisional" if r.provisional else ("yes" if r.confirmed else "no")} for r in results]
    return pd.DataFrame(rows).set_index("job") if rows else pd.DataFrame()
