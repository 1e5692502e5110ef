"""The papers' words behind each figure the claims page quotes: a verbatim excerpt with its source and place, or the
plain reason why none is committed.

Three kinds of source stand behind the figures: the papers' title pages and abstracts (arXiv HTML, OpenReview), paper
B's authors' README with its Tables 3-5, and the two third-party summaries this project was started from
(`SUMMARIES`, read from `paths.papers_dir`: an English article on paper A, a Chinese reading note on paper B). A
summary is cited as what it is, "a summary of the paper", never as the paper's own words; its file is pinned by its
SHA-256, and an excerpt of the Chinese note carries the original sentence and an English translation beside it.

`figure_problems` holds every figure to its excerpts, and `tests/pipeline/test_paper_excerpts.py` applies it to every
claim, every claim declared for a later registration and every `ReferenceFigure`:

- each number of the figure must stand in one of its excerpts (the part after "plotted:" is this project's reading of
  the figure: its `paper_value` must be a number of the excerpts, as given or as a percentage, or the difference of
  two);
- each passage the figure quotes between “ and ” is the paper's wording and must stand in one of its excerpts (the
  original or its translation);
- a figure with neither number nor quoted wording checks nothing and counts as unchecked.

A figure without an excerpt is listed in `UNCHECKED` with the reason. Where a summary and the abstract or the authors'
README say different things, `DISAGREEMENTS` says how, and the claims page shows both beside the claim
(`figure_source`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..claims.spec import PAPER_A, PAPER_B
from ..context import variable
from ..paths import papers_dir


@dataclass(frozen=True)
class Summary:
    """A third-party summary of one paper, a file of the papers folder (`paths.papers_dir`), pinned by its hash."""

    file: str
    """Its name in the papers folder."""
    sha256: str
    """The SHA-256 of the file its excerpts were copied from: a changed file fails the excerpt test."""
    paper: str
    """`PAPER_A` or `PAPER_B`."""
    what: str
    """What the document is, in a few words."""


LLM_REVIEW_SUMMARY = Summary("llm-review.summary.en.txt",
                             "b54b35c04335ed234bd25bc1edf0247d8d3577333fb252a4d575bf9067c101e6", PAPER_A,
                             "an English article summarising the paper")
CREATIVITY_EVAL_SUMMARY = Summary("creativity-eval.summary.zh.txt",
                                  "d11ebb6ee0e1b7955ddfe624e0e3d4d409a55ff771aa108f6dd29d7ae7363a94", PAPER_B,
                                  "a Chinese reading note on the paper")
SUMMARIES: tuple[Summary, ...] = (LLM_REVIEW_SUMMARY, CREATIVITY_EVAL_SUMMARY)
"""The two summaries the excerpts quote."""
PAPERS_FOLDER = "../shared/papers"
"""The papers folder as a summary excerpt's `source` names it (the default of `paths.papers_dir`)."""
MAX_EXCERPT = 420
"""The longest excerpt, in characters: a sentence or a few table rows, never a summary whole."""


@dataclass(frozen=True)
class Excerpt:
    """One passage, copied exactly as its source shows it (line breaks joined by a space)."""

    text: str
    source: str
    """Where it was read: a URL, with the commit for a repository file; for a summary, its file in the papers folder."""
    place: str
    """Its section, table or paragraph."""
    own: bool = True
    """False when the source is not the paper itself (the authors' README, a summary)."""
    summary: Summary | None = None
    """The summary it comes from; None for a web source."""
    translation: str = ""
    """This project's English translation of `text`, for a passage of the Chinese note."""

    @property
    def cited_as(self) -> str:
        """Whose words the passage is, as the claims page cites it."""
        if self.summary is not None:
            return "a summary of the paper"
        return "the paper" if self.own else "the authors’ README"


