"""Every file a stage writes, declared once: its path inside the stage's folder, what it holds, how to count it.

Each `OutputFile` below is listed by the stage that writes it (`pipeline.stages.Stage.outputs`); `outputs` builds
the path functions and readers from the two, and the run report counts a stage's items from the outputs that say
what one of their records is (`OutputFile.items`). The modules that write a file into a folder they are given
(`writing.writing_run.run_writing`, `corpus.store.export_store`) name it by its declaration here too, so a file name is
written in this module and nowhere else (`tests/pipeline/test_pipeline_stages.py` checks it).

A path may hold `{field}` placeholders for a family of files, one per value (one unigram table per tokenizer);
`OutputFile.relative` fills them and `OutputFile.pattern` matches every member of the family.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class OutputFile:
    """One file (or folder) a stage writes into its folder `paths.stage_dir(stage)`."""

    path: str
    """Relative to the stage's folder, `/`-separated; `{field}` placeholders name a family of files."""
    holds: str
    """What it holds, in a few words (for docstrings and errors)."""
    items: str = ""
    """What one record of it is, plural ("stories"), when its records count as the stage's items; empty when they
    do not. A folder's items are the records of the files in it."""

    def relative(self, **fields: str) -> str:
        """`path` with its placeholders filled from `fields`; a missing field raises KeyError naming it.

        >>> OutputFile("unigram_{tokenizer}.parquet", "unigram counts").relative(tokenizer="words")
        'unigram_words.parquet'
        """
        missing = sorted(set(_FIELD.findall(self.path)) - set(fields))
        if missing:
            raise KeyError(f"{self.path}: give {', '.join(missing)} to name one file of this family")
        return self.path.format(**fields)

    @property
    def pattern(self) -> str:
        """`path` as a glob pattern matching every file of the family (each placeholder a `*`)."""
        return _FIELD.sub("*", self.path)

    def within(self, folder: OutputFile) -> OutputFile:
        """This file inside an output folder (a writing run's stories inside the bigger Single Agent's folder)."""
        return replace(self, path=f"{folder.path}/{self.path}")

    def count_items(self, stage_folder: Path) -> int:
        """Records of every file matching `pattern` in `stage_folder` (a folder: of the files in it); 0 when none.

        Counting follows the suffix, see `count_records`.
        """
        found = sorted(stage_folder.glob(self.pattern))
        files = [f for p in found for f in (sorted(p.iterdir()) if p.is_dir() else [p]) if f.is_file()]
        return sum(count_records(f) for f in files)


