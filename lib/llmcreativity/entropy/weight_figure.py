"""The semantic-entropy chapter's figure of weight concentration beside every SE statistic, and its words.

Small multiples by temperature, one line per model: the cluster count and every SE the chapter computes (means over
steps), then the effective number of samples of the probability-weighted SEs and the top sample's share (medians over
steps, `weight_concentration`). The figure is 7 inches wide with 9-point text, so it stays legible at the book's
column width.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

PANELS: tuple[tuple[str, str, str], ...] = (
    ("n_clusters", "mean", "clusters per step"),
    ("se_discrete", "mean", "SE_D, discrete (nats)"),
    ("se_length_normalized", "mean", "SE_LN (nats)"),
    ("se_probability", "mean", "SE_P, registered (nats)"),
    ("se_probability_distinct", "mean", "SE_P, distinct (nats)"),
    ("n_eff_probability", "median", "n_eff, SE_P"),
    ("n_eff_probability_distinct", "median", "n_eff, SE_P distinct"),
    ("n_eff_length_normalized", "median", "n_eff, SE_LN"),
    ("top_share_probability", "median", "top share, SE_P"),
)
"""(column, how steps are pooled, panel title) of each panel, in reading order."""


def weighted_steps(steps: pd.DataFrame, weights: pd.DataFrame) -> pd.DataFrame:
    """The step table (`entropy_tables.model_step_table`) with the weight diagnostic's columns
    (`weight_concentration.weight_table`) joined on (chain, step)."""
    extra = [c for c in weights.columns if c.startswith(("n_eff_", "top_share_"))]
    return steps.merge(weights[["chain", "step", *extra]], on=["chain", "step"], how="left", validate="one_to_one")


def panel_table(table: pd.DataFrame) -> pd.DataFrame:
    """What the figure draws: per (model_name, temperature), each panel's column pooled over steps as `PANELS` says
    (mean or median), and the steps pooled."""
    aggs = {col: (col, how) for col, how, _ in PANELS if col in table.columns}
    return table.groupby(["model_name", "temperature"]).agg(steps=("step", "size"), **aggs).reset_index()


def plot_weight_concentration(table: pd.DataFrame) -> Figure:
    """Nine small panels (3 x 3, 7 x 6.6 inches, 9-point text) of `panel_table(table)` against temperature, one line
    per model; `table` is `weighted_steps`' output."""
    drawn = panel_table(table)
    with plt.rc_context({"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "xtick.labelsize": 8,
                         "ytick.labelsize": 8, "legend.fontsize": 8}):
        fig, axes = plt.subplots(3, 3, figsize=(7, 6.6), sharex=True)
        for ax, (col, how, title) in zip(axes.flat, PANELS, strict=True):
            for model, part in drawn.groupby("model_name", sort=True):
                if col in part.columns:
                    ax.plot(part["temperature"], part[col], marker="o", label=str(model))
            ax.set_title(f"{title}" + (" (median)" if how == "median" else ""))
            if col.startswith("n_eff_"):
                ax.set_ylim(bottom=0)
        for ax in axes[-1]:
            ax.set_xlabel("temperature")
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=max(1, len(labels)), frameon=False)
        fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def weight_words(table: pd.DataFrame) -> str:
    """The figure's reading in words, from its numbers: how the cluster count, the unweighted SEs and SE_P move from
    the lowest to the highest temperature, and how many samples carry SE_P's weight there."""
    drawn = panel_table(table)
    lo, hi = drawn["temperature"].min(), drawn["temperature"].max()
    if lo == hi:
        return f"Only one temperature ({lo}) was sampled: the figure shows no trend."

    def span(col: str, digits: int = 2) -> str:
        a = drawn[drawn["temperature"] == lo][col]
        b = drawn[drawn["temperature"] == hi][col]
        return f"{a.min():.{digits}f}-{a.max():.{digits}f} at T = {lo:g} to {b.min():.{digits}f}-{b.max():.{digits}f}"

    def direction(col: str) -> str:
        a = drawn[drawn["temperature"] == lo][col].mean()
        b = drawn[drawn["temperature"] == hi][col].mean()
        return "rises" if b > a else "falls" if b < a else "stays level"

    at_hi = table[table["temperature"] == hi]
    one = float((at_hi["top_share_probability"] >= 0.9).mean())
    suffix = f" at T = {hi:g}"
    sentences = [
        f"Across the models, the mean number of clusters per step {direction('n_clusters')} from "
        f"{span('n_clusters', 1)}{suffix}; the discrete SE {direction('se_discrete')} from {span('se_discrete')}"
        f"{suffix} and the length-normalized SE {direction('se_length_normalized')} from "
        f"{span('se_length_normalized')}{suffix}.",
        f"The registered SE_P {direction('se_probability')} from {span('se_probability')}{suffix}. The median "
        f"effective number of samples behind SE_P's weights goes from {span('n_eff_probability')}{suffix}, and in "
        f"{one:.0%} of the steps at T = {hi:g} one sample holds at least 90 % of the weight: there SE_P measures "
        "the cluster of about one sample, whatever the number of clusters.",
    ]
    if "n_eff_length_normalized" in drawn.columns:
        of = f", of {int(table['n'].max())} candidates per step" if "n" in table.columns else ""
        sentences.append(f"Length normalization spreads the weight: SE_LN's median effective number of samples goes "
                         f"from {span('n_eff_length_normalized')}{suffix}{of}.")
    concentrated = float(at_hi["n_eff_probability"].median()) < 2
    if concentrated:
        sentences.append("For the claims: B1-B4 and B8 are registered on SE_P, and B6 on the chain's mean SE_P. "
                         "Where one sample holds SE_P's weight, their verdicts speak of that sample's cluster, not of "
                         "how many meanings the model held open; the exploratory verdicts below decide each claim "
                         "under SE_D, SE_LN and SE_P over distinct sequences as well, and the claims page shows them "
                         "beneath the registered verdict.")
    else:
        sentences.append("For the claims: SE_P's weight is spread over at least two samples in the median step at "
                         f"T = {hi:g}, so the verdicts of B1-B4, B6 and B8, registered on SE_P, do not rest on one "
                         "sample's weight; the exploratory verdicts below compare them with the other statistics.")
    return " ".join(sentences)
