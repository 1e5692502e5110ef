"""Is a story a story? Repetition loops, paraphrase echoes and word salad, measured on the text as read.

Computed when stories are read (the story records and `writing.parsing` are left as they are). Three signals,
each with its own verdict, and one field apart for whether the text ended or was cut:

- **loop** (issue 36's rule, lexical). Words are split on whitespace; sentences are split after ``.``, ``!`` or
  ``?``, lower-cased, and kept when they have at least `MIN_SENTENCE_WORDS` words. With G the word 4-grams of the
  story, distinct_4gram_share = |set(G)| / |G| (1 when there are none) and repeated_sentences =
  sum over distinct sentences s of (count(s) - 1). A loop is distinct_4gram_share < `DISTINCT_4GRAM_FLOOR` or
  repeated_sentences >= `REPEATED_SENTENCE_LIMIT`. A no-repeat-4-gram decoding ban zeroes both by construction.
- **echo** (semantic, which no n-gram or token ban controls). The sentences (same split) are embedded with a
  sentence embedder (unit rows e_i); each sentence's nearest other sentence has cosine m_i = max_{j != i} e_i . e_j.
  echo_share = |{i : m_i >= ECHO_COSINE}| / |sentences|; an echo is echo_share >= `ECHO_SHARE_LIMIT` with at least
  `MIN_ECHO_SENTENCES` sentences. A story that restates its sentences with a word or two swapped every few words
  (what a model loops into under an n-gram ban) is caught here; where it errs: a loop rephrased in wholly new words
  mostly is not (such paraphrases score below `ECHO_COSINE`).
- **salad** (what heavy penalties make). function_word_share = share of the words (lower-cased, punctuation
  stripped) that are in `FUNCTION_WORDS`; English prose spends about 40-55 % of its words on them, and a
  repetition or frequency penalty pushes exactly these, the most frequent tokens, down first. Salad is
  function_word_share < `SALAD_FUNCTION_SHARE` over at least `MIN_SALAD_WORDS` words. Where it errs: verse, lists
  and telegraphic prose have few function words and are flagged; salad built of function words is not.

degenerate = loop or echo or salad. Ended or cut is apart: `cut` is True when the story carries the parser's
``truncated`` (hit the token budget) or ``over_long`` (cut back to the word limit) flag, `ends_mid_sentence` when
its last character is not a sentence end. Coherence (the mean cosine of consecutive sentences) is reported, not
judged on: it is low for salad and for stories that change scene, so it separates neither alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from ..llm.backend import TextEmbedder
from ..stats.proportion import wilson_ci
from .parsing import FLAG_OVER_LONG, FLAG_TRUNCATED

MIN_SENTENCE_WORDS = 4
"""Sentences shorter than this ("He ran.", "No!") recur in good prose and are not counted (issue 36's rule)."""
DISTINCT_4GRAM_FLOOR = 0.8
"""A loop below this share of distinct word 4-grams (issue 36's rule): a 300-word story with a tenth of its
4-grams repeated twice has repeated a passage, not an idiom."""
REPEATED_SENTENCE_LIMIT = 2
"""A loop at this many repeated occurrences of a sentence beyond its first (issue 36's rule): one repeat can be a
refrain, two are a loop."""
ECHO_COSINE = 0.85
"""all-minilm-l6-v2 cosine at which two sentences of one story say the same thing: a sentence restated with a word
or two swapped ("without proper preparation and testing" / "without proper planning and testing") scores about
0.85-0.95; in the published run's stories without a loop, a sentence's nearest other sentence has a median cosine
of 0.69 (`scripts/check_degeneracy.py` prints both distributions). At 0.8 the signal also takes two sentences on
one topic for a repeat."""
ECHO_SHARE_LIMIT = 0.3
"""An echo when at least this share of the sentences has a near-copy elsewhere in the story: a refrain or a
repeated name makes one or two such pairs, a paraphrase loop makes most sentences one."""
MIN_ECHO_SENTENCES = 4
"""Fewer sentences give too few pairs to call an echo (two sentences out of three would already be 0.67)."""
SALAD_FUNCTION_SHARE = 0.25
"""Salad below this share of function words: English narrative prose lies around 0.4-0.55 (the published run's
stories: none below 0.3), a list of content words near 0."""
MIN_SALAD_WORDS = 20
"""A shorter text is too short to call salad."""
FUNCTION_WORDS = frozenset(
    "a an the and or but nor so yet if then than that this these those there here of in on at by for from to with "
    "without into onto over under about as is are was were be been being am do does did have has had will would "
    "shall should can could may might must not no it its he him his she her hers they them their we us our i me my "
    "you your who whom whose which what when where why how all each every some any one".split())
"""English closed-class words (articles, conjunctions, prepositions, auxiliaries, pronouns, determiners)."""
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])")
_SENTENCE_END_CHARS = ".!?\"'”’)…*"
_WORD_STRIP = "\"'“”‘’.,;:!?()[]*_-—–…"


