"""Every stage output file, one function each: where the stage writes it and how a later stage reads it.

Paths are built here and nowhere else, under `paths.stage_dir(stage)`, so they follow the run's
profile (a smoke run writes under `results/smoke/`) and no notebook builds a path by hand.
`*_file()` / `*_dir()` functions give the location (the writing stage creates the folder);
the other functions read the output back and raise naming the stage to run when it is missing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .paths import results_dir, stage_dir

WRITING_STAGES = ("baselines", "review")
"""Stages that write stories and transcripts with `writing.run_writing`."""
HOMOGENIZATION_FILE = "homogenization.csv"
"""File name of a writing stage's homogenization-by-round table."""


def _existing(stage: str, name: str) -> Path:
    """`results_dir()/stage/name`, or FileNotFoundError naming the stage that writes it."""
    path = results_dir() / stage / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run the {stage!r} stage first "
                                f"(llmcreativity run --stage {stage})")
    return path


def _writing_stage(stage: str) -> str:
    if stage not in WRITING_STAGES:
        raise ValueError(f"stage={stage!r} writes no stories: choose one of {WRITING_STAGES}")
    return stage


# scifi100 -----------------------------------------------------------------------------------------------------------

def scifi100_file() -> Path:
    """The SciFi-100-format dataset the construction stage builds (`scifi100/scifi100_built.json`)."""
    return stage_dir("scifi100") / "scifi100_built.json"


# baselines and review -----------------------------------------------------------------------------------------------

def writing_dir(stage: str) -> Path:
    """The folder `run_writing` fills for a writing stage ("baselines" or "review")."""
    return stage_dir(_writing_stage(stage))


def stories(stage: str) -> pd.DataFrame:
    """The final stories of a writing stage, one row each (`evaluation.load_story_table`: story_id, system, ...)."""
    from .evaluation.scores import load_story_table
    from .writing.runner import STORIES_FILE

    return load_story_table(_existing(_writing_stage(stage), STORIES_FILE))


def transcripts(stage: str) -> dict:
    """Every transcript of a writing stage by (framework, prompt_id); {} when the stage has not run."""
    from .writing.records import read_transcripts
    from .writing.runner import TRANSCRIPTS_FILE

    path = results_dir() / _writing_stage(stage) / TRANSCRIPTS_FILE
    return read_transcripts(path) if path.exists() else {}


def homogenization_file(stage: str) -> Path:
    """The homogenization-by-round table a writing stage saves (`<stage>/homogenization.csv`)."""
    return writing_dir(stage) / HOMOGENIZATION_FILE


def homogenization(stage: str) -> pd.DataFrame | None:
    """A writing stage's homogenization table, or None when that stage has not run."""
    path = results_dir() / _writing_stage(stage) / HOMOGENIZATION_FILE
    return pd.read_csv(path) if path.exists() else None


def large_single_dir(model: str) -> Path:
    """Where the baselines stage writes the bigger Single Agent's run for claim A3 (`baselines/single-<model>`;
    an endpoint spec `URL#MODEL` by its `llm.roles.role_label`)."""
    from .llm.roles import role_label

    return stage_dir("baselines") / f"single-{role_label(model)}"


def large_single_system(model: str) -> str:
    """The name of the bigger Single Agent in result tables, e.g. "single (qwen2.5-coder-1.5b)"."""
    return f"single ({model})"


def large_single_models() -> list[str]:
    """The models (registry names) for which the baselines stage wrote a bigger Single Agent run, sorted."""
    from .writing.runner import STORIES_FILE

    root = results_dir() / "baselines"
    return sorted(p.parent.name.removeprefix("single-") for p in root.glob(f"single-*/{STORIES_FILE}"))


def large_single_stories() -> pd.DataFrame:
    """Every bigger Single Agent's stories written by the baselines stage, system `large_single_system(model)`.

    Loaded under their own system, their `story_id`s ("single (<model>)::<model identity>::<message id>") stay
    apart from the baselines' own Single Agent even when both ran one model (as a smoke run does).
    """
    from .evaluation.scores import load_story_table
    from .writing.runner import STORIES_FILE

    models = large_single_models()
    if not models:
        raise FileNotFoundError(f"no bigger Single Agent run in {results_dir() / 'baselines'}: run the 'baselines' "
                                "stage first (llmcreativity run --stage baselines)")
    return pd.concat([load_story_table(large_single_dir(m) / STORIES_FILE, system=large_single_system(m))
                      for m in models], ignore_index=True)


