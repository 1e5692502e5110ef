"""The settings a judge's name states, one frozen record per judge family, and the name derived from them.

A judge's name is its identity in every output: its run file (`runs/<name>.jsonl`), the `judge` column of the
judgement table, its agreement record (`judged_with`). It is derived here, never parsed back: code that needs a
judge's settings builds them and compares the derived names (`validation.validation_arms`).

>>> PanelSettings(views="full", rounds=3, k=2, stop_confidence=0.8, max_tokens=128).name
'retrieval-full(R=3,k=2,T=0.8,L=128)'
>>> ChatEvalSettings(rounds=3, max_tokens=128, criteria_mode="joint", n_criteria=3).name
'chateval(R=3,L=128)[joint]'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class JudgeSettings:
    """What every judge's name states: its family's settings (`stem`) and, with several criteria, how it decides
    them."""

    criteria_mode: str = "joint"
    """"joint" (one decision over all criteria) or "per_criterion" (one each, AND-ed); see `criteria.CriteriaMode`."""
    n_criteria: int = 1
    """How many criteria the judge decides; with one, both modes are one judge and the name leaves the mode out."""

    @property
    def stem(self) -> str:
        """The name before the criteria mode: the family and its settings."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """`stem`, with "[joint]" or "[per_criterion]" appended for several criteria, e.g. "single[joint]"."""
        return self.stem if self.n_criteria == 1 else f"{self.stem}[{self.criteria_mode}]"


@dataclass(frozen=True, kw_only=True)
class SingleCallSettings(JudgeSettings):
    """One call per decision: "single", or "cot" with step-by-step reasoning first (`simple.SingleCallJudge`)."""

    reasoning: bool = False
    """True: the chain-of-thought judge."""

    @property
    def stem(self) -> str:
        return "cot" if self.reasoning else "single"


@dataclass(frozen=True, kw_only=True)
class AnswerProbabilitySettings(JudgeSettings):
    """The verdict read from p(yes) vs p(no) in one scoring pass, "p(yes)" (`simple.AnswerProbabilityJudge`)."""

    @property
    def stem(self) -> str:
        return "p(yes)"


@dataclass(frozen=True, kw_only=True)
class ChatEvalSettings(JudgeSettings):
    """The full-history debate, "chateval(R=<rounds>,L=<max_tokens>)" (`chateval.ChatEvalJudge`)."""

    rounds: int
    """R: discussion rounds (every referee speaks once per round)."""
    max_tokens: int
    """L: token limit of each reply."""

    @property
    def stem(self) -> str:
        return f"chateval(R={self.rounds},L={self.max_tokens})"


@dataclass(frozen=True, kw_only=True)
class PanelSettings(JudgeSettings):
    """The retrieval panel, "retrieval-<views>(R=<rounds>,k=<k>,T=<stop_confidence>,L=<max_tokens>)"
    (`retrieval_panel.RetrievalPanelJudge`)."""

    views: str
    """What each agent reads: "full" (the paper's) or "partitioned" (the ablation)."""
    rounds: int
    """R: most discussion rounds."""
    k: int
    """Findings retrieved for each turn."""
    stop_confidence: float
    """T: stop when a round's mean confidence reaches it (T > 1 never stops early); written with `:g`."""
    max_tokens: int
    """L: token limit of each reply."""

    @property
    def stem(self) -> str:
        return f"retrieval-{self.views}(R={self.rounds},k={self.k},T={self.stop_confidence:g},L={self.max_tokens})"

    @property
    def stops_early(self) -> bool:
        """Whether a discussion can stop before its last round (T <= 1)."""
        return self.stop_confidence <= 1


def judged_with(name: str, model: str) -> str:
    """The name a judge's agreement with human labels is recorded under: its name and its model's spec,
    e.g. "cot (llama.cpp:qwen2.5-coder-0.5b)"."""
    return f"{name} ({model})"


def on_base_model(name: str, model: str) -> str:
    """The label of a judge run on another base model than the chapter's (B10's weaker one): its name and that
    model's spec in brackets, e.g. "retrieval-full(R=3,k=2,T=0.8,L=128) [llama.cpp:smollm2-135m]"."""
    return f"{name} [{model}]"
