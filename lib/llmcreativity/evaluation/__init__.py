"""Story evaluation: per-story scores (rubric judge + novelty metrics), framework summaries, paired statistics
(the claim verdicts are in `llmcreativity.verdicts`)."""

from .comparison import paired_comparisons, prompt_means
from .scores import (
    JUDGE_COLUMNS,
    KL_MODES,
    NOVELTY_COLUMNS,
    judge_table,
    kl_column,
    load_story_table,
    mode_comparison,
    novelty_table,
)
from .summary import framework_summary, paper_table, reference_table

__all__ = ["JUDGE_COLUMNS", "KL_MODES", "NOVELTY_COLUMNS", "kl_column", "framework_summary", "judge_table",
           "load_story_table", "mode_comparison", "novelty_table", "paired_comparisons", "paper_table", "prompt_means",
           "reference_table"]
