"""The evaluation notebook's figures: judge scores with CIs, novelty distributions, cost against quality."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure


def plot_dimension_bars(summary: pd.DataFrame, measures: Sequence[str], *, by: str = "system",
                        title: str = "") -> Figure:
    """Grouped bars: mean of each measure per system, with the bootstrap CI as error bars (none when n < 2)."""
    sub = summary[summary["measure"].isin(measures)]
    systems = list(dict.fromkeys(sub[by]))
    fig, ax = plt.subplots(figsize=(1.6 * len(measures) + 3, 3.6))
    width = 0.8 / max(len(systems), 1)
    x = np.arange(len(measures))
    for k, system in enumerate(systems):
        part = sub[sub[by] == system].set_index("measure").reindex(list(measures))
        err = np.vstack([part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]])
        ax.bar(x + (k - (len(systems) - 1) / 2) * width, part["mean"], width, label=system,
               yerr=np.nan_to_num(err), capsize=2)
    ax.set_xticks(x, list(measures))
    ax.set_ylabel("score (0-5)")
    ax.set_title(title)
    ax.legend(fontsize=8, ncol=min(len(systems), 6))
    fig.tight_layout()
    return fig


def plot_metric_distributions(table: pd.DataFrame, metrics: Sequence[str], *, by: str = "system") -> Figure:
    """One panel per metric: each system's stories as points over a box of their distribution (NaN values, e.g. a
    story too short for the windowed lexical KL, are left out; a metric without values gets an empty panel)."""
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.4 * len(metrics), 3.4))
    for ax, m in zip(np.atleast_1d(axes), metrics, strict=True):
        data = table[[by, m]].dropna()
        ax.set_title(m if len(data) else f"{m} (no values)")
        if data.empty:
            continue
        order = list(dict.fromkeys(data[by]))
        sns.boxplot(data=data, x=by, y=m, ax=ax, color="0.9", showfliers=False, order=order)
        sns.stripplot(data=data, x=by, y=m, ax=ax, size=4, order=order)
        ax.set_xlabel("")
        ax.tick_params(axis="x", rotation=45)
    fig.tight_layout()
    return fig


def plot_cost_quality(table: pd.DataFrame, *, quality: str = "judge_mean", cost: str = "tokens",
                      by: str = "system") -> Figure:
    """Scatter of each story's quality against its framework run's tokens, with each system's mean marked."""
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.scatterplot(data=table, x=cost, y=quality, hue=by, ax=ax, alpha=0.5)
    means = table.groupby(by)[[cost, quality]].mean()
    ax.scatter(means[cost], means[quality], marker="X", s=120, c="black")
    for name, r in means.iterrows():
        ax.annotate(str(name), (r[cost], r[quality]), xytext=(4, 4), textcoords="offset points", fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("tokens per framework run on the prompt (log)")
    ax.set_ylabel(quality)
    fig.tight_layout()
    return fig
