"""What every judge shares: its model, criteria and reply settings, and the loop over criteria."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..llm.backend import Backend
from ..llm.config import GenerateConfig
from .records import CallLog, Criterion, CriterionVerdict, JudgeItem, Judgement, combine


@dataclass(frozen=True, kw_only=True)
class CriterionJudge:
    """Decides each criterion of an item in turn (`_decide`); the item's verdict is v = AND_c v_c."""

    lm: Backend
    """Judge model (a backend of llmcreativity.llm)."""
    criteria: tuple[Criterion, ...]
    """Criteria decided one after another."""
    max_tokens: int = 128
    """Token limit of each reply."""
    max_retries: int = 1
    """Follow-ups after a reply without verdict or confidence."""
    forced_choice: bool = True
    """When no reply can be parsed, read the verdict from p(yes) vs p(no) (see parsing.ask_verdicts)."""
    label: str = ""
    """Name override; the default names the judge and its settings."""
    config: GenerateConfig = field(init=False)
    """Greedy decoding with `max_tokens` (derived)."""

    def __post_init__(self) -> None:
        if not self.criteria:
            raise ValueError("criteria is empty: pass at least one Criterion")
        object.__setattr__(self, "config", GenerateConfig(temperature=0.0, max_tokens=self.max_tokens))

    @property
    def name(self) -> str:
        """Judge name with its settings."""
        raise NotImplementedError

    def judge(self, item: JudgeItem) -> Judgement:
        """Decide every criterion for `item`."""
        decisions, calls = [], []
        for criterion in self.criteria:
            decision, log = self._decide(item, criterion)
            decisions.append(decision)
            calls += log
        return Judgement(item.item_id, self.name, combine(d.verdict for d in decisions), decisions, calls)

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[CallLog]]:
        """The verdict on one criterion and the log of every call it took."""
        raise NotImplementedError
