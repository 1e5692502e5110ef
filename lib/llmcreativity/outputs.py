"""Every stage output file, one function each: where the stage writes it and how a later stage reads it.

Each file is declared once in `output_files` and listed by the stage that writes it (`pipeline.stages.Stage.outputs`);
the functions here find that stage and build the path under `paths.stage_dir(stage)`, so they follow the run's
profile (a smoke run writes under `results/smoke/`) and no notebook builds a path by hand.
`*_file()` / `*_dir()` functions give the location (the writing stage creates the folder); `read_*` functions read
the output back and raise naming the stage to run when it is missing (or return None / {} where they say so). What a
file holds is said once, in its `output_files` declaration.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import output_files as out
from .output_files import OutputFile
from .paths import results_dir, stage_dir
from .pipeline.stages import STAGES, writer_of
from .writing.frameworks import large_single_system

WRITING_STAGES = tuple(s.name for s in STAGES if out.STORIES in s.outputs)
"""Stages that write stories and transcripts with `writing.run_writing` ("baselines", "review")."""


def output_file(output: OutputFile, stage: str | None = None, **fields: str) -> Path:
    """Where `output` goes in the folder (created) of the stage that lists it; `stage` names the writer of an output
    two stages write, `fields` fill the placeholders of a family of files (`OutputFile.relative`)."""
    return stage_dir(writer_of(output, stage).name) / output.relative(**fields)


def _found(output: OutputFile, stage: str | None = None, **fields: str) -> Path | None:
    """Where `output` is when its stage has written it, else None (no folder is created)."""
    path = results_dir() / writer_of(output, stage).name / output.relative(**fields)
    return path if path.exists() else None


def _existing(output: OutputFile, stage: str | None = None, **fields: str) -> Path:
    """Where `output` is, or FileNotFoundError naming the stage that writes it."""
    name = writer_of(output, stage).name
    path = _found(output, stage, **fields)
    if path is None:
        raise FileNotFoundError(f"{results_dir() / name / output.relative(**fields)} is missing: run the {name!r} "
                                f"stage first (llmcreativity run --stage {name})")
    return path


def _writing_stage(stage: str) -> str:
    if stage not in WRITING_STAGES:
        raise ValueError(f"stage={stage!r} writes no stories: choose one of {WRITING_STAGES}")
    return stage


# writing_pilot ------------------------------------------------------------------------------------------------------

def pilot_screen_dir(decoding: str) -> Path:
    """Where `output_files.PILOT_SCREEN` goes."""
    return output_file(out.PILOT_SCREEN, decoding=decoding)


def pilot_confirm_dir() -> Path:
    """Where `output_files.PILOT_CONFIRM` goes."""
    return output_file(out.PILOT_CONFIRM)


def pilot_large_dir(model: str) -> Path:
    """Where `output_files.PILOT_LARGE` goes."""
    from .llm.roles import role_label

    return output_file(out.PILOT_LARGE, model=role_label(model))


def pilot_screen_table_file() -> Path:
    """Where `output_files.PILOT_SCREEN_TABLE` goes."""
    return output_file(out.PILOT_SCREEN_TABLE)


def pilot_confirm_table_file() -> Path:
    """Where `output_files.PILOT_CONFIRM_TABLE` goes."""
    return output_file(out.PILOT_CONFIRM_TABLE)


def decoding_choice_file() -> Path:
    """Where `output_files.PILOT_CHOICE` goes."""
    return output_file(out.PILOT_CHOICE)


# scifi100 -----------------------------------------------------------------------------------------------------------

def scifi100_file() -> Path:
    """The SciFi-100-format dataset the construction stage builds (`output_files.SCIFI100_BUILT`)."""
    return output_file(out.SCIFI100_BUILT)


# baselines and review -----------------------------------------------------------------------------------------------

def writing_dir(stage: str) -> Path:
    """The folder `run_writing` fills for a writing stage ("baselines" or "review")."""
    return stage_dir(_writing_stage(stage))


def read_stories(stage: str) -> pd.DataFrame:
    """The final stories of a writing stage, one row each (`evaluation.load_story_table`: story_id, system, ...)."""
    from .evaluation.scoring_table import load_story_table

    return load_story_table(_existing(out.STORIES, _writing_stage(stage)))


def read_stage_transcripts(stage: str) -> dict:
    """Every transcript of a writing stage by (framework, prompt_id) (`writing.read_transcripts` of its
    transcripts file); {} when the stage has not run."""
    from .writing.story_record import read_transcripts

    path = _found(out.TRANSCRIPTS, _writing_stage(stage))
    return read_transcripts(path) if path is not None else {}


def homogenization_file(stage: str) -> Path:
    """Where `output_files.HOMOGENIZATION` goes."""
    return output_file(out.HOMOGENIZATION, _writing_stage(stage))


def read_homogenization(stage: str) -> pd.DataFrame | None:
    """A writing stage's homogenization table, or None when that stage has not run."""
    path = _found(out.HOMOGENIZATION, _writing_stage(stage))
    return pd.read_csv(path) if path is not None else None


