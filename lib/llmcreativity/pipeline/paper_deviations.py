"""How this project's method differs from the two papers: one declaration, read by the chapters and the claims page.

Each `PaperDeviation` names the paper, the chapter (the stage's notebook) and the step it changes, what the paper does
(as the source named in `source` states it: a summary of the paper under `../shared/papers/`, its abstract, or the
authors' code), what this project does and why, and the option that runs the paper's form where there is one. A
chapter shows the notes of a step with `deviation_note(chapter, step)` in a code cell beside the step; the claims page
lists them all with `deviations_markdown`. Only differences *from the papers* stand here: how this project's own runs
differ from each other is the book's appendix (`book/history.md`).

>>> [d.id for d in deviations("evaluation", "novelty")]
['surprisal-context', 'lexical-kl-windows']
>>> deviations("no-such-chapter")
Traceback (most recent call last):
...
ValueError: chapter 'no-such-chapter' has no deviation from the papers declared; chapters that have: ...
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..claims.spec import PAPER_A, PAPER_B
from ..metrics.surprisal import SURPRISAL_CONTEXTS
from .profile_files import PROFILES, layered

if TYPE_CHECKING:
    from IPython.display import Markdown

SUMMARY_A = "a summary of the paper (`../shared/papers/llm-review.summary.en.txt`)"
"""Where paper A's method is stated: the English article summarising LLM Review."""
SUMMARY_B = "a summary of the paper (`../shared/papers/creativity-eval.summary.zh.txt`)"
"""Where paper B's method is stated: the Chinese reading note on the creativity-evaluation paper."""
NOTE_TITLE = "Differs from the paper"
"""The title of a chapter's note (a MyST admonition)."""


@dataclass(frozen=True)
class PaperDeviation:
    """One step this project does differently from a paper."""

    id: str
    """A short stable name, e.g. "surprisal-context"."""
    paper: str
    """`PAPER_A` or `PAPER_B`."""
    chapter: str
    """The stage whose notebook (chapter) describes the step."""
    step: str
    """The step within the chapter, as its note cell names it (`deviation_note(chapter, step)`)."""
    title: str
    """The step in a few words, the note's bold lead."""
    paper_does: str
    """What the paper does, in one sentence, as `source` states it."""
    source: str
    """Where `paper_does` is stated: `SUMMARY_A`, `SUMMARY_B`, the abstract or the authors' code."""
    project_does: str
    """What this project does instead, in one sentence."""
    why: str
    """Why, in one sentence."""
    option: str = ""
    """The notebook parameter (as `name = value`) that runs the paper's form, or "" when there is none."""
    profile: str = ""
    """The profile that selects the paper's form ("" when none does)."""

    def paper_form(self) -> str:
        """How a reader gets the paper's form: the option and the profile that selects it, or that nothing here
        does."""
        if not self.option:
            return "No option here runs the paper's form."
        named = f"`{self.option}` runs the paper's form"
        return f"{named}; the `{self.profile}` profile selects it." if self.profile else f"{named}."


_SURPRISAL_CONTEXT = PaperDeviation(
    "surprisal-context", PAPER_A, "corpus", "surprisal", "Surprisal's context",
    "the mean token surprisal conditions each token only on the story's earlier tokens, "
    "S_avg = -(1/L) Σ_j log p(x_j | x_<j)", SUMMARY_A,
    "the scoring model reads the writing prompt before the story, S = -(1/L) Σ_j log p(x_j | prompt, x_<j)",
    "a story is an answer to its prompt: a word the prompt asked for is not a surprise",
    'surprisal_context = "none"', "paper")
"""Surprisal's context: defined in the corpus chapter, scored for every framework in the evaluation chapter."""


