"""The papers' own words behind each figure the claims page quotes: a verbatim excerpt with its source and place,
or the plain reason why none is committed.

`tests/pipeline/test_paper_excerpts.py` holds every figure to its excerpts: each number of a claim's `paper_figure` (or
of a `ReferenceFigure`) must stand in one of them. A figure without an excerpt is listed in `UNCHECKED` with the reason,
and the claims page says so beside it (`figure_source`). Excerpts were collected on 2026-12-04 from the stored
copies this workplace can read: for both papers these hold the title page and abstract only (arXiv HTML, OpenReview,
mlanthology, mirrors), plus paper B's authors' repository README with its Tables 3-5 (read again on 2026-12-06, the
same rows at that commit: B14's and B15's added). Every other figure from the body of either paper (results tables,
the human studies) is therefore unchecked here, not known to be wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Excerpt:
    """One passage, copied exactly as its source shows it (line breaks joined by a space)."""

    text: str
    source: str
    """Where it was read: a URL, with the commit for a repository file."""
    place: str
    """Its section, table or paragraph."""
    own: bool = True
    """False when the source is not the paper itself (the authors' code README is their own words, not the paper's)."""


PAPER_A_ABSTRACT = "https://arxiv.org/html/2601.08003v1 (also the OpenReview and papers.cool abstracts)"
PAPER_B_ABSTRACT = "https://openreview.net/forum?id=3cPgxy7iI6 (the ACL 2026 abstract, as in the authors' README)"
PAPER_B_README = ("https://github.com/tanminsen/creativity-eval/blob/41524c134df8431f0fbe2e76805d2c7eeac02f7e/"
                  "README.md")

A_HOMOGENIZATION = Excerpt(
    "Large Language Models (LLMs) often struggle with creative generation, and multi-agent frameworks that improve "
    "reasoning through interaction can paradoxically hinder creativity by inducing content homogenization.",
    PAPER_A_ABSTRACT, "Abstract, first sentence")
A_FINDINGS = Excerpt(
    "Experiments demonstrate that LLM Review consistently outperforms multi-agent baselines, and smaller models with "
    "our framework can surpass larger single-agent models, suggesting interaction structure may substitute for model "
    "scale.", PAPER_A_ABSTRACT, "Abstract, last sentence")
A_BLIND = Excerpt(
    "We introduce LLM Review, a peer-review-inspired framework implementing Blind Peer Review: agents exchange "
    "targeted feedback while revising independently, preserving divergent creative trajectories.",
    PAPER_A_ABSTRACT, "Abstract, second sentence")
B_EFFICIENCY = Excerpt(
    "Convergent creativity is assessed via a novel retrieval-based multi-agent judge framework that delivers "
    "context-sensitive evaluation of task fulfilment with over 60% improved efficiency.",
    PAPER_B_ABSTRACT, "Abstract")
B_TOKENS = Excerpt(
    "A confidence-based early-exit (T = 0.5) terminates the discussion as soon as agents agree. The design cuts token "
    "cost by ≈ 63% compared with ChatEval while matching individual human annotator accuracy on MacGyver and BookMIA.",
    PAPER_B_README, "Approach, Convergent creativity: Retrieval-based multi-agent judge", own=False)
B_VICUNA = Excerpt(
    "| Vicuna 7B | 2.19 | 0.20 | 0.45 | 0.00 | 0.22 | | Vicuna 13B | 1.96 | 0.25 | 0.48 | 0.01 | 0.25 | "
    "| Vicuna 33B | 2.17 | 0.26 | 0.53 | 0.01 | 0.26 |",
    PAPER_B_README, "Results, MacGyver (Table 3): Semantic Entropy, Feasibility, Safety, Effectiveness, Overall; "
    "the claim is this project's reading of one model family's rows", own=False)

B_LLAMA = Excerpt(
    "| Llama 3 70B Instruct | 2.10 | 0.39 | 0.65 | 0.02 | 0.36 | | Llama 3.1 8B Instruct | 2.13 | 0.25 | 0.53 | 0.02 "
    "| 0.27 | | Llama 3.1 70B Nemotron Instruct | 2.19 | 0.36 | 0.57 | 0.06 | 0.33 | | Llama 3.1 405B Instruct | 2.08 "
    "| 0.66 | 0.75 | 0.12 | 0.51 | | Llama 3.3 70B Instruct | 2.10 | 0.45 | 0.68 | 0.04 | 0.39 |",
    PAPER_B_README, "Results, MacGyver (Table 3): Semantic Entropy, Feasibility, Safety, Effectiveness, Overall; "
    "the claim is this project's reading of the Llama rows (Llama 3.1 at 8B and 405B; Llama 3 and 3.3 at 70B)",
    own=False)
B_NEWER = Excerpt(
    "| GPT-3.5 Turbo | 2.02 | 0.51 | 0.71 | 0.03 | 0.42 | | GPT-4o mini | 2.05 | 0.62 | 0.76 | 0.12 | 0.50 | "
    "| **GPT-4o** | 2.08 | **0.82** | **0.86** | **0.21** | **0.63** | | Qwen3 32B (Thinking) | 2.02 | 0.65 | 0.78 "
    "| 0.12 | 0.52 | | Qwen3 32B (Non-thinking) | 2.08 | 0.49 | 0.74 | 0.08 | 0.44 |",
    PAPER_B_README, "Results, MacGyver (Table 3): Semantic Entropy, Feasibility, Safety, Effectiveness, Overall; "
    "the claim is this project's reading of the OpenAI rows (newer) and the Qwen3 rows (thinking or not)", own=False)

EXCERPTS: dict[str, tuple[Excerpt, ...]] = {
    "A1": (A_FINDINGS,),
    "A3": (A_FINDINGS,),
    "A4": (A_HOMOGENIZATION, A_BLIND),
    "B2": (B_VICUNA,),
    "B5": (B_EFFICIENCY, B_TOKENS),
    "B11": (B_VICUNA,),
    "B14": (B_LLAMA,),
    "B15": (B_NEWER,),
}
"""Claim id -> the passages its `paper_figure` rests on."""

_BODY = "from the paper's body, which no copy readable here holds (only the abstract)"
_TABLE_2 = (f"{_BODY}; the authors' README gives Tables 3-5 only, and their code says its judge baselines (one-shot, "
            "CoT, ChatEval) were compared in Table 2 from outside the repository")
UNCHECKED: dict[str, str] = {
    "A2": f"the abstract does not mention the novelty metrics; {_BODY}",
    "A5": f"the abstract mentions human annotation, not who scored what; {_BODY}",
    **{c: _BODY for c in ("B1", "B3", "B4", "B6", "B7", "B8", "B10", "B12", "B13")},
    "B9": _TABLE_2,
    "reference figures": f"paper A's single-agent scores and novelty metrics are {_BODY}",
}
"""Figure -> why no excerpt of it is committed (claim ids, and "reference figures" for paper A's single-agent
figures). Every one of these figures is quoted as issue 37 gives it, unchecked here."""

NUMBER = re.compile(r"\d+(?:\.\d+)?")
"""A number of a figure: what must stand in one of its excerpts."""


def numbers(text: str) -> list[str]:
    """The numbers of `text`, as written ("0.56", "84.7", "63")."""
    return NUMBER.findall(text)


def figure_source(claim_id: str) -> str:
    """A few words for the claims page: where the claim's quoted figure was checked, or that it was not."""
    if claim_id in EXCERPTS:
        places = "; ".join(f"{e.place} ({'the paper' if e.own else 'the authors’ README'})"
                           for e in EXCERPTS[claim_id])
        return f"checked against the committed excerpt: {places}"
    reason = UNCHECKED.get(claim_id)
    return f"not checked against the paper's text here: {reason}" if reason else ""
