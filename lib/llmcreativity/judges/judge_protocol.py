"""What every judge shares: its model, criteria and reply settings, and how it decides a set of criteria (one joint
discussion, or one per criterion)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..llm.backend import Backend
from ..llm.generate_config import GenerateConfig
from .criteria import CRITERIA_MODES, joint_criterion
from .judgement import Criterion, CriterionVerdict, JudgeCall, JudgeItem, Judgement, combine
from .settings import JudgeSettings


@dataclass(frozen=True, kw_only=True)
class CriterionJudge:
    """Decides an item against its criteria (`_decide`): by default once, on the joint criterion (one binary verdict,
    the paper's); with `criteria_mode="per_criterion"` each criterion in turn, the item's verdict v = AND_c v_c."""

    lm: Backend
    """Judge model (a backend of llmcreativity.llm)."""
    criteria: tuple[Criterion, ...]
    """The criteria the item must meet."""
    criteria_mode: str = "joint"
    """"joint": one decision (one discussion) over all criteria, one binary verdict; "per_criterion": one decision
    per criterion, AND-ed (an ablation). The same with one criterion; see `criteria.CriteriaMode`."""
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
        if self.criteria_mode not in CRITERIA_MODES:
            raise ValueError(f"criteria_mode={self.criteria_mode!r}: use 'joint' (one discussion over all criteria, "
                             "one binary verdict; the paper's) or 'per_criterion' (one per criterion, AND-ed)")
        object.__setattr__(self, "config", GenerateConfig(temperature=0.0, max_tokens=self.max_tokens))

    @property
    def settings(self) -> JudgeSettings:
        """The settings its name states (`settings.JudgeSettings`)."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """`label`, else the name derived from `settings`, e.g. "retrieval-full(R=3,k=2,T=0.8,L=128)" or
        "single[joint]" (the criteria mode appended for several criteria)."""
        return self.label or self.settings.name

    @property
    def decided(self) -> tuple[Criterion, ...]:
        """What is decided, one after another: the joint criterion ("joint") or each criterion ("per_criterion")."""
        return (joint_criterion(self.criteria),) if self.criteria_mode == "joint" else self.criteria

    def judge(self, item: JudgeItem) -> Judgement:
        """Decide `item`: each of `decided` in turn; the verdict is the AND of their verdicts."""
        decisions, calls = [], []
        for criterion in self.decided:
            decision, log = self._decide(item, criterion)
            decisions.append(decision)
            calls += log
        return Judgement(item.item_id, self.name, combine(d.verdict for d in decisions), decisions, calls)

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[JudgeCall]]:
        """The verdict on one criterion and the log of every call it took."""
        raise NotImplementedError