def large_single_dir(model: str) -> Path:
    """Where the baselines stage writes the bigger Single Agent's run for claim A3 (`output_files.LARGE_SINGLE`;
    an endpoint spec `URL#MODEL` by its `llm.roles.role_label`)."""
    from .llm.roles import role_label

    return output_file(out.LARGE_SINGLE, model=role_label(model))


def large_single_models() -> list[str]:
    """The models (registry names) for which the baselines stage wrote a bigger Single Agent run, sorted."""
    root = results_dir() / writer_of(out.LARGE_SINGLE_STORIES).name
    prefix, _, _ = out.LARGE_SINGLE.path.partition("{")
    return sorted(p.relative_to(root).parts[0].removeprefix(prefix)
                  for p in root.glob(out.LARGE_SINGLE_STORIES.pattern))


def read_large_single_stories() -> pd.DataFrame:
    """Every bigger Single Agent's stories written by the baselines stage, system `writing.large_single_system(model)`.

    Loaded under their own system, their `story_id`s ("single (<model>)::<model identity>::<message id>") stay
    apart from the baselines' own Single Agent even when both ran one model (as a smoke run does).
    """
    from .evaluation.scoring_table import load_story_table

    models = large_single_models()
    if not models:
        stage = writer_of(out.LARGE_SINGLE_STORIES).name
        raise FileNotFoundError(f"no bigger Single Agent run in {results_dir() / stage}: run the {stage!r} "
                                f"stage first (llmcreativity run --stage {stage})")
    return pd.concat([load_story_table(_existing(out.LARGE_SINGLE_STORIES, model=m), system=large_single_system(m))
                      for m in models], ignore_index=True)


# corpus -------------------------------------------------------------------------------------------------------------

def corpus_dir() -> Path:
    """The corpus stage's folder: the exported store (chunks, embeddings, meta) and the unigram tables."""
    return stage_dir(writer_of(out.CORPUS_CHUNKS).name)


def read_corpus_store():
    """The corpus store the corpus stage exported (`corpus.store.CorpusStore`)."""
    from .corpus.store import load_exported

    return load_exported(results_dir() / writer_of(out.CORPUS_CHUNKS).name)


def unigram_file(tokenizer: str) -> Path:
    """Where `output_files.UNIGRAMS` goes."""
    return output_file(out.UNIGRAMS, tokenizer=tokenizer)


def read_unigrams(tokenizer: str) -> dict[str, int]:
    """Corpus unigram counts of `tokenizer`, as written by the corpus stage."""
    from .evaluation.scoring_table import load_unigrams

    return load_unigrams(_existing(out.UNIGRAMS, tokenizer=tokenizer))


def hanna_metrics_file() -> Path:
    """Where `output_files.HANNA_METRICS` goes."""
    return output_file(out.HANNA_METRICS)


def hanna_surprisal_file() -> Path:
    """Where `output_files.HANNA_SURPRISAL` goes."""
    return output_file(out.HANNA_SURPRISAL)


