"""Who saw what: checking transcripts against their declared visibility, and drawing the flow."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

import pandas as pd

from ..llm.types import prompt_text
from .transcript import Transcript

MIN_CHECKED_CHARS = 20
"""Texts shorter than this are not searched for in prompts (short strings match by chance)."""


def leaks(transcript: Transcript) -> list[str]:
    """Visibility violations of a transcript; an empty list means the declared `visible` ids are honest.

    A violation is either a declared-visible message whose content is missing from the prompt, or an
    earlier undeclared message whose content appears in the prompt and is not explained by what was
    declared: it is not contained in a visible message's content nor in the task (a draft prompt).
    Small models copy their inputs, so two messages can share text through a common source.
    """
    task = "\n".join(prompt_text(d.prompt) for d in transcript.select(kind="draft"))
    problems = []
    for i, m in enumerate(transcript.messages):
        text = prompt_text(m.prompt)
        shown = [transcript.get(v).content for v in m.visible]
        for earlier in transcript.messages[:i]:
            content = earlier.content
            if len(content) < MIN_CHECKED_CHARS:
                continue
            if earlier.id in m.visible and content not in text:
                problems.append(f"{m.id} declares {earlier.id} visible but its prompt lacks that text")
            if (earlier.id not in m.visible and content in text and content not in task
                    and not any(content in s for s in shown)):
                problems.append(f"{m.id} contains the text of {earlier.id} without declaring it visible")
    return problems


def visibility_edges(transcript: Transcript) -> pd.DataFrame:
    """One row per (message, message it could see): who read whom, in which round and kind."""
    rows = []
    for m in transcript:
        for v in m.visible:
            seen = transcript.get(v)
            rows.append({
                "reader": m.author, "reader_kind": m.kind, "reader_round": m.round, "reader_target": m.target,
                "seen_author": seen.author, "seen_kind": seen.kind, "seen_round": seen.round,
                "reader_id": m.id, "seen_id": seen.id,
            })
    return pd.DataFrame(rows, columns=["reader", "reader_kind", "reader_round", "reader_target", "seen_author",
                                       "seen_kind", "seen_round", "reader_id", "seen_id"])


def plot_visibility(transcript: Transcript, ax: Axes | None = None) -> Axes:
    """Draw every message as a box (columns: phases in order, rows: authors) and an arrow from each message it saw.

    Orange arrows carry a story (draft or revision), blue arrows carry feedback.

    Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4.5))
    phases = list(dict.fromkeys((m.round, m.kind) for m in transcript))
    authors = list(dict.fromkeys(m.author for m in transcript))
    pos: dict[str, tuple[float, float]] = {}
    for (r, kind) in phases:
        group = [m for m in transcript if (m.round, m.kind) == (r, kind)]
        for author in authors:
            mine = [m for m in group if m.author == author]
            for k, m in enumerate(mine):
                offset = (k - (len(mine) - 1) / 2) * 0.32
                pos[m.id] = (phases.index((r, kind)), -authors.index(author) + offset)
    for m in transcript:
        x1, y1 = pos[m.id]
        for v in m.visible:
            x0, y0 = pos[v]
            color = "tab:orange" if transcript.get(v).story is not None else "tab:blue"
            ax.annotate("", xy=(x1 - 0.1, y1), xytext=(x0 + 0.1, y0),
                        arrowprops={"arrowstyle": "->", "color": color, "lw": 0.9, "shrinkA": 2, "shrinkB": 2})
    for m in transcript:
        x, y = pos[m.id]
        label = m.kind if m.target is None else f"{m.kind}\nof {m.target}"
        ax.text(x, y, label, ha="center", va="center", fontsize=7,
                bbox={"boxstyle": "round", "fc": "#fff6d5" if m.story is not None else "#dbe9f6", "ec": "0.5"})
    ax.set_xticks(range(len(phases)), [f"round {r}\n{k}s" for r, k in phases])
    ax.set_yticks([-i for i in range(len(authors))], authors)
    ax.set_xlim(-0.6, len(phases) - 0.4)
    ax.set_ylim(-len(authors) + 0.4, 0.6)
    ax.set_title(f"{transcript.framework}: who sees what (arrow = text put into the prompt; orange = a story, blue = "
                 "feedback)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def _ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    words = text.lower().split()
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def ngram_overlap(source: str, text: str, n: int = 6, exclude: str = "") -> float:
    """Share of `source`'s word n-grams found in `text`, ignoring n-grams of `exclude`:

        |(G_n(source) - G_n(exclude)) ∩ G_n(text)| / |G_n(source) - G_n(exclude)|

    with G_n the set of lower-cased word n-grams; 0 when no n-gram of `source` is left.
    """
    if n < 1:
        raise ValueError(f"n={n!r}: the n-gram order must be >= 1")
    grams = _ngrams(source, n) - _ngrams(exclude, n)
    return len(grams & _ngrams(text, n)) / len(grams) if grams else 0.0


def story_exposure(transcript: Transcript, n: int = 6) -> pd.DataFrame:
    """How much of other writers' stories reaches each story version's prompt, shown directly or quoted in feedback.

    One row per story version with round >= 1: the largest `ngram_overlap` between any earlier story
    version of another writer and the prompt, ignoring n-grams that the writer had anyway (its first
    draft's prompt, i.e. the task, and its own story versions shown in the prompt). Declared
    visibility can be honest while a feedback message quotes the story it is about; this measure
    counts that channel too.
    """
    rows = []
    for i, m in enumerate(transcript.messages):
        if m.story is None or m.round == 0:
            continue
        text = prompt_text(m.prompt)
        own = [transcript.get(v) for v in m.visible if transcript.get(v).author == m.author]
        task = [prompt_text(d.prompt) for d in transcript.select(kind="draft", author=m.author)]
        exclude = "\n".join(task + [e.content for e in own if e.story is not None])
        others = [e for e in transcript.messages[:i] if e.story is not None and e.author != m.author]
        scores = [(ngram_overlap(e.content, text, n, exclude), e.id) for e in others]
        best = max(scores, default=(0.0, ""))
        rows.append({"author": m.author, "round": m.round, "kind": m.kind, "max_overlap": best[0], "from": best[1]})
    return pd.DataFrame(rows, columns=["author", "round", "kind", "max_overlap", "from"])