@dataclass(frozen=True)
class Degeneracy:
    """The degeneracy signals of one story and their verdicts (see the module docstring for the formulas)."""

    words: int
    """Whitespace-separated words."""
    sentences: int
    """Sentences of at least `MIN_SENTENCE_WORDS` words."""
    distinct_4gram_share: float
    """|distinct word 4-grams| / |word 4-grams|, in (0, 1]; 1 when the story has fewer than 4 words."""
    repeated_sentences: int
    """Occurrences of a sentence beyond its first, summed over the distinct sentences."""
    echo_share: float
    """Share of the sentences whose nearest other sentence has embedding cosine >= `ECHO_COSINE`; 0 with fewer
    than two sentences."""
    mean_nearest_cosine: float
    """Mean over the sentences of the cosine to their nearest other sentence; NaN with fewer than two."""
    coherence: float
    """Mean cosine of consecutive sentences (reported, not judged on); NaN with fewer than two."""
    function_word_share: float
    """Share of the words in `FUNCTION_WORDS`; NaN for an empty story."""
    loop: bool
    """distinct_4gram_share < `DISTINCT_4GRAM_FLOOR` or repeated_sentences >= `REPEATED_SENTENCE_LIMIT`."""
    echo: bool
    """echo_share >= `ECHO_SHARE_LIMIT` over at least `MIN_ECHO_SENTENCES` sentences."""
    salad: bool
    """function_word_share < `SALAD_FUNCTION_SHARE` over at least `MIN_SALAD_WORDS` words."""
    degenerate: bool
    """loop or echo or salad."""
    cut: bool
    """The parser's flags say the text is not the model's own ending (``truncated`` or ``over_long``)."""
    ends_mid_sentence: bool
    """The text's last character is not a sentence end (a cut that the flags may not show)."""


def story_sentences(text: str) -> list[str]:
    """The sentences the measure counts: split after . ! ?, whitespace collapsed, lower-cased, >= 4 words.

    >>> story_sentences("He ran. The ship was gone! Was it? She knew it was gone.")
    ['the ship was gone!', 'she knew it was gone.']
    """
    parts = (" ".join(p.lower().split()) for p in _SENTENCE_SPLIT.split(text))
    return [p for p in parts if len(p.split()) >= MIN_SENTENCE_WORDS]


def distinct_4gram_share(text: str) -> float:
    """|set(G)| / |G| over the whitespace word 4-grams G of `text`; 1.0 when there are none.

    >>> distinct_4gram_share("a b c d a b c d")  # abcd, bcda, cdab, dabc, abcd: 4 distinct of 5
    0.8
    """
    words = text.split()
    grams = [tuple(words[i:i + 4]) for i in range(len(words) - 3)]
    return len(set(grams)) / len(grams) if grams else 1.0


def repeated_sentences(sentences: Sequence[str]) -> int:
    """sum_s (count(s) - 1): occurrences of a sentence beyond its first.

    >>> repeated_sentences(["the sea was red.", "the sea was red.", "the sea was red.", "she left the ship."])
    2
    """
    return sum(c - 1 for c in Counter(sentences).values())


