"""Figures of the semantic-entropy chapter.

The intervals drawn are the verdicts' own kind: a percentile cluster bootstrap over problems
(`stats.cluster_bootstrap_ci`), seeded, so a band and the verdict beside it resample the same unit from the same
stream of seeds (`mean_bands`), never a plotting library's own unseeded interval over chains.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..stats.bootstrap import cluster_bootstrap_ci

GROUP = "problem_id"
"""The resampling unit of every band: the problem, as in the verdicts (`claims.se_correlations`)."""


def mean_bands(table: pd.DataFrame, x: str, hue: str, *, y: str = "se_probability", n_resamples: int = 1000,
               seed: int = 0) -> pd.DataFrame:
    """Mean `y` of each (`hue`, `x`) cell with its 95 % cluster-bootstrap interval over problems (`GROUP`), seeded
    with `seed`: columns hue, x, mean, low, high, problems (a cell of one problem has no interval: NaN)."""
    rows = []
    for (h, v), cell in table.groupby([hue, x], sort=True):
        values, groups = cell[y].to_numpy(dtype=float), cell[GROUP].tolist()
        if len(set(groups)) < 2:
            low = high = float("nan")
        else:
            ci = cluster_bootstrap_ci([values], groups, np.mean, n_resamples=n_resamples, seed=seed)
            low, high = ci.low, ci.high
        rows.append({"hue": h, "x": v, "mean": float(values.mean()), "low": low, "high": high,
                     "problems": len(set(groups))})
    return pd.DataFrame(rows, columns=["hue", "x", "mean", "low", "high", "problems"])


def _draw_bands(ax: Axes, bands: pd.DataFrame, label: str) -> None:
    for h, part in bands.groupby("hue", sort=True):
        line = ax.plot(part["x"], part["mean"], marker="o", label=f"{label} {h}")[0]
        ax.fill_between(part["x"], part["low"], part["high"], color=line.get_color(), alpha=0.2, linewidth=0)
    ax.legend(fontsize=8)


def plot_entropy_panels(chains: pd.DataFrame, steps: pd.DataFrame, *, n_resamples: int = 1000,
                        seed: int = 0) -> Figure:
    """Probability-weighted SE against temperature and model size (mean per chain, bands: 95 % cluster-bootstrap
    intervals over problems, `mean_bands`), and against cluster count and mean pairwise cosine (per step), in four
    panels. Chains of a model of unknown size (an endpoint model, `params_m` NaN) are left out of the size panel,
    which says so; with no known size it is left empty."""
    fig, axes = plt.subplots(1, 4, figsize=(18, 4))
    _draw_bands(axes[0], mean_bands(chains, "temperature", "model_name", n_resamples=n_resamples, seed=seed), "")
    axes[0].set_xlabel("temperature")
    axes[0].set_title("SE vs temperature")
    sized = chains[chains["params_m"].notna()]
    if sized.empty:
        axes[1].text(0.5, 0.5, "no model of known size", ha="center", va="center", transform=axes[1].transAxes)
    else:
        _draw_bands(axes[1], mean_bands(sized, "params_m", "temperature", n_resamples=n_resamples, seed=seed),
                    "temperature")
    axes[1].set_xlabel("parameters (millions)")
    unsized = len(chains) - len(sized)
    axes[1].set_title("SE vs model size" + (f" ({unsized} chains of unknown size left out)" if unsized else ""))
    sns.stripplot(data=steps, x="n_clusters", y="se_probability", hue="model_name", ax=axes[2], legend=False)
    axes[2].set_title("SE vs number of clusters")
    sns.scatterplot(data=steps, x="mean_cosine", y="se_probability", hue="model_name", ax=axes[3], legend=False)
    axes[3].set_title("SE vs mean pairwise cosine")
    for ax in axes:
        ax.set_ylabel("probability-weighted SE (nats)")
    fig.suptitle("bands: 95 % intervals resampling problems, as the verdicts do", fontsize=9)
    fig.tight_layout()
    return fig
