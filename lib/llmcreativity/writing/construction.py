"""Building a SciFi-100-style dataset with a model: generate candidates, screen them, keep a diverse set.

For each writing dimension the model is asked for `n_candidates` prompts (independent samples
of one request). Each candidate is screened in order, and the first failed check decides its status:

1. ``parse_failure``: nothing usable is left after stripping numbering, labels and quotes;
2. ``incomplete``: cut off by ``max_tokens`` or not ending with sentence punctuation;
3. ``too_short`` / ``too_long``: outside [min_words, max_words];
4. ``duplicate``: the same text (case and spacing ignored) as an earlier candidate;
5. ``near_duplicate``: embedding cosine >= `near_duplicate` with an earlier surviving candidate.

From the survivors, `keep` are chosen by farthest-point selection on the embeddings: start
with the candidate least similar on average to the others, then repeatedly add the candidate
whose highest cosine to those already chosen is lowest. The rest are ``not_selected``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..llm.backend import Backend, TextEmbedder
from ..llm.generate_config import GenerateConfig

SCIFI100_DIMENSIONS: tuple[str, ...] = (
    "Strong Voice", "Imagery and Sensory Details", "Conflict and Tension", "Character Development",
    "Emotional Impact", "Show, Don’t Tell", "Unique Plot or Theme", "Pacing", "Symbolism and Metaphor",
    "Effective Dialogue",
)
"""The paper's ten writing dimensions, in its file's order."""

_LEAD = re.compile(r"^\s*(?:[-*•]+|\d+[.)]|#+)?\s*(?:\*\*)?\s*(?:writing\s+)?(?:prompt\s*\d*\s*:)?\s*(?:\*\*)?\s*",
                   re.I)
_CHATTER = re.compile(r"^(?:sure|certainly|of course|here(?:'s| is| are)|okay|ok)\b", re.I)


@dataclass(frozen=True)
class PromptCandidate:
    """One generated candidate prompt and what screening decided."""

    dimension: str
    """Writing dimension it was generated for."""
    index: int
    """Sample index within its dimension."""
    raw: str
    """The model's reply."""
    text: str
    """The parsed prompt ("" on parse failure)."""
    status: Literal["kept", "not_selected", "parse_failure", "incomplete", "too_short", "too_long", "duplicate",
                    "near_duplicate"]
    """What screening decided."""
    reason: str
    """Why, in words (with the similarity that decided it, where one did)."""
    rank: int | None = None
    """Order of selection among kept candidates (0 = first chosen); None otherwise."""


def candidate_request(dimension: str) -> list[dict[str, str]]:
    """The chat prompt asking for one candidate prompt exercising `dimension`."""
    return [
        {"role": "system", "content": "You write prompts for a science-fiction creative-writing course."},
        {"role": "user", "content": (
            f"Write one new science-fiction writing prompt that trains the skill \"{dimension}\". The prompt is one "
            "or two sentences: it sets up a specific situation and tells the writer what to write. "
            "Reply with the prompt only."
        )},
    ]


