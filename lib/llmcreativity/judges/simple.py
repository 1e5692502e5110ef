"""Single-agent baselines: one call per criterion, with or without step-by-step reasoning first."""

from __future__ import annotations

from dataclasses import dataclass

from .base import CriterionJudge
from .parsing import FORMAT, ask_verdict
from .records import AgentVerdict, CallLog, Criterion, CriterionVerdict, JudgeItem

SYSTEM = "You are a careful judge of proposed solutions."
"""System message of both single-agent judges."""


@dataclass(frozen=True, kw_only=True)
class SingleCallJudge(CriterionJudge):
    """Asks once per criterion for the verdict; with `reasoning`, asks to think step by step first (chain of thought)."""

    reasoning: bool = False
    """True: chain-of-thought judge (reason in a few sentences, then decide)."""
    max_tokens: int = 32
    """Token limit of the reply (give the chain-of-thought judge more, e.g. 160)."""

    @property
    def name(self) -> str:
        """"cot" or "single"."""
        return self.label or ("cot" if self.reasoning else "single")

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[CallLog]]:
        how = ("Think step by step in 2 to 4 short points, then answer. Reply in exactly this format:\n"
               f"- <step>\n- <step>\n{FORMAT}" if self.reasoning
               else f"Answer without explanation. Reply in exactly this format:\n{FORMAT}")
        user = (f"TASK:\n{item.problem}\n\nPROPOSED SOLUTION:\n{item.solution}\n\n"
                f"CRITERION '{criterion.name}': {criterion.definition}\n\nIs the solution {criterion.name}? {how}")
        ans = ask_verdict(self.lm, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], self.config,
                          max_retries=self.max_retries, forced_choice=self.forced_choice, criterion=criterion.name, agent=self.name,
                          round=0, purpose="judge")
        said = [AgentVerdict(self.name, 0, ans.parsed.verdict, ans.parsed.confidence)]
        return CriterionVerdict(criterion.name, ans.parsed.verdict, ans.parsed.confidence, self.name, 0, False, ans.failures, said), ans.calls