DEVIATIONS: tuple[PaperDeviation, ...] = (
    _SURPRISAL_CONTEXT,
    replace(_SURPRISAL_CONTEXT, chapter="evaluation", step="novelty"),  # the same step, scored for every framework
    PaperDeviation(
        "lexical-kl-windows", PAPER_A, "evaluation", "novelty", "Lexical KL per window",
        "the lexical divergence is one KL of the whole story's unigram distribution from the corpus's", SUMMARY_A,
        "the KL that decides A2 is the mean over windows of `kl_window` words; the whole-story KL is kept beside it",
        "a longer story covers more of the vocabulary, so its whole-story KL falls with its length alone",
        'a2_kl = "whole"', "paper"),
    PaperDeviation(
        "lexical-kl-windows", PAPER_A, "corpus", "lexical-kl", "Lexical KL per window",
        "the lexical divergence is one KL of the whole story's unigram distribution from the corpus's", SUMMARY_A,
        "the chapter's tables use the mean over windows of `kl_window` words",
        "a longer story covers more of the vocabulary, so its whole-story KL falls with its length alone",
        'kl_mode = "whole"'),
    PaperDeviation(
        "reference-corpus", PAPER_A, "corpus", "reference", "The reference corpus",
        "the reference is SFGram, classic science fiction embedded with all-mpnet-base-v2 in chunks of about "
        "250 words", SUMMARY_A,
        "the reference is 48 public-domain science-fiction books from Project Gutenberg, by default 6 of them "
        "embedded with all-MiniLM-L6-v2",
        "SFGram is too large to ship here, and mpnet embeds about ten times slower than MiniLM on a CPU",
        'corpus_dir = "<a folder of SFGram .txt books>"'),
    PaperDeviation(
        "rubric-judge", PAPER_A, "evaluation", "judge", "The rubric judge",
        "GPT-4o grades each story on each dimension, three samples averaged", SUMMARY_A,
        "a local model (by default qwen2.5-coder-1.5b) grades it, in the paper's sampled mode and as an expected "
        "score",
        "no call leaves this machine in the recorded runs",
        'rubric_judge = "https://api.openai.com/v1#gpt-4o"'),
    PaperDeviation(
        "discussion-rounds", PAPER_A, "baselines", "discussion", "Discussion's rounds",
        "LLM Discussion's agents iteratively read each other's revisions and keep updating their own", SUMMARY_A,
        "Discussion revises once by default (`rounds = 1`): each writer reads the others' drafts and revises one time",
        "each round is a story-length call per writer and prompt; one round already separates what the writers see",
        "rounds = 3", "paper"),
    PaperDeviation(
        "scifi100-screen", PAPER_A, "scifi100", "screen", "The screen",
        "people review the 200 generated prompts by hand and keep 10 per dimension", SUMMARY_A,
        "a rule screens the candidates and a diversity rule picks the ones kept, with no person in the loop",
        "the construction is a method anyone can rerun; the paper's own 100 prompts are what the later stages read",
        ),
    PaperDeviation(
        "problems-per-domain", PAPER_B, "semantic_entropy", "problems", "Problems per domain",
        "300 problems per domain (MacGyver, HypoGen, BookMIA)", SUMMARY_B,
        "a few problems per domain (`n_problems`, `n_hypogen`; 20 in the `paper` profile); BookMIA is not available",
        "every problem is sampled at every step, temperature and model on a CPU",
        "n_problems = 300"),
    PaperDeviation(
        "entailment-clusters", PAPER_B, "semantic_entropy", "clusters", "The clusters",
        "candidates are clustered greedily by bidirectional entailment: one joins a cluster when it and the "
        "cluster's member entail each other", SUMMARY_B,
        "clusters are cosine clusters of sentence embeddings: the judge laboratory's confirmed equivalence judge "
        "(`judge = \"lab\"`) or, by default, a cosine threshold (`judge = \"embedding\"`, whose verdicts read "
        "\"not testable here\")",
        "an LLM judge asks a question per ordered pair of candidates, a forward pass each on a CPU; the laboratory's "
        "judge was confirmed against people's 'same idea' groupings (of alternative-uses ideas, not of solution "
        "steps)",
        'judge = "llm"', "paper"),
    PaperDeviation(
        "b7-stand-in", PAPER_B, "entailment_validation", "b7", "Agreement with people",
        "Cohen's kappa of each diversity measure with the labels of three annotators on 50 MacGyver problems",
        SUMMARY_B,
        "Spearman's rho of each measure with the entropy of MuseScorer's two coders' 'same idea' groupings",
        "the paper's labels are not available, and it does not say how it binarised the measures for a kappa"),
)
"""Every deviation from the papers, in the order of the book's chapters. A deviation that changes two chapters' steps
has one entry per chapter, under one `id`."""


