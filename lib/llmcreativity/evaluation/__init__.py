"""Story evaluation: per-story scores (rubric judge + novelty metrics), framework summaries (the paired statistics
are `llmcreativity.stats.paired`, the claim verdicts' rules `llmcreativity.claims.verdicts`)."""

from .framework_summary import framework_summary, paper_table, reference_table
from .rubric_estimators import grade_both, score_tables
from .scoring_table import (
    JUDGE_COLUMNS,
    KL_MODES,
    NOVELTY_COLUMNS,
    judge_table,
    kl_column,
    load_story_table,
    mode_comparison,
    novelty_table,
)

__all__ = ["JUDGE_COLUMNS", "KL_MODES", "NOVELTY_COLUMNS", "kl_column", "framework_summary", "grade_both",
           "judge_table", "load_story_table", "mode_comparison", "novelty_table", "paper_table", "reference_table",
           "score_tables"]