def _summary(summary: Summary, text: str, place: str, translation: str = "") -> Excerpt:
    """A passage of `summary`."""
    return Excerpt(text, f"{PAPERS_FOLDER}/{summary.file}", place, own=False, summary=summary,
                   translation=translation)


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

# Paper A: the English article (a summary of the paper).
A_SUMMARY_TABLE = _summary(
    LLM_REVIEW_SUMMARY,
    "Framework Type\tIntegration of Scientific Concepts\tSpeculative Logic\tCharacter Depth\tSurprisal\tKL Divergence"
    "\t1-Cosine Similarity\tVolume Gain\nSingle Agent\t3.62±1.14\t3.62±1.13\t3.41±1.11\t0.476±0.271\t2.233±0.012"
    "\t0.345±0.002\t0.0138±0.0002",
    "5. Experimental Results: the results table's header and its Single Agent row")
A_SUMMARY_QUALITY = _summary(
    LLM_REVIEW_SUMMARY,
    "LLM Review significantly outperforms single-agent and other multi-agent frameworks in both quality dimensions "
    "(LLM-as-a-Judge scores) and novelty dimensions (rule-based indicators);",
    "5. Experimental Results: the first of the three conclusions")
A_SUMMARY_SMALL = _summary(
    LLM_REVIEW_SUMMARY,
    "With the LLM Review framework, small and medium-sized models (e.g., Llama-3.2-3B) can achieve creative writing "
    "capabilities exceeding those of larger single-agent models;",
    "5. Experimental Results: the second of the three conclusions")
A_SUMMARY_STRUCTURE = _summary(
    LLM_REVIEW_SUMMARY,
    "3. Interaction Structure Is More Important Than Model Scale: To improve creative writing capabilities, there is "
    "no need to blindly pursue “larger models.” Optimizing the information flow rules of multi-agents can achieve "
    "better results at a lower cost.",
    "5. Experimental Results: the third of the three conclusions")
A_SUMMARY_HOMOGENIZATION = _summary(
    LLM_REVIEW_SUMMARY,
    "From the perspective of LLM collaboration practice, repeated exposure of agents to each other’s real-time "
    "revisions makes the model unconsciously align with peers’ expressions, resulting in content homogenization that "
    "stifles the “divergence” of creativity.",
    "1.2 The Paradox of Multi-Agent Collaboration")
A_SUMMARY_HUMAN = _summary(
    LLM_REVIEW_SUMMARY,
    "1. Recruit 9 student annotators to score the SciFi-100 stories generated by the LLM Review framework + "
    "Llama-3.2-3B model; 2. Annotators use the same 5 dimensions and 0-5 scale as GPT-4o to score each story; "
    "3. Average the 9 scores for each dimension to obtain a “human consensus score,” which is used to verify the "
    "consistency of LLM scores.",
    "4.2 Human Evaluation: Verifying the Reliability of the LLM Judge")

# Paper B: the Chinese reading note (a summary of the paper), each passage with this project's translation.
_ANALYSIS = "实验关键数据, 消融 / 分析 (Key experimental data, ablation / analysis table)"
B_NOTE_TOKENS = _summary(
    CREATIVITY_EVAL_SUMMARY,
    "配合基于置信度的提前停止，相比传统多智能体讨论 token 用量降约 63%、整体算力省 60%+，精度却不掉，"
    "使大规模、可重复的收敛评测变得可行。",
    "方法详解, 关键设计 2 (Method, key design 2: the retrieval-based multi-agent judge)",
    "With confidence-based early stopping, compared with traditional multi-agent discussion token use falls by about "
    "63 % and overall compute by 60 %+, while accuracy does not drop, which makes large-scale, repeatable convergent "
    "evaluation feasible.")
B_NOTE_CLUSTERS = _summary(
    CREATIVITY_EVAL_SUMMARY, '| SE vs 语义簇数 | 强正相关，反映 TTCT 的"灵活性（flexibility）"维度 |', _ANALYSIS,
    '| SE vs number of semantic clusters | strong positive correlation, reflecting the "flexibility" dimension of '
    'TTCT |')
