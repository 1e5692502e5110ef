"""The ChatEval-style baseline: referees who each read the whole discussion on every turn.

Every referee sees the task, the solution, the criterion and every earlier message, so prompt
length (and token cost) grows with the history. Referees speak one after another for a fixed
number of rounds; the verdict is the majority of the last round's verdicts (a tie goes to the most
confident side).

Prompt layout: one shared system message, then the task, the solution, the criterion and the
discussion so far, and only then the referee's perspective (the same words as the retrieval
panel's full view) and the request. Each referee's prompt therefore starts with the whole prompt of
the referee before it, less that referee's perspective, so a local engine with prefix reuse reads
each message of the discussion once, not once per later speaker. The order changes no content:
every referee still reads everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from .judge_protocol import CriterionJudge
from .judgement import AgentVerdict, Criterion, CriterionVerdict, JudgeCall, JudgeItem
from .reply_parsing import REPLY_TEMPLATE, ask_verdict
from .retrieval_panel import AGENTS, PERSPECTIVES, shared_input
from .settings import ChatEvalSettings

REFEREE_SYSTEM = ("You are one of three referees debating whether a proposed solution meets a criterion. Every referee "
                  "reads the task, the solution, the criterion and the whole discussion so far, and argues from its "
                  "own perspective.")
"""System message shared by every referee (part of the shared prompt prefix)."""

REFEREE_ROLES: dict[str, str] = dict(PERSPECTIVES)
"""The same three perspectives as the retrieval panel's full view, so the comparison changes only what each agent
reads (the whole discussion here, retrieved findings there)."""


def majority(verdicts: list[AgentVerdict]) -> tuple[bool | None, float | None]:
    """Majority verdict of the parsed ones; a tie goes to the side with the higher summed confidence (then "no")."""
    parsed = [v for v in verdicts if v.verdict is not None]
    if not parsed:
        return None, None
    yes = [v for v in parsed if v.verdict]
    no = [v for v in parsed if not v.verdict]
    if len(yes) != len(no):
        side = yes if len(yes) > len(no) else no
    else:
        side = yes if sum(v.confidence or 0 for v in yes) > sum(v.confidence or 0 for v in no) else no
    confs = [v.confidence for v in side if v.confidence is not None]
    return side[0].verdict, (sum(confs) / len(confs) if confs else None)


@dataclass(frozen=True, kw_only=True)
class ChatEvalJudge(CriterionJudge):
    """Full-history multi-referee debate (the baseline the retrieval judge is compared with); settings as in
    CriterionJudge."""

    rounds: int = 2
    """Discussion rounds (every referee speaks once per round)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rounds < 1:
            raise ValueError(f"rounds={self.rounds}: need at least one round")

    @property
    def settings(self) -> ChatEvalSettings:
        """Its rounds and reply length: "chateval(R=3,L=128)"."""
        return ChatEvalSettings(rounds=self.rounds, max_tokens=self.max_tokens, criteria_mode=self.criteria_mode,
                                n_criteria=len(self.criteria))

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[JudgeCall]]:
        history: list[str] = []
        said: list[AgentVerdict] = []
        calls: list[JudgeCall] = []
        failures = 0
        for r in range(1, self.rounds + 1):
            for referee in AGENTS:
                discussion = "\n\n".join(history) or "(nobody has spoken yet)"
                user = (f"{shared_input(item, criterion)}\n\nDISCUSSION SO FAR:\n{discussion}\n\n"
                        f"{REFEREE_ROLES[referee]}\n\n"
                        f"Is the solution {criterion.name}? Give your verdict, then 1 to 4 short findings from your "
                        "role. "
                        f"Reply in exactly this format:\n{REPLY_TEMPLATE}")
                messages = [{"role": "system", "content": REFEREE_SYSTEM}, {"role": "user", "content": user}]
                ans = ask_verdict(self.lm, messages, self.config, max_retries=self.max_retries,
                                  forced_choice=self.forced_choice, criterion=criterion.name,
                                  agent=referee, round=r, purpose="discuss")
                calls += ans.calls
                failures += ans.failures
                history.append(f"[{referee}, round {r}]: {ans.reply.strip()}")
                said.append(AgentVerdict(referee, r, ans.parsed.verdict, ans.parsed.confidence))
        verdict, confidence = majority([v for v in said if v.round == self.rounds])
        return CriterionVerdict(criterion.name, verdict, confidence, "majority", self.rounds, False, failures,
                                said), calls