def count_records(path: Path) -> int:
    """Records in one output file: JSONL lines, Parquet or CSV rows, entries of a JSON list or of the lists of a
    JSON object (e.g. category -> prompts). Another suffix raises ValueError naming the file."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        from .jsonl import read_jsonl

        return len(read_jsonl(path))
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    if suffix == ".csv":
        import pandas as pd

        return len(pd.read_csv(path))
    if suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            return len(data)
        if isinstance(data, dict):
            return sum(len(v) for v in data.values() if isinstance(v, list))
        raise ValueError(f"{path}: a JSON {type(data).__name__}, not a list or an object of lists; "
                         "count the stage's items in another of its outputs (`OutputFile.items`)")
    raise ValueError(f"{path}: cannot count the records of a {suffix or 'suffix-less'} file; "
                     "give `items` to a .jsonl, .parquet, .csv or .json output (lib/llmcreativity/output_files.py)")


# scifi100 -----------------------------------------------------------------------------------------------------------
SCIFI100_BUILT = OutputFile("scifi100_built.json", "the SciFi-100-format dataset the construction builds",
                            items="prompts built")

# baselines and review: a writing run's folder (`writing.writing_run.run_writing`) -------------------------------------
STORIES = OutputFile("stories.jsonl", "final stories, one `StoryRecord` per line", items="stories")
TRANSCRIPTS = OutputFile("transcripts.jsonl", "every message of every run, one `Message` per line")
HOMOGENIZATION = OutputFile("homogenization.csv", "the homogenization-by-round table of the writing stage")
LARGE_SINGLE = OutputFile("single-{model}", "the bigger Single Agent's writing run for claim A3 (stories and "
                          "transcripts), one folder per model")
LARGE_SINGLE_STORIES = STORIES.within(LARGE_SINGLE)

# writing_pilot: decoding settings screened on Single Agent stories, the chosen one confirmed on every framework -----
PILOT_SCREEN = OutputFile("screen-{decoding}", "a decoding setting's Single Agent writing run on the screen prompts")
PILOT_SCREEN_STORIES = STORIES.within(PILOT_SCREEN)
PILOT_CONFIRM = OutputFile("confirm", "the chosen decoding's writing run of every framework on the confirmation "
                           "prompts")
PILOT_CONFIRM_STORIES = STORIES.within(PILOT_CONFIRM)
PILOT_LARGE = OutputFile("confirm-single-{model}", "the larger Single Agent under the chosen decoding, one folder "
                         "per model")
PILOT_LARGE_STORIES = STORIES.within(PILOT_LARGE)
PILOT_SCREEN_TABLE = OutputFile("screen.csv", "degeneracy, ended share, words and seconds per decoding setting")
PILOT_CONFIRM_TABLE = OutputFile("confirm.csv", "degeneracy per framework and writer under the chosen decoding")
PILOT_CHOICE = OutputFile("decoding_choice.json", "the decoding setting the screen chose, with its rule and shares")

# corpus: the exported store (`corpus.store.export_store`) and the tables computed from it -----------------------
CORPUS_CHUNKS = OutputFile("chunks.parquet", "the corpus chunk table, one row per chunk", items="corpus chunks")
CORPUS_EMBEDDINGS = OutputFile("embeddings.npy", "the chunks' embeddings, float32 rows aligned with the chunk table")
CORPUS_META = OutputFile("meta.json", "the corpus store's key, embedder and parameters, written last")
UNIGRAMS = OutputFile("unigram_{tokenizer}.parquet", "the corpus unigram counts of one tokenizer")
HANNA_METRICS = OutputFile("hanna_story_metrics.parquet", "novelty metrics of the HANNA human and LLM stories")
HANNA_SURPRISAL = OutputFile("hanna_story_surprisal.parquet", "surprisal of the HANNA stories")
CORPUS_STORE_FOLDER = "corpus-store"
"""Not a stage's file: the folder of built corpus stores beside the stages' folders (`corpus.store.store_root`),
which the corpus stage resumes from and a run against a record clears (`pipeline.stages.Stage.caches`)."""

# judge_lab ----------------------------------------------------------------------------------------------------------
LAB_SPLIT = OutputFile("{job}_split.json", "a judging job's development / test split, with its hash")
LAB_DEVELOPMENT = OutputFile("{job}_development.csv", "a judging job's protocols compared on its development split")
LAB_CONFIRMATION = OutputFile("{job}_confirmation.json", "a judging job's chosen judge scored on its test split")
LAB_CHOICE = OutputFile("{job}.choice.json", "the run's proposed choice of a judging job's judge")
LAB_HEADS = OutputFile("{job}.{role}.head.json", "a fitted head of a proposed choice")

# entailment_validation ----------------------------------------------------------------------------------------------
EMBEDDING_SWEEP = OutputFile("embedding_sweep.csv", "agreement of the embedding judge with the coders per threshold")
LLM_JUDGES = OutputFile("llm_judges.csv", "agreement of the LLM entailment judges with the coders")
B7_SETS = OutputFile("b7_sets.parquet", "claim B7's idea sets, one row per set: the coders' diversity, SE, each "
                     "baseline's measure (`entropy.diversity_agreement.set_diversity`)")

# semantic_entropy ---------------------------------------------------------------------------------------------------
CHAIN_RECORDS = OutputFile("chains.jsonl", "every sampled chain, one JSON record per line (resumable)",
                           items="chains")
STEPS = OutputFile("steps.parquet", "one row per chain step with its SE and diversity measures")
CHAIN_TABLE = OutputFile("chains.parquet", "one row per chain: mean SE, problem and the chosen steps")
DRAFTS = OutputFile("drafts.parquet", "SE across writers of first drafts and final versions")
NOVELTY = OutputFile("novelty.parquet", "claim B8's chains, one row per chain: solution-level SE and the novelty "
                     "judge's rating (`judges.divergent.novelty_scores`)")
SE_WEIGHTS = OutputFile("weight_diagnostic.csv", "one row per step: the effective number of samples and the top "
                        "sample's share of each probability-weighted SE's weights (`entropy.weight_concentration`; "
                        "exploratory, listed by no record made before it)")
SE_EXPLORATORY = OutputFile("exploratory_verdicts.csv", "B1-B4 and B8 decided under every SE statistic, the "
                            "registered one first (`entropy.exploratory_verdicts`; exploratory, never recorded as "
                            "claims, listed by no record made before it)")
COHERENCE = OutputFile("coherence.csv", "every sampled candidate with its coherence under the text rule and the "
                       "log-probability rule (`entropy.coherence`; listed by no record made before it)")
SE_COHERENT = OutputFile("se_coherent.csv", "one row per step: every SE statistic over all its candidates and without "
                         "the incoherent ones (`entropy.coherence`; exploratory, listed by no record made before it)")

# judge_validation ---------------------------------------------------------------------------------------------------
JUDGE_RUNS = OutputFile("runs", "one resumable JSONL file per judge run", items="judgements")

# evaluation ---------------------------------------------------------------------------------------------------------
RUBRIC_SCORES = OutputFile("rubric_scores.jsonl", "rubric-judge scores of the frameworks' stories, both modes "
                           "(resumable)", items="rubric gradings")
RUBRIC_HANNA = OutputFile("rubric_hanna.jsonl", "rubric-judge scores of the HANNA human stories (resumable)",
                          items="rubric gradings")
RESULTS_TABLE = OutputFile("results_table.csv", "the paper's results table, frameworks by measures")
STORY_SCORES = OutputFile("story_scores.parquet", "every story with its judge and novelty scores")