B_NOTE_TEMPERATURE = _summary(
    CREATIVITY_EVAL_SUMMARY, '| SE vs 采样温度 | 随温度升高而增大，符合"高温→更强探索"的直觉 |', _ANALYSIS,
    '| SE vs sampling temperature | increases as the temperature rises, in line with the intuition "higher '
    'temperature → more exploration" |')
B_NOTE_COSINE = _summary(
    CREATIVITY_EVAL_SUMMARY, "| SE vs 候选间 cosine 相似度 | 负相关，高 SE 模型产出的候选确实更不相似 |", _ANALYSIS,
    "| SE vs cosine similarity between candidates | negative correlation: the candidates of high-SE models are indeed "
    "less similar |")
B_NOTE_NOVELTY = _summary(
    CREATIVITY_EVAL_SUMMARY,
    r"| solution-level SE vs LLM 新颖性判断 | 正相关（LLM 评委先用 30 题对人工排序校验，"
    r"Spearman \(\rho=0.80\)） |", _ANALYSIS,
    r"| solution-level SE vs the LLM's novelty judgement | positive correlation (the LLM judge first checked against "
    r"human rankings on 30 problems, Spearman \(\rho=0.80\)) |")
B_NOTE_SCALE = _summary(
    CREATIVITY_EVAL_SUMMARY,
    "| 发散 vs 模型规模/新旧 | 不单调，甚至更大/更新的模型 SE 反而略降（LLaMA 3→3.3、Vicuna 7B→33B） |",
    _ANALYSIS,
    "| divergent vs model size / recency | not monotone; larger or newer models' SE even falls slightly (LLaMA 3→3.3, "
    "Vicuna 7B→33B) |")
B_NOTE_CONVERGENT_SCALE = _summary(
    CREATIVITY_EVAL_SUMMARY, "| 收敛 vs 模型规模/新旧/推理 | 单调提升，更大、更新、带推理（R1-70B）的模型收敛分更高 |",
    _ANALYSIS,
    "| convergent vs model size / recency / reasoning | rises monotonically: larger, newer and reasoning (R1-70B) "
    "models score higher |")
B_NOTE_WEAK = _summary(
    CREATIVITY_EVAL_SUMMARY, "| 发散 vs 收敛相关性 | Spearman 一致偏弱，两维经验上可分离 |", _ANALYSIS,
    "| divergent vs convergent correlation | Spearman consistently weak: the two dimensions are empirically "
    "separable |")
B_NOTE_ERROR = _summary(
    CREATIVITY_EVAL_SUMMARY,
    '如果 SE 在开放式任务里仍主要反映"出错/幻觉"，本该和任务完成度强负相关——'
    "没有这种关系，反过来证明了 SE 测的是生成广度而非错误。",
    "关键发现 (Key findings), first bullet",
    'If SE on open-ended tasks still mainly reflected "error / hallucination", it should correlate strongly and '
    "negatively with task completion; there is no such relation, which in turn shows that SE measures the breadth of "
    "generation, not error.")
B_NOTE_KAPPA = _summary(
    CREATIVITY_EVAL_SUMMARY,
    r"发散侧——语义熵与人类判断的一致性（MacGyver 上 50 题、3 名标注者多数投票为金标，Cohen's \(\kappa\)）： "
    "| 多样性指标 | 与人类判断一致性 (κ) | |---|---| | Semantic Entropy（本文） | 0.56 | | Cosine similarity | 0.49 | "
    "| Distinct-1 | 0.37 | | Self-BLEU | 0.35 | | Distinct-2 | 0.34 |",
    "实验关键数据, 主实验 (Key experimental data, main experiment: the kappa table)",
    r"Divergent side: agreement of semantic entropy with human judgement (50 MacGyver problems, gold labels the "
    r"majority vote of 3 annotators, Cohen's \(\kappa\)): | diversity measure | agreement with human judgement (κ) | "
    "| Semantic Entropy (this paper) | 0.56 | | Cosine similarity | 0.49 | | Distinct-1 | 0.37 | | Self-BLEU | 0.35 | "
    "| Distinct-2 | 0.34 |")