def function_word_share(text: str) -> float:
    """Share of the whitespace words of `text` (lower-cased, punctuation stripped) in `FUNCTION_WORDS`; NaN if none.

    >>> function_word_share("The cat sat on the mat.")
    0.5
    """
    words = [w.lower().strip(_WORD_STRIP) for w in text.split()]
    return sum(w in FUNCTION_WORDS for w in words) / len(words) if words else float("nan")


def _similarity_signals(rows: np.ndarray) -> tuple[float, float, float]:
    """(echo_share, mean_nearest_cosine, coherence) of one story's unit sentence rows (the module's formulas)."""
    if len(rows) < 2:
        return 0.0, float("nan"), float("nan")
    sims = rows @ rows.T
    np.fill_diagonal(sims, -np.inf)
    nearest = sims.max(axis=1)
    consecutive = np.einsum("ij,ij->i", rows[:-1], rows[1:])
    return float((nearest >= ECHO_COSINE).mean()), float(nearest.mean()), float(consecutive.mean())


def _measure(text: str, flags: Sequence[str], sentences: list[str], rows: np.ndarray) -> Degeneracy:
    """The signals and verdicts of one story from its sentences and their embeddings."""
    share, repeats = distinct_4gram_share(text), repeated_sentences(sentences)
    echo_share, nearest, coherence = _similarity_signals(rows)
    function_share, words = function_word_share(text), len(text.split())
    loop = share < DISTINCT_4GRAM_FLOOR or repeats >= REPEATED_SENTENCE_LIMIT
    echo = len(sentences) >= MIN_ECHO_SENTENCES and echo_share >= ECHO_SHARE_LIMIT
    salad = words >= MIN_SALAD_WORDS and function_share < SALAD_FUNCTION_SHARE
    stripped = text.rstrip()
    return Degeneracy(words, len(sentences), share, repeats, echo_share, nearest, coherence, function_share,
                      loop, echo, salad, loop or echo or salad,
                      cut=FLAG_TRUNCATED in flags or FLAG_OVER_LONG in flags,
                      ends_mid_sentence=bool(stripped) and stripped[-1] not in _SENTENCE_END_CHARS)