def deviations(chapter: str | None = None, step: str | None = None) -> tuple[PaperDeviation, ...]:
    """The declared deviations of `chapter` (every chapter when None), of its `step` when given; a ValueError for a
    chapter, or a step of it, that has none (a note cell that names a step nothing declares is a typo)."""
    found = tuple(d for d in DEVIATIONS if chapter in (None, d.chapter) and step in (None, d.step))
    if not found and chapter is not None:
        known = sorted({d.chapter for d in DEVIATIONS}) if step is None else \
            sorted({d.step for d in DEVIATIONS if d.chapter == chapter})
        what = f"chapter {chapter!r}" + (f", step {step!r}," if step is not None else "")
        raise ValueError(f"{what} has no deviation from the papers declared; "
                         f"{'chapters' if step is None else 'its steps'} that have: {known}")
    return found


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:].rstrip(".") + "."


def deviation_note(chapter: str, step: str) -> str:
    """The MyST admonition a chapter shows beside `step`: per deviation, what the paper does (and where that is
    stated), what this project does, why, and the option that runs the paper's form."""
    items = [f"**{d.title}.** {d.paper}, as {d.source} states it: {d.paper_does}. Here: {d.project_does}. "
             f"Why: {d.why}. {d.paper_form()}" for d in deviations(chapter, step)]
    return "\n".join([f":::{{admonition}} {NOTE_TITLE}", ":class: note", "", "\n\n".join(items), ":::"])


def deviations_markdown(chapters: Collection[str] = ()) -> str:
    """The claims page's list "How this project differs from the papers": one line a deviation (one `id`), linking
    the chapters among `chapters` (the stage chapters the book holds) that state it beside their step."""
    lines = ["## How this project differs from the papers", "",
             "Each chapter states these beside the step they change; the `paper` profile runs the paper's form "
             "where this project has one.", ""]
    for ident in dict.fromkeys(d.id for d in DEVIATIONS):
        same = [d for d in DEVIATIONS if d.id == ident]
        where = ", ".join(f"{{doc}}`executed/{c}`" if c in chapters else f"`{c}`"
                          for c in dict.fromkeys(d.chapter for d in same))
        d = same[0]
        lines.append(f"- **{d.title}** ({d.paper}): the paper: {d.paper_does}; here: {d.project_does}. "
                     f"{d.paper_form()} In: {where}.")
    return "\n".join(lines)


def profile_choices(stage: str, name: str, default: object) -> dict[str, object]:
    """Profile -> the value of parameter `name` of `stage` that profile runs with (`default`, the notebook's, where
    the profile sets none), over every profile (`profile_files.PROFILES`)."""
    return {p: layered(p, stage).get(name, default) for p in PROFILES}


SURPRISAL_FORMULAS = {
    "prompt": r"S = -\frac{1}{L}\sum_{j=1}^{L} \log p(x_j \mid \text{prompt}, x_{<j})",
    "none": r"S_\text{avg} = -\frac{1}{L}\sum_{j=1}^{L} \log p(x_j \mid x_{<j})",
}
"""The two forms of `metrics.SURPRISAL_CONTEXTS`, as display math."""


def surprisal_forms_markdown(stage: str) -> str:
    """Both forms of the surprisal, each with the profiles that run `stage` in it (read from the profile files)."""
    uses = profile_choices(stage, "surprisal_context", SURPRISAL_CONTEXTS[0])
    lines = []
    for form, label in zip(SURPRISAL_CONTEXTS, ("this project's: the story after its writing prompt",
                                                "the LLM Review summary's: the story alone"), strict=True):
        profiles = ", ".join(f"`{p}`" for p, v in uses.items() if v == form) or "none"
        lines += [f"`surprisal_context = \"{form}\"`, {label} (profiles: {profiles}):", "",
                  f"$$ {SURPRISAL_FORMULAS[form]} $$", ""]
    return "\n".join(lines).rstrip()


def show_deviations(chapter: str, step: str) -> Markdown:
    """`deviation_note(chapter, step)` as a notebook output: the last expression of a chapter's note cell (tagged
    `remove-input`, so the page shows the note and not the call)."""
    from IPython.display import Markdown

    return Markdown(deviation_note(chapter, step))
