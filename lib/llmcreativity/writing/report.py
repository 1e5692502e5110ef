"""Tables, plots and texts the writing notebooks show: stories side by side and readable, cost, flags,
homogenization by round, degenerate shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.display import Markdown
    from matplotlib.figure import Figure

import html
import math
import re

import numpy as np
import pandas as pd
from scipy import stats

from .transcript import Transcript


def side_by_side(stories: pd.DataFrame, prompt_id: str) -> pd.DataFrame:
    """The final stories of every framework for one prompt: framework, agent, round, words, flags, story."""
    rows = stories[stories.prompt_id == prompt_id]
    if rows.empty:
        raise KeyError(f"prompt_id={prompt_id!r} has no stories; choose one of {sorted(stories.prompt_id.unique())}")
    out = rows[["framework", "agent", "round", "n_words", "flags", "story"]].copy()
    out["flags"] = out["flags"].map(lambda f: ", ".join(f) or "-")
    return out.reset_index(drop=True)


def cost_per_framework(stories: pd.DataFrame) -> pd.DataFrame:
    """Cost per framework from the story records: prompts, stories, tokens per prompt and per story, total, model
    seconds per prompt."""
    runs = stories.drop_duplicates(["framework", "prompt_id"])
    per_prompt = runs.groupby("framework").agg(prompts=("tokens", "size"), tokens_per_prompt=("tokens", "mean"),
                                               total_tokens=("tokens", "sum"), seconds_per_prompt=("seconds", "mean"))
    n_stories = stories.groupby("framework").size().rename("stories")
    out = per_prompt.join(n_stories)
    out["tokens_per_story"] = out["total_tokens"] / out["stories"]
    return out.sort_values("tokens_per_prompt")[["prompts", "stories", "tokens_per_prompt", "tokens_per_story",
                                                 "total_tokens",
                                                    "seconds_per_prompt"]]


def flag_counts(stories: pd.DataFrame) -> pd.DataFrame:
    """Number of final stories per framework carrying each parsing flag (and "clean" for none)."""
    flags = stories[["framework", "flags"]].copy()
    flags["flag"] = flags["flags"].map(lambda f: list(f) or ["clean"])
    flags = flags.explode("flag")
    return pd.crosstab(flags["framework"], flags["flag"])


def token_budget_check(stories: pd.DataFrame) -> pd.DataFrame:
    """Does the story token budget fit the word limit? Per framework, over the final stories:

    stories; truncated = share that hit the token budget (flag "truncated"); over_long = share that ran past
    the word limit and were cut back to it at a sentence end (flag "over_long"); cut_short = share truncated
    but not over_long: stories the token budget stopped *before* the word limit, the failure a budget derived
    from the word limit should prevent (a story both truncated and over_long had its words and ran on);
    tokens_per_word = sum(story_tokens) / sum(n_words) over stories with neither flag (the writer's own tokens
    per word, marker line included), to set against `TOKENS_PER_WORD`.
    """
    flags = stories["flags"].map(set)
    truncated = flags.map(lambda f: "truncated" in f)
    over_long = flags.map(lambda f: "over_long" in f)
    clean = stories[~truncated & ~over_long & (stories["n_words"] > 0)]
    by = stories["framework"]
    out = pd.DataFrame({"stories": stories.groupby("framework").size(), "truncated": truncated.groupby(by).mean(),
                        "over_long": over_long.groupby(by).mean(),
                        "cut_short": (truncated & ~over_long).groupby(by).mean()})
    per_word = clean.groupby("framework")[["story_tokens", "n_words"]].sum()
    out["tokens_per_word"] = per_word["story_tokens"] / per_word["n_words"]
    return out


def mean_ci(values: pd.Series, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, lower, upper): mean +- t_{(1+level)/2, n-1} * sd / sqrt(n) over the non-NaN values; NaN bounds when n <
    2."""
    x = values.dropna().to_numpy(dtype=float)
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if len(x) < 2:
        return m, math.nan, math.nan
    half = float(stats.t.ppf((1 + level) / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return m, m - half, m + half


def summarize_homogenization(h: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % t-interval over prompts of cosine and Self-BLEU, per framework and round."""
    rows = []
    for (framework, r), g in h.groupby(["framework", "round"]):
        row = {"framework": framework, "round": int(r), "prompts": int(g["cosine"].notna().sum())}
        for col in ("cosine", "self_bleu"):
            row[col], row[f"{col}_lo"], row[f"{col}_hi"] = mean_ci(g[col])
        rows.append(row)
    return pd.DataFrame(rows)


def plot_homogenization(summary: pd.DataFrame) -> Figure:
    """Two panels (embedding cosine, Self-BLEU) of mean similarity by round, one line per framework, with 95 % CIs."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, col, label in zip(axes, ("cosine", "self_bleu"), ("mean pairwise embedding cosine", "Self-BLEU"),
                              strict=True):
        for framework, g in summary.dropna(subset=[col]).groupby("framework"):
            g = g.sort_values("round")
            ax.errorbar(g["round"], g[col], yerr=np.vstack([g[col] - g[f"{col}_lo"], g[f"{col}_hi"] - g[col]]),
                        marker="o", capsize=3, label=framework)
        ax.set_xlabel("round (0 = independent drafts)")
        ax.set_ylabel(label)
        ax.set_xticks(sorted(summary["round"].unique()))
    axes[0].legend(title="framework")
    fig.suptitle("Homogenization: similarity of the agents' stories after each round (higher = more alike)")
    fig.tight_layout()
    return fig


def plot_degenerate_share(table: pd.DataFrame, by: list[str], *, target: float | None = None,
                          title: str = "") -> Figure:
    """One row per group of a `degeneracy.degenerate_share` or `decoding.screen_table` table (`by`: its label
    columns): the degenerate share with its Wilson 95 % interval, and the target share as a dashed line."""
    import matplotlib.pyplot as plt

    rows = table.reset_index(drop=True)
    labels = [" / ".join(str(r[c]) for c in by) for _, r in rows.iterrows()]
    fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(rows) + 1.4))
    y = np.arange(len(rows))[::-1]
    err = np.clip(np.vstack([rows["degenerate"] - rows["ci_low"], rows["ci_high"] - rows["degenerate"]]), 0, None)
    # (a share of 0 or 1 sits on its interval's end, up to rounding)
    ax.errorbar(rows["degenerate"], y, xerr=err, fmt="o", capsize=3)
    if target is not None:
        ax.axvline(target, linestyle="--", color="0.5", label=f"target {target:.0%}")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of stories degenerate (Wilson 95 % interval)")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def journey(transcript: Transcript, width: int | None = None) -> pd.DataFrame:
    """One run's messages in order: round, kind, author, target, whose messages it saw, and the text (cut to
    `width`)."""
    rows = []
    for m in transcript:
        seen = [f"{transcript.get(v).author}:{transcript.get(v).kind}" for v in m.visible]
        text = m.content if width is None or len(m.content) <= width else m.content[:width] + "…"
        rows.append({"round": m.round, "kind": m.kind, "author": m.author, "target": m.target or "",
                     "saw": ", ".join(seen) or "(prompt only)", "flags": ", ".join(m.flags) or "-", "text": text})
    return pd.DataFrame(rows)