def measure_degeneracy(texts: Sequence[str], embedder: TextEmbedder,
                       flags: Sequence[Sequence[str]] | None = None) -> list[Degeneracy]:
    """The `Degeneracy` of each story in `texts`; every story's sentences are embedded in one `encode` call.

    `embedder` is a sentence embedder (the project's `all-minilm-l6-v2`, `get_embedder`; the thresholds are set
    for it); `flags` are the stories' parser flags (a `StoryRecord`'s `flags`), None for none.
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a list of stories, not one string: wrap it as [text]")
    given = [list(f) for f in flags] if flags is not None else [[] for _ in texts]
    if len(given) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(given)} flag lists: pass one flag list per story")
    per_story = [story_sentences(t) for t in texts]
    everything = [s for sentences in per_story for s in sentences]
    rows = np.asarray(embedder.encode(everything), dtype=np.float32) if everything else np.zeros((0, 1))
    out, start = [], 0
    for text, story_flags, sentences in zip(texts, given, per_story, strict=True):
        out.append(_measure(text, story_flags, sentences, rows[start:start + len(sentences)]))
        start += len(sentences)
    return out


def degeneracy_table(stories: pd.DataFrame, embedder: TextEmbedder) -> pd.DataFrame:
    """`stories` (the `StoryRecord` columns, `load_stories`) with the `Degeneracy` fields added as columns."""
    found = measure_degeneracy(list(stories["story"]), embedder, list(stories["flags"]))
    signals = pd.DataFrame([asdict(d) for d in found], index=stories.index)
    return pd.concat([stories.drop(columns=[c for c in signals if c in stories]), signals], axis=1)


def writer_name(identity: str) -> str:
    """The registry model name of a local engine's identity ("llama.cpp:NAME:..." or "transformers:NAME:..."), for
    a table's column; any other identity (an endpoint's, a test double's) as it is.

    >>> writer_name("llama.cpp:qwen2.5-coder-0.5b:qwen2.5-coder-0.5b-instruct.gguf:sha256-1d96:row-seeded")
    'qwen2.5-coder-0.5b'
    """
    engine, _, rest = identity.partition(":")
    return rest.split(":")[0] if engine in ("llama.cpp", "transformers") and rest else identity


def degenerate_share(table: pd.DataFrame, by: Sequence[str] = ("framework", "model")) -> pd.DataFrame:
    """Per group of `by`: stories (or framework runs: a `degenerate_runs` table), degenerate share with its Wilson
    95 % CI, and the loop / echo / salad / cut shares of the table's columns that hold them.

    A "model" column of `by` is shown by its `writer_name`.
    """
    rows = []
    for key, g in table.groupby(list(by), sort=True):
        ci = wilson_ci(int(g["degenerate"].sum()), len(g))
        named = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        if "model" in named:
            named["model"] = writer_name(str(named["model"]))
        unit = "stories" if "story" in g or "story_id" in g else "framework_runs"
        rows.append({**named, unit: len(g), "degenerate": ci.estimate, "ci_low": ci.low, "ci_high": ci.high,
                     **{c: g[c].mean() for c in ("loop", "echo", "salad", "cut") if c in g}})
    return pd.DataFrame(rows)


STORY_FILTERS = ("all", "passing")
"""What paper A's claims are reported on: every story (the first registration's reading), or only the stories that
pass this measure (`passing_stories`, `passing_runs`; the claims' re-decision), the failing share shown beside."""


def check_story_filter(name: str) -> str:
    """`name` when it is one of `STORY_FILTERS`; a ValueError naming the choices otherwise."""
    if name not in STORY_FILTERS:
        raise ValueError(f"story_filter {name!r}: use one of {list(STORY_FILTERS)}")
    return name


def passing_stories(table: pd.DataFrame, degeneracy: pd.DataFrame) -> pd.DataFrame:
    """The rows of `table` (one per story, a `story_id` column) whose story `degeneracy` (a `degeneracy_table`
    with `story_id`) does not call degenerate; a story the measure did not read is refused, naming it."""
    flagged = degeneracy.set_index("story_id")["degenerate"]
    unread = sorted(set(table["story_id"]) - set(flagged.index))
    if unread:
        raise ValueError(f"{len(unread)} stories have no degeneracy reading (first: {unread[0]}): measure every "
                         "story of the table with degeneracy_table first")
    return table[~table["story_id"].map(flagged).astype(bool)]


def degenerate_runs(versions: pd.DataFrame, embedder: TextEmbedder) -> pd.DataFrame:
    """Per (framework, prompt_id) of `versions_by_round` rows: `versions` (the writers' versions read, empty ones
    left out) and `degenerate` (True when any writer's version at any round is degenerate), the reading of a
    framework run that paper A's convergence claim (A4) compares across its rounds."""
    texts = versions[versions["story"].str.strip().astype(bool)]
    found = measure_degeneracy(list(texts["story"]), embedder)
    flagged = texts.assign(degenerate=[d.degenerate for d in found])
    runs = flagged.groupby(["framework", "prompt_id"], sort=True)["degenerate"].agg(["size", "any"])
    return runs.rename(columns={"size": "versions", "any": "degenerate"}).reset_index()


def passing_runs(homogenization: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The rows of a homogenization table whose (framework, prompt_id) run `degenerate_runs` does not call
    degenerate; a run it did not read is refused, naming it."""
    flagged = runs.set_index(["framework", "prompt_id"])["degenerate"]
    keys = pd.MultiIndex.from_frame(homogenization[["framework", "prompt_id"]])
    unread = sorted(set(keys) - set(flagged.index))
    if unread:
        raise ValueError(f"{len(unread)} framework runs have no degeneracy reading (first: {unread[0]}): read "
                         "every run's versions with degenerate_runs first")
    return homogenization[~flagged.reindex(keys).to_numpy(bool)]