B_NOTE_ACCURACY = _summary(
    CREATIVITY_EVAL_SUMMARY,
    "| GPT-4o One-shot | 64.7% | – | | GPT-4o CoT | 67.3% | – | | ChatEval | 76.7% | 73.3% | "
    "| 本文框架 (GPT-4o) | 84.7% | 83.0% | | 本文框架 (GPT-4o-mini) | 55.3% | – | "
    "| 人类标注者（区间） | 80.0–84.7% | 74.7–87.0% |",
    "实验关键数据, 主实验 (the accuracy table against the majority-vote labels: MacGyver, BookMIA)",
    "| GPT-4o One-shot | 64.7% | – | | GPT-4o CoT | 67.3% | – | | ChatEval | 76.7% | 73.3% | "
    "| this paper's framework (GPT-4o) | 84.7% | 83.0% | | this paper's framework (GPT-4o-mini) | 55.3% | – | "
    "| human annotators (range) | 80.0–84.7% | 74.7–87.0% |")
B_NOTE_BASE = _summary(
    CREATIVITY_EVAL_SUMMARY, "但换成 GPT-4o-mini 准确率掉到 55.3%，说明评判质量强依赖底座模型能力。",
    "实验关键数据, 主实验 (below the accuracy table)",
    "but with GPT-4o-mini the accuracy falls to 55.3 %, which shows that the judge's quality depends strongly on its "
    "base model.")

EXCERPTS: dict[str, tuple[Excerpt, ...]] = {
    "A1": (A_SUMMARY_QUALITY, A_FINDINGS),
    "A2": (A_SUMMARY_QUALITY, A_SUMMARY_TABLE),
    "A3": (A_FINDINGS, A_SUMMARY_SMALL),
    "A4": (A_HOMOGENIZATION, A_BLIND, A_SUMMARY_HOMOGENIZATION),
    "A5": (A_SUMMARY_HUMAN,),
    "A6": (A_SUMMARY_STRUCTURE, A_FINDINGS),
    "B1": (B_NOTE_TEMPERATURE,),
    "B2": (B_NOTE_SCALE, B_VICUNA),
    "B3": (B_NOTE_CLUSTERS,),
    "B4": (B_NOTE_COSINE,),
    "B5": (B_EFFICIENCY, B_TOKENS, B_NOTE_TOKENS),
    "B6": (B_NOTE_WEAK, B_NOTE_ERROR),
    "B7": (B_NOTE_KAPPA,),
    "B8": (B_NOTE_NOVELTY,),
    "B9": (B_NOTE_ACCURACY,),
    "B10": (B_NOTE_ACCURACY, B_NOTE_BASE),
    "B11": (B_NOTE_CONVERGENT_SCALE, B_NOTE_SCALE, B_VICUNA),
    "B12": (B_NOTE_ACCURACY,),
    "B13": (B_NOTE_NOVELTY,),
    "B14": (B_NOTE_SCALE, B_LLAMA, B_VICUNA),
    "B15": (B_NOTE_CONVERGENT_SCALE, B_NEWER),
    "B16": (B_NOTE_ERROR, B_NOTE_WEAK),
}
"""Claim id -> the passages its `paper_figure` rests on (the claims of the recorded runs and those declared for a later
registration)."""
REFERENCE_EXCERPTS: tuple[Excerpt, ...] = (A_SUMMARY_TABLE,)
"""The passages `framework_summary.REFERENCE_FIGURES` (paper A's single-agent row) rest on."""

UNCHECKED: dict[str, str] = {}
"""Claim id -> why no excerpt of its figure is committed: every figure the claims page quotes now stands in an excerpt
(of an abstract, the authors' README or a summary); a figure added without one is listed here with its reason."""

