"""The method's own code on a chapter's page: the library source of the objects that implement its algorithm.

A chapter explains its algorithm in prose and maths, and runs it through one call (`run_grid`, `run_writing`, a
judge). Beside the maths it shows the code that ran: `show_code(chapter, *names)` reads each object's source with
`inspect.getsource` when the chapter's cell runs (so the page shows the library as it was when the chapter was
executed, never a copy) and returns it as a highlighted Python block (a fenced code block in a Markdown output,
which the book renders with Pygments; a long line scrolls inside its block, never the page).

`CHAPTER_OBJECTS` is the one table of what each chapter shows: chapter (its stage name) -> the qualified names of
its objects, each a function or a method short enough to read (`MAX_LINES`) that holds the algorithm, with the
plumbing left out (where a function is long, a helper it calls is shown by name). A chapter's display cells name
objects of its own row only. `tests/book/test_method_code.py` traces the smoke replay and fails if a chapter shows an
object its run never called.
"""

from __future__ import annotations

import inspect
import pkgutil
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

MAX_LINES = 45
"""The longest block a chapter shows (about 40 lines: a page shows it without scrolling far)."""

CHAPTER_OBJECTS: dict[str, tuple[str, ...]] = {
    "backends": (
        "llmcreativity.llm.cached_backend.CachedBackend._single",
    ),
    "scifi100": (
        "llmcreativity.writing.construction.construct_dataset",
        "llmcreativity.writing.construction.farthest_point_order",
    ),
    "baselines": (
        "llmcreativity.writing.frameworks.teacher.LLMTeacher.run",
        "llmcreativity.writing.frameworks.debate.LLMDebate.run",
        "llmcreativity.writing.frameworks.discussion.LLMDiscussion.run",
    ),
    "review": (
        "llmcreativity.writing.frameworks.review.LLMReview.run",
        "llmcreativity.writing.frameworks.protocol.step",
    ),
    "writing_pilot": (
        "llmcreativity.writing.degeneracy._measure",
        "llmcreativity.writing.decoding.choose_decoding",
    ),
    "corpus": (
        "llmcreativity.corpus.chunking.chunk_spans",
        "llmcreativity.corpus.unigram.unigram_counts",
    ),
    "judge_lab": (
        "llmcreativity.judgelab.equivalence.greedy_partition",
        "llmcreativity.judgelab.lab.confirm_job",
    ),
    "entailment_validation": (
        "llmcreativity.entropy.clustering.representative_clustering",
        "llmcreativity.entropy.musescorer_validation.partition_agreement",
    ),
    "semantic_entropy": (
        "llmcreativity.entropy.stepwise.run_step",
        "llmcreativity.entropy.clustering.cluster_by_bidirectional_entailment",
        "llmcreativity.entropy.clustering.representative_clustering",
        "llmcreativity.entropy.se_estimators.discrete_semantic_entropy",
        "llmcreativity.entropy.se_estimators.cluster_log_probabilities",
        "llmcreativity.entropy.se_estimators.probability_weighted_semantic_entropy",
        "llmcreativity.entropy.se_estimators.length_normalized_semantic_entropy",
    ),
    "judge_validation": (
        "llmcreativity.judges.retrieval_panel.RetrievalPanelJudge._round",
        "llmcreativity.judges.retrieval_panel.RetrievalPanelJudge._decide",
    ),
    "evaluation": (
        "llmcreativity.metrics.surprisal.story_surprisal",
        "llmcreativity.metrics.divergence.lexical_kl",
        "llmcreativity.metrics.novelty.semantic_novelty_batch",
        "llmcreativity.metrics.volume.VolumeReference.gain",
        "llmcreativity.judges.rubric.prompt.rubric_prompt",
        "llmcreativity.judges.rubric.judge.RubricJudge.expected",
        "llmcreativity.judges.rubric.rubric_scores.expected_score",
        "llmcreativity.evaluation.scoring_table.judge_table",
    ),
}
"""Chapter (stage name) -> the qualified names of the objects its page shows, in the order the page shows them."""

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"""`lib/`: file names on the page are shown relative to it (`llmcreativity/entropy/stepwise.py`)."""


def resolve(qualified: str) -> Callable[..., Any]:
    """The function or method a qualified name (`package.module.Class.method`) names; a clear error naming it when
    it names nothing, or something that is not a function."""
    try:
        obj = pkgutil.resolve_name(qualified)
    except (ImportError, AttributeError, ValueError) as e:
        raise LookupError(f"{qualified!r} names no object of the library ({e})") from e
    obj = inspect.unwrap(obj)
    if not isinstance(obj, FunctionType):
        raise TypeError(f"{qualified!r} is a {type(obj).__name__}, not a function or method: name the function "
                        "that holds the algorithm")
    return obj


def code_of(qualified: str) -> CodeType:
    """The code object a qualified name's function runs (what the trace test looks for)."""
    return resolve(qualified).__code__


def chapter_names(chapter: str, *names: str) -> list[str]:
    """The qualified names of `chapter`'s row of `CHAPTER_OBJECTS`: all, or those whose qualified name ends with
    one of `names` (`"run_step"`, `"LLMReview.run"`), in the order given; an error naming a chapter without a row
    or a name the row lacks."""
    if chapter not in CHAPTER_OBJECTS:
        raise KeyError(f"chapter {chapter!r} has no row in CHAPTER_OBJECTS; chapters: {sorted(CHAPTER_OBJECTS)}")
    row = CHAPTER_OBJECTS[chapter]
    if not names:
        return list(row)
    found = []
    for name in names:
        hits = [q for q in row if q == name or q.endswith("." + name)]
        if len(hits) != 1:
            raise KeyError(f"{name!r} is {'ambiguous' if hits else 'not'} in the {chapter!r} row of CHAPTER_OBJECTS "
                           f"({', '.join(row)}): add it to the table or name it fully")
        found.append(hits[0])
    return found


def _fence(source: str) -> str:
    """A backtick fence longer than any run of backticks in `source`."""
    longest, run = 0, 0
    for ch in source:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def code_block(qualified: str) -> str:
    """Markdown for one object: a line naming it and its file, then its current source as a Python block."""
    obj = resolve(qualified)
    source = textwrap.dedent(inspect.getsource(obj)).rstrip("\n")
    n_lines = source.count("\n") + 1
    if n_lines > MAX_LINES:
        raise ValueError(f"{qualified!r} is {n_lines} lines, over MAX_LINES={MAX_LINES}: show a helper it calls "
                         "instead")
    path = Path(inspect.getsourcefile(obj) or "")
    try:
        where = path.resolve().relative_to(PACKAGE_ROOT).as_posix()
    except ValueError:
        where = path.name
    first = obj.__code__.co_firstlineno
    fence = _fence(source)
    return (f"`{obj.__qualname__}` in `{where}` (lines {first}-{first + n_lines - 1}):\n\n"
            f"{fence}python\n{source}\n{fence}")


def show_code(chapter: str, *names: str) -> Any:
    """Show the source of `chapter`'s objects (all of its row, or those `names` pick) as highlighted Python."""
    from IPython.display import Markdown

    return Markdown("\n\n".join(code_block(q) for q in chapter_names(chapter, *names)))
