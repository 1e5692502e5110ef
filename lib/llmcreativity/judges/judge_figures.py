"""Tables and figures of the judge chapter: where the tokens go, and accuracy against cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from . import Judgement


def call_table(judgements: Mapping[str, Sequence[Judgement]], names: Sequence[str]) -> pd.DataFrame:
    """One row per model call of the judges `names`: judge, item, agent, round, purpose and its tokens."""
    return pd.DataFrame([
        {"judge": j.judge, "item_id": j.item_id, "agent": c.agent, "round": c.round, "purpose": c.purpose,
         "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens}
        for name in names for j in judgements[name] for c in j.calls
    ])


def tokens_by_round(calls: pd.DataFrame) -> pd.Series:
    """Mean tokens (prompt + generated) per item spent in each round, indexed by (judge, round)."""
    tokens = calls.assign(tokens=calls["prompt_tokens"] + calls["completion_tokens"])
    return tokens.groupby(["judge", "item_id", "round"])["tokens"].sum().groupby(["judge", "round"]).mean()


def plot_cost_by_round(calls: pd.DataFrame, colours: Mapping[str, str], title: str) -> Figure:
    """Cumulative tokens per item by round, one line per judge (`colours`: judge name -> colour)."""
    per_round = tokens_by_round(calls)
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for name, colour in colours.items():
        cum = per_round.loc[name].cumsum()
        ax.plot(cum.index, cum.values, marker="o", color=colour, label=name)
    ax.set_xticks(sorted(per_round.index.get_level_values("round").unique()))
    ax.set_xlabel("round (retrieval: the last point is the final decision)")
    ax.set_ylabel("cumulative tokens per item")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    return fig


def _plain_log_tick(x: float, _: int) -> str:
    """Label a log-axis tick with its plain value when it starts with 1, 2, 3 or 5; leave the others blank."""
    return f"{x:,.0f}" if str(round(x))[0] in "1235" else ""


def plot_accuracy_vs_tokens(summary: pd.DataFrame, title: str) -> Figure:
    """Each judge's accuracy (95 % CI) against its tokens per item on a log axis; chance (0.5) dashed.

    `summary` is `summarize_judges` output (judge, accuracy, accuracy_low, accuracy_high, tokens_per_item).
    """
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    colours = plt.get_cmap("tab10")
    for i, (_, row) in enumerate(summary.iterrows()):
        ax.errorbar(row["tokens_per_item"], row["accuracy"],
                    yerr=[[row["accuracy"] - row["accuracy_low"]], [row["accuracy_high"] - row["accuracy"]]],
                    fmt="o" if row["judge"].startswith("retrieval") else "s", color=colours(i % 10), capsize=3,
                    label=row["judge"])
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(_plain_log_tick))
    ax.xaxis.set_minor_formatter(FuncFormatter(_plain_log_tick))
    ax.set_xlabel("tokens per item (prompt + generated, log scale)")
    ax.set_ylabel("accuracy vs human label (95 % CI)")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), title="judge (o = retrieval)",
              title_fontsize=7)
    fig.tight_layout()
    return fig
