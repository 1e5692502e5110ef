"""Convergent-creativity judges: the retrieval-based multi-agent panel and its baselines.

Every judge has a `name` and `judge(item) -> Judgement`; `run_judge` runs one over many items,
resumably, into a JSONL file. Judgements carry every prompt, what was retrieved (with scores)
and the token use of every call.
"""

from .chateval import ChatEvalJudge
from .criteria import (
    CRITERIA_MODES,
    CRITERIA_SETS,
    MACGYVER_CRITERIA,
    MACGYVER_VALID,
    PAPER_CRITERIA,
    STORY_CRITERIA,
    criteria_set,
    joint_criterion,
)
from .judgement import (
    AgentVerdict,
    Criterion,
    CriterionVerdict,
    JudgeCall,
    JudgeItem,
    Judgement,
    Retrieved,
)
from .judging_run import Judge, read_judgements, run_judge
from .performance import (
    accuracy_difference,
    judgement_table,
    summarize_judges,
    token_saving,
    validity_score,
)
from .reply_parsing import ParsedVerdict, ask_verdict, parse_verdict
from .retrieval_panel import RetrievalPanelJudge
from .settings import (
    AnswerProbabilitySettings,
    ChatEvalSettings,
    JudgeSettings,
    PanelSettings,
    SingleCallSettings,
)
from .simple import AnswerProbabilityJudge, SingleCallJudge
from .vector_store import Fragment, Hit, NumpyVectorStore, VectorStore

__all__ = [
    "CRITERIA_MODES", "CRITERIA_SETS", "PAPER_CRITERIA", "criteria_set", "joint_criterion",
    "AgentVerdict", "AnswerProbabilityJudge", "JudgeCall", "accuracy_difference", "validity_score",
    "ChatEvalJudge", "Criterion", "CriterionVerdict", "Fragment", "Hit", "JudgeItem",
    "Judge", "Judgement", "MACGYVER_CRITERIA", "MACGYVER_VALID", "NumpyVectorStore", "ParsedVerdict", "Retrieved",
    "RetrievalPanelJudge", "STORY_CRITERIA", "SingleCallJudge", "VectorStore", "ask_verdict", "judgement_table",
    "parse_verdict", "read_judgements", "run_judge", "summarize_judges", "token_saving",
    "AnswerProbabilitySettings", "ChatEvalSettings", "JudgeSettings", "PanelSettings", "SingleCallSettings",
]