DISAGREEMENTS: dict[str, str] = {
    "A1": "the abstract says Review “consistently outperforms multi-agent baselines”; the summary says it "
          "“significantly outperforms single-agent and other multi-agent frameworks”, naming the single agent too",
    "A6": "the abstract says the results suggest “interaction structure may substitute for model scale”; the summary "
          "states it as a conclusion, “Interaction Structure Is More Important Than Model Scale”",
    "B14": "the summary names LLaMA 3 → 3.3 among its examples of SE falling for newer models; the authors' README "
           "gives "
           "Llama 3 70B and Llama 3.3 70B the same SE, 2.10 → 2.10 (its Llama 3.1 rows do fall with size, 8B 2.13 → "
           "405B 2.08, and Vicuna 7B → 33B falls 2.19 → 2.17, with 13B at 1.96 between)",
}
"""Claim id -> how a summary and the abstract or the authors' README differ on the claim's figure; the claims page
shows both (`figure_source`)."""

NUMBER = re.compile(r"\d+(?:\.\d+)?")
"""A number of a figure: what must stand in one of its excerpts."""
WORDING = re.compile(r"“([^”]+)”")
"""A passage a figure quotes as the paper's wording: what must stand in one of its excerpts."""
PLOTTED = "plotted:"
"""What opens the part of a figure that is this project's reading of it (the value the forest plot marks)."""


def numbers(text: str) -> list[str]:
    """The numbers of `text`, as written ("0.56", "84.7", "63")."""
    return NUMBER.findall(text)


def normalised(text: str) -> str:
    """`text` with every run of whitespace (line breaks, tabs) as one space: how an excerpt is compared."""
    return " ".join(text.split())


def _derivable(value: float, quoted: Sequence[str]) -> bool:
    """Whether `value` is a number of `quoted`, as given or as a percentage, or the difference of two of them."""
    found = {float(x) for x in quoted} | {float(x) / 100 for x in quoted}
    return any(abs(value - x) < 5e-4 for x in found) or any(abs(value - (a - b)) < 5e-4 for a in found for b in found)


def figure_problems(figure: str, passages: Iterable[Excerpt], paper_value: float | None = None) -> list[str]:
    """What keeps `figure` from being checked against `passages`, one sentence each; empty when it is checked.

    Each number of the figure before "plotted:" must be a number of a passage; `paper_value` (the figure's plotted
    reading) must be a number of the passages, as given or as a percentage, or the difference of two; each quoted
    “wording” must stand in a passage (its original or its translation, whitespace aside); and a figure with neither a
    number nor a quoted wording checks nothing.
    """
    passages = list(passages)
    if not passages:
        return ["no excerpt is committed for it"]
    stated = figure.split(PLOTTED)[0]
    quoted = [x for e in passages for x in numbers(e.text)]
    problems = [f"the number {x} stands in none of its excerpts" for x in numbers(stated) if x not in quoted]
    if paper_value is not None and not _derivable(paper_value, quoted):
        problems.append(f"the plotted value {paper_value} is neither a number of its excerpts nor a difference of two")
    said = [normalised(w) for e in passages for w in (e.text, e.translation) if w]
    wording = WORDING.findall(figure)
    problems += [f"the wording “{w}” stands in none of its excerpts" for w in wording
                 if not any(normalised(w) in s for s in said)]
    if not numbers(stated) and not wording:
        problems.append("it holds no number and quotes no wording, so no excerpt checks it")
    return problems


def summary_file(summary: Summary, folder: Path | None = None) -> Path:
    """The file of `summary` in `folder` (default: `paths.papers_dir`); a missing folder or file raises
    `FileNotFoundError` naming the variable that moves the folder."""
    folder = papers_dir() if folder is None else folder
    path = folder / summary.file
    if not path.is_file():
        raise FileNotFoundError(f"the papers' summary {path} is missing: the excerpts are checked against "
                                f"{PAPERS_FOLDER}/ beside the project; set {variable('papers')} to the folder that "
                                f"holds {', '.join(s.file for s in SUMMARIES)}")
    return path


