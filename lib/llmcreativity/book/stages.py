"""The stage notebooks, in dependency order, with their parameter profiles.

Each stage's notebook lives in `notebooks/<notebook>.md` (MyST, paired by jupytext) and is
executed by papermill into `results/executed/<name>.ipynb`. Profiles: `default` runs on the
embedded models within this machine's time budget; `paper` uses the papers' sizes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
        profiles={"default": {}, "paper": {"model": "qwen2.5-coder-1.5b", "n_samples": 10}},
    ),
    Stage(
        name="scifi100",
        notebook="notebooks/scifi100_construction.md",
        title="SciFi-100: the prompts and how to build them",
        depends=("backends",),
        profiles={"default": {}, "paper": {"n_dimensions": 10, "n_candidates": 20, "keep": 10}},
    ),
    Stage(
        name="baselines",
        notebook="notebooks/baselines.md",
        title="Baselines: Single Agent, Teacher, Debate, Discussion",
        depends=("backends",),
        profiles={"default": {}, "paper": {"n_categories": None, "per_category": None, "rounds": 3,
                                           "story_max_tokens": 900, "feedback_max_tokens": 400, "max_story_words": 600,
                                           "large_prompts": None}},
    ),
    Stage(
        name="review",
        notebook="notebooks/review.md",
        title="LLM Review: blind peer review",
        depends=("backends", "baselines"),
        profiles={"default": {}, "paper": {"n_categories": None, "per_category": None,
                                           "story_max_tokens": 900, "feedback_max_tokens": 400, "max_story_words": 600}},
    ),
    Stage(
        name="corpus",
        notebook="notebooks/corpus.md",
        title="The reference corpus and the rule-based novelty metrics",
        depends=("backends",),
        profiles={"default": {}, "paper": {"max_books": 0, "embedder": "all-mpnet-base-v2", "n_stories": 96,
                                           "n_surprisal": 96, "projection_sample": 15000}},
    ),
    Stage(
        name="entailment_validation",
        notebook="notebooks/entailment_validation.md",
        title="Semantic clusters against human 'same idea' judgements",
        depends=("backends",),
        profiles={"default": {}, "paper": {"embedding_sample": 1200, "llm_models": ["qwen2.5-coder-0.5b",
                                           "qwen2.5-coder-1.5b"], "llm_sample": 60, "llm_repeats": 3}},
    ),
    Stage(
        name="semantic_entropy",
        notebook="notebooks/semantic_entropy.md",
        title="Semantic entropy by temperature and scale",
        depends=("backends",),
        profiles={"default": {}, "paper": {"models": ["smollm2-135m", "gemma3-270m", "qwen2.5-coder-0.5b",
                                                      "qwen2.5-coder-1.5b"],
                                           "temperatures": [0.3, 0.6, 0.9, 1.2, 1.5], "n_problems": 20,
                                           "n_scifi": 10, "n_samples": 10, "step_cap": 8, "max_tokens": 64,
                                           "judge": "llm", "llm_check_steps": 0}},
    ),
    Stage(
        name="judge_validation",
        notebook="notebooks/judge_validation.md",
        title="Convergent creativity: validating the judges",
        depends=("backends",),  # reads semantic-entropy output too when that stage has run
        profiles={"default": {}, "paper": {"n_items": 300, "criteria": "paper", "rounds": 3, "k": 5,
                                           "k_sweep": [1, 3, 5, 8], "t_sweep": [0.6, 0.7, 0.8, 0.9, 1.01],
                                           "max_tokens": 256, "cot_max_tokens": 400}},
    ),
]
STAGES.append(
    Stage(
        name="evaluation",
        notebook="notebooks/evaluation.md",
        title="Evaluating the stories: rubric judge, novelty metrics and the paper's claims",
        depends=("corpus", "baselines", "review"),
        profiles={"default": {}, "paper": {"judge_prompts": None, "stories_per_run": None, "sampled_stories": None,
                                           "hanna_n": 96, "surprisal_model": "qwen2.5-coder-1.5b"}},
    )
)
