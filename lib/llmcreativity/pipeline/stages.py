"""The stage notebooks, in dependency order, with their parameter profiles.

Each stage's notebook lives in `notebooks/<notebook>.md` (MyST, paired by jupytext) and is
executed by papermill into `results_dir(profile)/executed/<name>.ipynb`. Profiles: `default` runs
on the embedded models within this machine's time budget; `paper` uses the papers' sizes; `smoke`
tests the code path in seconds per stage (the smallest model in every model role, the fewest items)
and writes under `results/smoke/`, apart from the real run (see `paths.results_dir`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SMOKE_MODEL = "smollm2-135m"
"""The smallest registry language model: every model role of the smoke profile uses it."""

RECORDED_SETTINGS = {"dtype": "float32", "device": "cpu"}
"""The run settings of a profile whose calls are recorded and replayed on other machines: float32 on the CPU,
whatever the machine could do faster, so every local model's identity (and so every cache key) is the same on
an AVX2 CPU, a CPU with native bfloat16 and a machine with a GPU."""

RUN_SETTINGS: dict[str, dict[str, str]] = {
    "default": RECORDED_SETTINGS,
    "paper": RECORDED_SETTINGS,
    "smoke": RECORDED_SETTINGS,
}
"""Profile -> its run-wide settings of the local models (`dtype`, `device`), which every stage kernel gets as the
defaults of `get_backend` and `get_embedder`; `-p dtype` / `-p device` override them (on a GPU:
`-p device cuda -p dtype auto`, under other identities). A profile or setting not listed is "auto"."""


@dataclass(frozen=True)
class Stage:
    """One notebook of the pipeline."""

    name: str
    """Short id, also the executed notebook's file name."""
    notebook: str
    """Source notebook path relative to the repo root."""
    title: str
    """Chapter title in the book."""
    depends: tuple[str, ...] = ()
    """Stages whose output files this one reads."""
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Profile name -> parameter overrides (on top of the notebook's own defaults)."""


STAGES: list[Stage] = [
    Stage(
        name="backends",
        notebook="notebooks/backends.md",
        title="Model backends and log-probabilities",
        profiles={
            "default": {},
            "smoke": {"n_samples": 2, "max_tokens": 12},
            "paper": {"writer": "qwen2.5-coder-1.5b", "n_samples": 10},
        },
    ),
    Stage(
        name="scifi100",
        notebook="notebooks/scifi100_construction.md",
        title="SciFi-100: the prompts and how to build them",
        depends=("backends",),
        profiles={
            "default": {},
            "smoke": {"writer": SMOKE_MODEL, "n_dimensions": 1, "n_candidates": 4, "keep": 2, "max_tokens": 128},
            "paper": {"n_dimensions": 10, "n_candidates": 20, "keep": 10},
        },
    ),
    Stage(
        name="baselines",
        notebook="notebooks/baselines.md",
        title="Baselines: Single Agent, Teacher, Debate, Discussion",
        depends=("backends",),
        profiles={
            "default": {},
            "smoke": {"n_categories": 1, "per_category": 1, "feedback_max_tokens": 32, "max_story_words": 40,
                      "large_writer": SMOKE_MODEL},
            "paper": {"n_categories": None, "per_category": None, "rounds": 3, "feedback_max_tokens": 400,
                      "max_story_words": 300, "large_prompts": None},
        },
    ),
    Stage(
        name="review",
        notebook="notebooks/review.md",
        title="LLM Review: blind peer review",
        depends=("backends", "baselines"),
        profiles={
            "default": {},
            "smoke": {"n_categories": 1, "per_category": 1, "feedback_max_tokens": 32, "max_story_words": 40},
            "paper": {"n_categories": None, "per_category": None, "feedback_max_tokens": 400, "max_story_words": 300},
        },
    ),
    Stage(
        name="corpus",
        notebook="notebooks/corpus.md",
        title="The reference corpus and the rule-based novelty metrics",
        depends=("backends",),
        profiles={
            "default": {},
            "smoke": {"max_books": 2, "n_stories": 8, "n_surprisal": 1, "surprisal_words": 40,
                      "projection_sample": 500},
            "paper": {"max_books": 0, "embedder": "all-mpnet-base-v2", "n_stories": 96, "n_surprisal": 96,
                      "projection_sample": 15000},
        },
    ),
    Stage(
        name="entailment_validation",
        notebook="notebooks/entailment_validation.md",
        title="Semantic clusters against human 'same idea' judgements",
        depends=("backends",),
        profiles={
            "default": {},
            "smoke": {"rounds": [1], "embedding_sample": 30, "thresholds": [0.5, 0.6],
                      "entailment_judges": [SMOKE_MODEL], "llm_sample": 4, "llm_thresholds": [0.5], "llm_repeats": 1,
                      "b7_sets": 3, "b7_set_size": 3, "entailment_judge": SMOKE_MODEL},
            "paper": {"embedding_sample": 1200, "entailment_judges": ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"],
                      "llm_sample": 60, "llm_repeats": 3, "b7_sets": 30},
        },
    ),
    Stage(
        name="semantic_entropy",
        notebook="notebooks/semantic_entropy.md",
        title="Semantic entropy by temperature and scale",
        depends=("backends", "baselines", "review"),
        profiles={
            "default": {},
            "smoke": {"se_models": [SMOKE_MODEL], "temperatures": [0.3, 0.9], "n_problems": 1, "n_hypogen": 1,
                      "n_scifi": 0, "n_samples": 4, "step_cap": 1, "max_tokens": 16, "entailment_judge": SMOKE_MODEL,
                      "llm_check_steps": 0, "n_resamples": 200, "novelty_judge": SMOKE_MODEL},
            "paper": {"se_models": ["smollm2-135m", "gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"],
                      "temperatures": [0.3, 0.6, 0.9, 1.2, 1.5], "n_problems": 20, "n_hypogen": 20, "n_scifi": 10,
                      # a cap of 12 lets chains finish: 99 % of MacGyver's "Step k:" solutions have <= 7 steps, max 11
                      "n_samples": 10, "step_cap": 12, "max_tokens": 64, "judge": "llm", "llm_check_steps": 0,
                      "novelty_judge": "qwen2.5-coder-1.5b"},
        },
    ),
    Stage(
        name="judge_validation",
        notebook="notebooks/judge_validation.md",
        title="Convergent creativity: validating the judges",
        depends=("backends", "semantic_entropy"),
        profiles={
            "default": {},
            "smoke": {"n_items": 2, "convergent_judge": SMOKE_MODEL, "rounds": 1, "k_sweep": [2], "t_sweep": [0.8],
                      "max_tokens": 32, "n_resamples": 200},
            "paper": {"n_items": 300, "n_ablation": 0, "criteria": "macgyver", "convergent_judge": "qwen2.5-coder-1.5b",
                      "weak_convergent_judge": "qwen2.5-coder-0.5b", "rounds": 3, "k": 5, "k_sweep": [1, 3, 5, 8],
                      "t_sweep": [0.6, 0.7, 0.8, 0.9, 1.01], "max_tokens": 256, "cot_max_tokens": 400,
                      # B6 and B11 are decided only with the paper's convergent scorer (divergent.PAPER_SCORER)
                      "se_judge": "retrieval"},
        },
    ),
    Stage(
        name="evaluation",
        notebook="notebooks/evaluation.md",
        title="Evaluating the stories: rubric judge, novelty metrics and the paper's claims",
        depends=("corpus", "baselines", "review"),
        profiles={
            "default": {},
            "smoke": {"rubric_judge": SMOKE_MODEL, "hanna_n": 3, "judge_prompts": 1, "stories_per_run": 1,
                      "repeats": 2, "kl_window": 20, "surprisal_words": 10},
            "paper": {"judge_prompts": None, "stories_per_run": None, "hanna_n": 96,
                      "surprisal_scorer": "qwen2.5-coder-1.5b", "a2_kl": "whole"},
        },
    ),
]