def parse_candidate(reply: str) -> str:
    """The prompt inside `reply`: its first paragraph without list markers, "Prompt:" labels or quotes ("" if none)."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", reply.strip()) if p.strip()]
    while paragraphs and (_CHATTER.match(paragraphs[0]) and paragraphs[0].rstrip().endswith(":")):
        paragraphs = paragraphs[1:]  # "Sure! Here is a prompt:" lead-in
    if not paragraphs:
        return ""
    text = " ".join(paragraphs[0].split())
    text = _LEAD.sub("", text).strip().strip("*").strip()
    if len(text) >= 2 and text[0] in "\"“'" and text[-1] in "\"”'":
        text = text[1:-1].strip()
    return text


def farthest_point_order(similarity: np.ndarray, k: int) -> list[int]:
    """Indices of `k` items chosen for diversity from a cosine-similarity matrix.

    First: argmin_i mean_{j != i} S_ij. Then repeatedly: argmin_i max_{j chosen} S_ij over the rest.
    """
    n = similarity.shape[0]
    if n == 0 or k < 1:
        return []
    mean_sim = (similarity.sum(axis=1) - np.diag(similarity)) / max(n - 1, 1)
    chosen = [int(np.argmin(mean_sim))]
    while len(chosen) < min(k, n):
        rest = [i for i in range(n) if i not in chosen]
        worst = similarity[np.ix_(rest, chosen)].max(axis=1)
        chosen.append(rest[int(np.argmin(worst))])
    return chosen


def screen(dimension: str, replies: list[tuple[str, str]], embedder: TextEmbedder, *, keep: int, min_words: int = 12,
           max_words: int = 70, near_duplicate: float = 0.9) -> list[PromptCandidate]:
    """Screen (reply, finish_reason) pairs for one dimension and choose `keep` (see the module docstring)."""
    out: list[PromptCandidate | None] = [None] * len(replies)
    texts = [parse_candidate(r) for r, _ in replies]
    seen: dict[str, int] = {}
    alive = []
    for i, ((raw, finish), text) in enumerate(zip(replies, texts, strict=True)):
        words = len(text.split())
        status, reason = "", ""
        if not text or _CHATTER.match(text):
            status, reason = "parse_failure", "no prompt text found in the reply"
        elif finish == "length" or not re.search(r"[.!?…][\"'”’)]*$", text):
            status, reason = "incomplete", "cut off by max_tokens" if finish == "length" else "does not end a sentence"
        elif words < min_words:
            status, reason = "too_short", f"{words} words < {min_words}"
        elif words > max_words:
            status, reason = "too_long", f"{words} words > {max_words}"
        elif (key := " ".join(text.casefold().split())) in seen:
            status, reason = "duplicate", f"same text as candidate {seen[key]}"
        else:
            seen[key] = i
            alive.append(i)
        if status:
            out[i] = PromptCandidate(dimension, i, raw, text, status, reason)
    if alive:
        emb = np.asarray(embedder.encode([texts[i] for i in alive]), dtype=np.float64)
        sim = emb @ emb.T
        survivors: list[int] = []  # positions in `alive`
        for a in range(len(alive)):
            best = max(survivors, key=lambda b: sim[a, b]) if survivors else None
            if best is not None and sim[a, best] >= near_duplicate:
                i = alive[a]
                out[i] = PromptCandidate(dimension, i, replies[i][0], texts[i], "near_duplicate",
                                   f"cosine {sim[a, best]:.2f} with candidate {alive[best]}")
            else:
                survivors.append(a)
        sub = sim[np.ix_(survivors, survivors)]
        order = farthest_point_order(sub, keep)
        for rank, pos in enumerate(order):
            i = alive[survivors[pos]]
            closest = max((sub[pos, q] for q in order[:rank]), default=float("nan"))
            why = "first pick: least similar on average" if rank == 0 else f"max cosine to earlier picks {closest:.2f}"
            out[i] = PromptCandidate(dimension, i, replies[i][0], texts[i], "kept", why, rank)
        for pos in range(len(survivors)):
            if pos not in order:
                i = alive[survivors[pos]]
                out[i] = PromptCandidate(dimension, i, replies[i][0], texts[i], "not_selected",
                                   f"max cosine {sub[pos, order].max():.2f} to the kept prompts")
    return [c for c in out if c is not None]


def construct_dataset(lm: Backend, embedder: TextEmbedder, dimensions: tuple[str, ...] = SCIFI100_DIMENSIONS, *,
                      n_candidates: int = 20, keep: int = 10, config: GenerateConfig | None = None,
                      **screen_args: Any) -> tuple[dict[str, list[str]], pd.DataFrame]:
    """Generate, screen and select prompts for every dimension, in one batched `lm.generate` call.

    Returns the dataset (dimension -> kept prompts in selection order, the SciFi-100 file format)
    and every candidate with its status as a DataFrame. A dimension with no survivor is an error.
    """
    if keep < 1 or n_candidates < keep:
        raise ValueError(f"keep={keep}, n_candidates={n_candidates}: need 1 <= keep <= n_candidates")
    cfg = (config or GenerateConfig(temperature=1.0, top_p=0.95, max_tokens=96)).merge(n=n_candidates, logprobs=False)
    with lm.tagged("scifi100"):
        replies = lm.generate([candidate_request(d) for d in dimensions], cfg)
    dataset: dict[str, list[str]] = {}
    rows = []
    for dimension, completions in zip(dimensions, replies, strict=True):
        cands = screen(dimension, [(c.text, c.finish_reason) for c in completions], embedder, keep=keep, **screen_args)
        kept = sorted((c for c in cands if c.status == "kept"), key=lambda c: c.rank)
        if not kept:
            raise RuntimeError(f"no candidate for {dimension!r} survived screening: raise n_candidates or use a "
                               "stronger model (statuses: " + ", ".join(c.status for c in cands) + ")")
        dataset[dimension] = [c.text for c in kept]
        rows.extend(asdict(c) for c in cands)
    return dataset, pd.DataFrame(rows)
