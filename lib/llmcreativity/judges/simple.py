"""Single-agent baselines: one call per decision (the joint criterion, or each criterion), with or without step-by-step
reasoning first, or one scoring pass."""

from __future__ import annotations

from dataclasses import dataclass

from .judge_protocol import CriterionJudge
from .judgement import AgentVerdict, Criterion, CriterionVerdict, JudgeCall, JudgeItem
from .reply_parsing import FORMAT, ask_verdict
from .settings import AnswerProbabilitySettings, SingleCallSettings

SYSTEM = "You are a careful judge of proposed solutions."
"""System message of the single-agent judges."""


def _question(item: JudgeItem, criterion: Criterion) -> str:
    """Task, solution, criterion and the yes/no question, as every single-agent judge asks it."""
    return (f"TASK:\n{item.task}\n\nPROPOSED SOLUTION:\n{item.response}\n\n"
            f"CRITERION '{criterion.name}': {criterion.definition}\n\nIs the solution {criterion.name}?")


@dataclass(frozen=True, kw_only=True)
class SingleCallJudge(CriterionJudge):
    """Asks once per criterion for the verdict; with `reasoning`, asks to think step by step first (chain of
    thought)."""

    reasoning: bool = False
    """True: chain-of-thought judge (reason in a few sentences, then decide)."""
    max_tokens: int = 32
    """Token limit of the reply (give the chain-of-thought judge more, e.g. 160)."""

    @property
    def settings(self) -> SingleCallSettings:
        """Whether it reasons first: "cot" or "single"."""
        return SingleCallSettings(reasoning=self.reasoning, criteria_mode=self.criteria_mode,
                                  n_criteria=len(self.criteria))

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[JudgeCall]]:
        how = ("Think step by step in 2 to 4 short points, then answer. Reply in exactly this format:\n"
               f"- <step>\n- <step>\n{FORMAT}" if self.reasoning
               else f"Answer without explanation. Reply in exactly this format:\n{FORMAT}")
        user = f"{_question(item, criterion)} {how}"
        ans = ask_verdict(self.lm, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
                          self.config,
                          max_retries=self.max_retries, forced_choice=self.forced_choice, criterion=criterion.name,
                          agent=self.name,
                          round=0, purpose="judge")
        said = [AgentVerdict(self.name, 0, ans.parsed.verdict, ans.parsed.confidence)]
        return CriterionVerdict(criterion.name, ans.parsed.verdict, ans.parsed.confidence, self.name, 0, False,
                                ans.failures, said), ans.calls


@dataclass(frozen=True, kw_only=True)
class AnswerProbabilityJudge(CriterionJudge):
    """Reads the verdict from the model's next-token probabilities instead of its text: one scoring pass, no sampling.

    p = p(yes) / (p(yes) + p(no)) over the answers `answers` (e.g. "Yes", "No") after the question; the
    verdict is p >= 0.5 and the confidence p(verdict), so `validity_score` recovers p. Unlike a stated
    confidence, p is graded, which a rank correlation needs.
    """

    answers: tuple[str, str] = ("Yes", "No")
    """The affirmative and the negative answer, as the model would write them first."""

    @property
    def settings(self) -> AnswerProbabilitySettings:
        """No settings of its own: "p(yes)"."""
        return AnswerProbabilitySettings(criteria_mode=self.criteria_mode, n_criteria=len(self.criteria))

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[JudgeCall]]:
        question = f"{_question(item, criterion)} Answer with one word, {self.answers[0]} or {self.answers[1]}."
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
        dist = self.lm.answer_probs(messages, list(self.answers))
        p_yes = dist.probs[self.answers[0]]
        verdict = p_yes >= 0.5
        confidence = p_yes if verdict else 1 - p_yes
        u = dist.usage
        call = JudgeCall(criterion=criterion.name, agent=self.name, round=0, purpose="answer-probs", messages=messages,
                       reply=f"{self.answers[0] if verdict else self.answers[1]} (p_yes={p_yes:.3f}, "
                             f"coverage={dist.coverage:.3f})",
                       prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, seconds=u.seconds,
                       cached=u.cached)
        said = [AgentVerdict(self.name, 0, verdict, confidence)]
        return CriterionVerdict(criterion.name, verdict, confidence, self.name, 0, False, 0, said), [call]
