"""Figures of the semantic-entropy chapter."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure


def plot_entropy_panels(chains: pd.DataFrame, steps: pd.DataFrame) -> Figure:
    """Probability-weighted SE against temperature and model size (per chain, 95 % CIs), and against cluster count and
    mean pairwise cosine (per step), in four panels. Chains of a model of unknown size (an endpoint model, `params_m`
    NaN) are left out of the size panel, which says so; with no known size it is left empty."""
    fig, axes = plt.subplots(1, 4, figsize=(18, 4))
    sns.lineplot(data=chains, x="temperature", y="se_probability", hue="model_name", marker="o", errorbar=("ci", 95),
                 ax=axes[0])
    axes[0].set_title("SE vs temperature")
    sized = chains[chains["params_m"].notna()]
    if sized.empty:
        axes[1].text(0.5, 0.5, "no model of known size", ha="center", va="center", transform=axes[1].transAxes)
    else:
        sns.pointplot(data=sized, x="params_m", y="se_probability", hue="temperature", errorbar=("ci", 95), ax=axes[1])
    axes[1].set_xlabel("parameters (millions)")
    unsized = len(chains) - len(sized)
    axes[1].set_title("SE vs model size" + (f" ({unsized} chains of unknown size left out)" if unsized else ""))
    sns.stripplot(data=steps, x="n_clusters", y="se_probability", hue="model_name", ax=axes[2], legend=False)
    axes[2].set_title("SE vs number of clusters")
    sns.scatterplot(data=steps, x="mean_cosine", y="se_probability", hue="model_name", ax=axes[3], legend=False)
    axes[3].set_title("SE vs mean pairwise cosine")
    for ax in axes:
        ax.set_ylabel("probability-weighted SE (nats)")
    fig.tight_layout()
    return fig
