"""Single-agent baselines: one call per criterion, with or without step-by-step reasoning first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..llm.config import GenerateConfig
from .parsing import FORMAT, ask_verdict
from .records import AgentVerdict, Criterion, CriterionVerdict, JudgeItem, Judgement, combine

SYSTEM = "You are a careful judge of proposed solutions."
"""System message of both single-agent judges."""


@dataclass(frozen=True, kw_only=True)
class SingleCallJudge:
    """Asks once per criterion for the verdict; with `reasoning`, asks to think step by step first (chain of thought)."""

    lm: Any
    """Judge model."""
    criteria: tuple[Criterion, ...]
    """Criteria decided one after another; the item's verdict is their AND."""
    reasoning: bool = False
    """True: chain-of-thought judge (reason in a few sentences, then decide)."""
    max_tokens: int = 32
    """Token limit of the reply (give the chain-of-thought judge more, e.g. 160)."""
    max_retries: int = 1
    """Follow-ups after a reply without verdict or confidence."""
    forced_choice: bool = True
    """When no reply can be parsed, read the verdict from p(yes) vs p(no) (see parsing.ask_verdict)."""
    label: str = ""
    """Name override."""
    config: GenerateConfig = field(init=False)
    """Greedy decoding with `max_tokens` (derived)."""

    def __post_init__(self) -> None:
        if not self.criteria:
            raise ValueError("criteria is empty: pass at least one Criterion")
        object.__setattr__(self, "config", GenerateConfig(temperature=0.0, max_tokens=self.max_tokens))

    @property
    def name(self) -> str:
        """"cot" or "single"."""
        return self.label or ("cot" if self.reasoning else "single")

    def judge(self, item: JudgeItem) -> Judgement:
        """One call (plus retries) per criterion."""
        decisions, calls = [], []
        how = ("Think step by step in 2 to 4 short points, then answer. Reply in exactly this format:\n"
               f"- <step>\n- <step>\n{FORMAT}" if self.reasoning
               else f"Answer without explanation. Reply in exactly this format:\n{FORMAT}")
        for criterion in self.criteria:
            user = (f"TASK:\n{item.problem}\n\nPROPOSED SOLUTION:\n{item.solution}\n\n"
                    f"CRITERION '{criterion.name}': {criterion.definition}\n\nIs the solution {criterion.name}? {how}")
            ans = ask_verdict(self.lm, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], self.config,
                              max_retries=self.max_retries, forced_choice=self.forced_choice, criterion=criterion.name, agent=self.name, round=0, purpose="judge")
            calls += ans.calls
            said = [AgentVerdict(self.name, 0, ans.parsed.verdict, ans.parsed.confidence)]
            decisions.append(CriterionVerdict(criterion.name, ans.parsed.verdict, ans.parsed.confidence, self.name, 0, False,
                                              ans.failures, said))
        return Judgement(item.item_id, self.name, combine(d.verdict for d in decisions), decisions, calls)