def _prose(text: str) -> str:
    """`text` as HTML paragraphs: escaped, one <p> per blank-line-separated paragraph, lines inside joined."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    return "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs) or "<p><em>(no story)</em></p>"


def _heading(row: pd.Series) -> str:
    """Framework, writer, persona, round, words and flags of one story, for its card."""
    persona = f", persona {row['persona']}" if row.get("persona") else ""
    flags = ", ".join(row["flags"]) or "none"
    return (f"<strong>{html.escape(str(row['framework']))}</strong>: {html.escape(str(row['agent']))}{persona} "
            f"(round {int(row['round'])}, {int(row['n_words'])} words, flags: {flags})")


def readable_stories(stories: pd.DataFrame, prompt_id: str,
                     drafts: dict[tuple[str, str], Transcript] | None = None) -> Markdown:
    """One prompt's final stories as wrapped prose, each headed by framework, writer and persona, for a notebook.

    `stories` has the `StoryRecord` columns (`load_stories`). With `drafts` (transcripts by (framework, prompt_id),
    `read_transcripts`) a revised story is shown beside the writer's own draft, draft on the left. The one text
    display of the writing chapters: it returns IPython's `Markdown` (holding HTML), which a notebook shows as is.
    """
    from IPython.display import Markdown

    rows = stories[stories.prompt_id == prompt_id]
    if rows.empty:
        raise KeyError(f"prompt_id={prompt_id!r} has no stories; choose one of {sorted(stories.prompt_id.unique())}")
    cards = []
    for _, row in rows.iterrows():
        transcript = (drafts or {}).get((str(row["framework"]), prompt_id))
        draft = transcript.select(kind="draft", author=str(row["agent"])) if transcript and row["round"] > 0 else []
        cells = ([f"<td><em>draft (round 0)</em>{_prose(draft[0].story or '')}</td>"] if draft else []) + [
            f"<td>{'<em>revision</em>' if draft else ''}{_prose(str(row['story']))}</td>"]
        cards.append(f"<p>{_heading(row)}</p><table class=\"llmc-stories\"><tr style=\"vertical-align: top\">"
                     f"{''.join(cells)}</tr></table>")
    return Markdown("\n\n".join(cards))
