"""Per-framework summaries of the scoring table: mean, sd and a bootstrap CI of the mean, in the paper's shape; the
papers' reference figures beside this run's (`reference_table`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..claims.spec import PAPER_A
from ..stats.bootstrap import bootstrap_ci


@dataclass(frozen=True)
class ReferenceFigure:
    """A reference number a paper reports that is no claim (e.g. its single agent's scores), to set beside this
    run's value of the same quantity as a calibration, never as a verdict."""

    paper: str
    """`PAPER_A` or `PAPER_B`."""
    quantity: str
    """What the number is, in the paper's words."""
    paper_figure: str
    """The paper's figure, as it reports it."""
    column: str
    """The column of this run's story table that measures the same quantity ("" when this run has none)."""
    system: str
    """The system (framework) of this run whose stories the column is averaged over."""


REFERENCE_FIGURES: tuple[ReferenceFigure, ...] = (
    ReferenceFigure(PAPER_A, "single agent: judge score, Integration of Scientific Concepts", "3.62 ± 1.14",
                    "integration", "single"),
    ReferenceFigure(PAPER_A, "single agent: judge score, Speculative Logic", "3.62 ± 1.13", "logic", "single"),
    ReferenceFigure(PAPER_A, "single agent: judge score, Character Depth", "3.41 ± 1.11", "character", "single"),
    ReferenceFigure(PAPER_A, "single agent: Surprisal", "0.476 ± 0.271", "surprisal", "single"),
    ReferenceFigure(PAPER_A, "single agent: KL Divergence (whole story)", "2.233 ± 0.012", "lexical_kl_whole",
                    "single"),
    ReferenceFigure(PAPER_A, "single agent: semantic novelty, 1-Cosine Similarity", "0.345 ± 0.002", "novelty",
                    "single"),
    ReferenceFigure(PAPER_A, "single agent: Volume Gain", "0.0138 ± 0.0002", "volume_gain", "single"),
)
"""The papers' reference figures that are no claims: the LLM Review paper's single-agent scores, each named by the
column of the results table it comes from, as a summary of the paper gives that table's header and Single Agent row
(`pipeline.excerpts.REFERENCE_EXCERPTS`; the other two rubric dimensions have no single-agent figure there)."""


def framework_summary(table: pd.DataFrame, measures: Sequence[str], *, by: str = "system", confidence: float = 0.95,
                      n_resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per (system, measure): n, mean, sd (ddof 1) and the percentile-bootstrap CI of the mean over stories.

    NaN values (a missing judge score) are left out of that measure; sd and CI are NaN below two values.
    """
    absent = [m for m in (*measures, by) if m not in table.columns]
    if absent:
        raise ValueError(f"table lacks columns {absent}: pass measures among {list(table.columns)}")
    rows = []
    for system, group in table.groupby(by, sort=False):
        for m in measures:
            x = group[m].dropna().to_numpy(dtype=float)
            ci = bootstrap_ci([x], np.mean, n_resamples=n_resamples, confidence=confidence,
                              seed=seed) if len(x) >= 2 else None
            rows.append({by: system, "measure": m, "n": len(x), "mean": float(x.mean()) if len(x) else np.nan,
                         "sd": float(x.std(ddof=1)) if len(x) >= 2 else np.nan,
                         "ci_low": ci.low if ci else np.nan, "ci_high": ci.high if ci else np.nan})
    return pd.DataFrame(rows)


def paper_table(summary: pd.DataFrame, measures: Sequence[str], *, by: str = "system", digits: int = 2,
                order: Sequence[str] | None = None) -> pd.DataFrame:
    """Systems as rows, measures as columns, cells "mean ± sd" (the layout of the paper's results table)."""
    cell = summary.assign(cell=[f"{m:.{digits}f} ± {s:.{digits}f}" if np.isfinite(s) else f"{m:.{digits}f}"
                                for m, s in zip(summary["mean"], summary["sd"], strict=True)])
    wide = cell.pivot(index=by, columns="measure", values="cell").reindex(columns=list(measures))
    return wide.reindex(list(order)) if order is not None else wide


def reference_table(summary: pd.DataFrame, figures: Sequence[ReferenceFigure] = REFERENCE_FIGURES, *,
                    by: str = "system", digits: int = 3) -> pd.DataFrame:
    """The papers' reference figures (`REFERENCE_FIGURES`) beside this run's value of the same quantity.

    `summary` is `framework_summary`'s output; a figure's run value is "mean ± sd (n = N)" of its `column` over its
    `system`'s stories, or "not measured here" when the figure names no column or the summary lacks it. A
    calibration table, not a verdict: the paper's scorer, judge and corpus are not this run's.
    """
    cells = {(r[by], r["measure"]): r for r in summary.to_dict("records")}

    def this_run(f: ReferenceFigure) -> str:
        r = cells.get((f.system, f.column))
        if r is None or not np.isfinite(r["mean"]):
            return "not measured here"
        sd = f" ± {r['sd']:.{digits}g}" if np.isfinite(r["sd"]) else ""
        return f"{r['mean']:.{digits}g}{sd} (n = {int(r['n'])})"

    return pd.DataFrame([{"paper": f.paper, "quantity": f.quantity, "paper's figure": f.paper_figure,
                          "this run": this_run(f), "column": f.column or "–"} for f in figures])