# judge_lab ----------------------------------------------------------------------------------------------------------

def judge_lab_dir() -> Path:
    """The judge laboratory's folder (created): splits, development tables, proposals and confirmations
    (`output_files.LAB_*`)."""
    return stage_dir(writer_of(out.LAB_DEVELOPMENT).name)


def lab_development_file(job: str) -> Path:
    """Where `output_files.LAB_DEVELOPMENT` goes."""
    return output_file(out.LAB_DEVELOPMENT, job=job)


# entailment_validation ----------------------------------------------------------------------------------------------

def embedding_sweep_file() -> Path:
    """Where `output_files.EMBEDDING_SWEEP` goes."""
    return output_file(out.EMBEDDING_SWEEP)


def llm_judges_file() -> Path:
    """Where `output_files.LLM_JUDGES` goes."""
    return output_file(out.LLM_JUDGES)


def b7_sets_file() -> Path:
    """Where `output_files.B7_SETS` goes."""
    return output_file(out.B7_SETS)


# semantic_entropy ---------------------------------------------------------------------------------------------------

def chain_records_file() -> Path:
    """Where `output_files.CHAIN_RECORDS` goes (resumable)."""
    return output_file(out.CHAIN_RECORDS)


def steps_file() -> Path:
    """Where `output_files.STEPS` goes."""
    return output_file(out.STEPS)


def chain_table_file() -> Path:
    """Where `output_files.CHAIN_TABLE` goes."""
    return output_file(out.CHAIN_TABLE)


def read_chain_table() -> pd.DataFrame | None:
    """The semantic-entropy stage's per-chain table (computed by `entropy.entropy_tables.chain_table`), or None before
    it has run."""
    path = _found(out.CHAIN_TABLE)
    return pd.read_parquet(path) if path is not None else None


def drafts_file() -> Path:
    """Where `output_files.DRAFTS` goes."""
    return output_file(out.DRAFTS)


def novelty_file() -> Path:
    """Where `output_files.NOVELTY` goes."""
    return output_file(out.NOVELTY)


def se_weights_file() -> Path:
    """Where `output_files.SE_WEIGHTS` goes."""
    return output_file(out.SE_WEIGHTS)


def se_exploratory_file() -> Path:
    """Where `output_files.SE_EXPLORATORY` goes."""
    return output_file(out.SE_EXPLORATORY)


def coherence_file() -> Path:
    """Where `output_files.COHERENCE` goes."""
    return output_file(out.COHERENCE)


def se_coherent_file() -> Path:
    """Where `output_files.SE_COHERENT` goes."""
    return output_file(out.SE_COHERENT)


def read_se_coherent() -> pd.DataFrame | None:
    """The semantic-entropy stage's per-step SE without the incoherent candidates (`entropy.coherence.
    coherent_step_table`), or None where the stage has not written it (a record made before it)."""
    path = _found(out.SE_COHERENT)
    return pd.read_csv(path) if path is not None else None


# judge_validation ---------------------------------------------------------------------------------------------------

def judge_runs_dir() -> Path:
    """Where `output_files.JUDGE_RUNS` goes (created)."""
    path = output_file(out.JUDGE_RUNS)
    path.mkdir(exist_ok=True)
    return path


# evaluation ---------------------------------------------------------------------------------------------------------

def rubric_scores_file() -> Path:
    """Where `output_files.RUBRIC_SCORES` goes (resumable)."""
    return output_file(out.RUBRIC_SCORES)


def rubric_hanna_file() -> Path:
    """Where `output_files.RUBRIC_HANNA` goes (resumable)."""
    return output_file(out.RUBRIC_HANNA)


def results_table_file() -> Path:
    """Where `output_files.RESULTS_TABLE` goes."""
    return output_file(out.RESULTS_TABLE)


def story_scores_file() -> Path:
    """Where `output_files.STORY_SCORES` goes."""
    return output_file(out.STORY_SCORES)