# corpus -------------------------------------------------------------------------------------------------------------

def corpus_dir() -> Path:
    """The corpus stage's folder: the exported store (chunks, embeddings, meta) and the unigram tables."""
    return stage_dir("corpus")


def corpus_store():
    """The corpus store the corpus stage exported (`corpus.store.CorpusStore`)."""
    from .corpus.store import load_exported

    return load_exported(results_dir() / "corpus")


def unigram_file(tokenizer: str) -> Path:
    """The corpus unigram counts of one tokenizer (`corpus/unigram_<tokenizer>.parquet`)."""
    return corpus_dir() / f"unigram_{tokenizer}.parquet"


def unigrams(tokenizer: str) -> dict[str, int]:
    """Corpus unigram counts of `tokenizer`, as written by the corpus stage."""
    from .evaluation.scores import load_unigrams

    return load_unigrams(results_dir() / "corpus", tokenizer)


def hanna_metrics_file() -> Path:
    """Novelty metrics of the HANNA human and LLM stories (`corpus/hanna_story_metrics.parquet`)."""
    return corpus_dir() / "hanna_story_metrics.parquet"


def hanna_surprisal_file() -> Path:
    """Surprisal of the HANNA stories scored in the corpus stage (`corpus/hanna_story_surprisal.parquet`)."""
    return corpus_dir() / "hanna_story_surprisal.parquet"


# entailment_validation ----------------------------------------------------------------------------------------------

def embedding_sweep_file() -> Path:
    """Agreement of the embedding judge with the coders per threshold (`entailment_validation/embedding_sweep.csv`)."""
    return stage_dir("entailment_validation") / "embedding_sweep.csv"


def llm_judges_file() -> Path:
    """Agreement of the LLM entailment judges with the coders (`entailment_validation/llm_judges.csv`)."""
    return stage_dir("entailment_validation") / "llm_judges.csv"


# semantic_entropy ---------------------------------------------------------------------------------------------------

def chain_records_file() -> Path:
    """Every sampled chain, one JSON record per line (`semantic_entropy/chains.jsonl`, resumable)."""
    return stage_dir("semantic_entropy") / "chains.jsonl"


def steps_file() -> Path:
    """One row per chain step with its SE and diversity measures (`semantic_entropy/steps.parquet`)."""
    return stage_dir("semantic_entropy") / "steps.parquet"


def chain_table_file() -> Path:
    """One row per chain: mean SE, problem and the chosen steps (`semantic_entropy/chains.parquet`)."""
    return stage_dir("semantic_entropy") / "chains.parquet"


def chain_table() -> pd.DataFrame | None:
    """The semantic-entropy stage's per-chain table (see `entropy.tables.chain_table`), or None before it has run."""
    path = results_dir() / "semantic_entropy" / "chains.parquet"
    return pd.read_parquet(path) if path.exists() else None


def drafts_file() -> Path:
    """SE across writers of first drafts and final versions (`semantic_entropy/drafts.parquet`)."""
    return stage_dir("semantic_entropy") / "drafts.parquet"


# judge_validation ---------------------------------------------------------------------------------------------------

def judge_runs_dir() -> Path:
    """One resumable JSONL file per judge run (`judge_validation/runs/<judge>.jsonl`)."""
    path = stage_dir("judge_validation") / "runs"
    path.mkdir(exist_ok=True)
    return path


# evaluation ---------------------------------------------------------------------------------------------------------

def evaluation_dir() -> Path:
    """The evaluation stage's folder: rubric scores, the results table and per-story scores."""
    return stage_dir("evaluation")


def rubric_scores_file() -> Path:
    """Rubric-judge scores of the frameworks' stories, both modes (`evaluation/rubric_scores.jsonl`, resumable)."""
    return evaluation_dir() / "rubric_scores.jsonl"


def rubric_hanna_file() -> Path:
    """Rubric-judge scores of the HANNA human stories (`evaluation/rubric_hanna.jsonl`, resumable)."""
    return evaluation_dir() / "rubric_hanna.jsonl"


def results_table_file() -> Path:
    """The paper's results table, frameworks by measures (`evaluation/results_table.csv`)."""
    return evaluation_dir() / "results_table.csv"


def story_scores_file() -> Path:
    """Every story with its judge and novelty scores (`evaluation/story_scores.parquet`)."""
    return evaluation_dir() / "story_scores.parquet"
