"""Story evaluation: per-story scores (rubric judge + novelty metrics), framework summaries, paired statistics, claim
verdicts."""

from .comparison import paired_comparisons, prompt_means
from .scores import JUDGE_COLUMNS, NOVELTY_COLUMNS, judge_table, load_story_table, mode_comparison, novelty_table
from .summary import framework_summary, paper_table
from .verdicts import Verdict, claim_verdict

__all__ = ["JUDGE_COLUMNS", "NOVELTY_COLUMNS", "Verdict", "claim_verdict", "framework_summary", "judge_table",
           "load_story_table", "mode_comparison", "novelty_table", "paired_comparisons", "paper_table", "prompt_means"]