def summary_problems(excerpt: Excerpt, folder: Path | None = None) -> list[str]:
    """What keeps a summary's `excerpt` from standing in its file, one sentence each (empty when it does): the file's
    SHA-256 must be the summary's, the passage (its original, whitespace aside) a substring of the file, its source
    the file, and a passage of the Chinese note must carry a translation. `folder`: the papers folder (default
    `paths.papers_dir`)."""
    summary = excerpt.summary
    if summary is None:
        return []
    data = summary_file(summary, folder).read_bytes()
    problems = []
    if (digest := hashlib.sha256(data).hexdigest()) != summary.sha256:
        problems.append(f"{summary.file} has SHA-256 {digest}, not the {summary.sha256} its excerpts were copied from")
    if normalised(excerpt.text) not in normalised(data.decode("utf-8")):
        problems.append(f"the passage {excerpt.text[:60]!r}... is not in {summary.file}")
    if excerpt.source != f"{PAPERS_FOLDER}/{summary.file}":
        problems.append(f"its source {excerpt.source!r} is not its file, {PAPERS_FOLDER}/{summary.file}")
    if summary is CREATIVITY_EVAL_SUMMARY and not excerpt.translation:
        problems.append(f"the passage {excerpt.text[:60]!r}... of the Chinese note has no translation")
    if len(excerpt.text) > MAX_EXCERPT:
        problems.append(f"the passage {excerpt.text[:60]!r}... has {len(excerpt.text)} characters, over "
                        f"{MAX_EXCERPT}: quote a sentence or a table row")
    return problems


_INLINE_MATH = re.compile(r"\\\((.+?)\\\)")
"""A summary's inline maths, `\\(\\kappa\\)`: on the page, Markdown would eat its backslashes."""


def _readable(text: str) -> str:
    """A passage in one line, without the "|" the page's tables own: each table row as "first cell: the others",
    the rows joined by "; ", a header's rule left out; a summary's inline maths `\\(...\\)` as the page's `$...$`.

    >>> print(_readable(r"Cohen's \\(\\kappa\\) | 0.56 |"))
    Cohen's $\\kappa$: 0.56
    """
    text = _INLINE_MATH.sub(lambda m: f"${m.group(1)}$", text)
    if "|" not in text:
        return normalised(text)
    rows = []
    for row in re.split(r"\|\s*\|", normalised(text)):
        cells = [c.strip() for c in row.split("|") if c.strip() and not set(c.strip()) <= set("-")]
        if cells:
            rows.append(cells[0].rstrip("：:") + (": " + ", ".join(cells[1:]) if cells[1:] else ""))
    return "; ".join(rows)


def _cite(e: Excerpt) -> str:
    """One excerpt's place and whose words it is; a Chinese passage with its original and translation."""
    said = f" “{_readable(e.text)}” (“{_readable(e.translation)}”)" if e.translation else ""
    return f"{e.place} ({e.cited_as}){said}"


def figure_source(claim_id: str, differences: bool = True) -> str:
    """A few words for the claims page: where the claim's quoted figure was checked (each excerpt's place, whose words
    it is, a Chinese passage with its translation), how a summary and the abstract or README differ where they do
    (unless `differences` is False: the page then says that apart), or that it was not checked."""
    if claim_id in EXCERPTS:
        differ = (f"; the sources differ: {DISAGREEMENTS[claim_id]}" if differences and claim_id in DISAGREEMENTS
                  else "")
        return f"checked against the committed excerpt: {'; '.join(_cite(e) for e in EXCERPTS[claim_id])}{differ}"
    reason = UNCHECKED.get(claim_id)
    return f"not checked against the paper's text here: {reason}" if reason else ""
