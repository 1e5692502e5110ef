"""The retrieval-based multi-agent judge.

Three agents analyse one (problem, solution) pair against one criterion, each *from* one
perspective: the Problem analyst from the task's, the Solution analyst from the solution's, the
Criterion analyst from the criterion's. By default the criterion is the joint one
(`criteria.joint_criterion`): one discussion over all criteria that converges to one binary verdict,
the paper's; `criteria_mode="per_criterion"` holds one discussion per criterion and ANDs the verdicts.
With `views="full"` (the default, the paper's method) every agent reads the task, the solution and
the criterion; its role, the findings retrieved for it and the questions addressed to it come after
that shared part, so the shared part is a byte-identical prefix of every agent's prompt in every round.
The ablation `views="partitioned"` gives each agent
only its own input (the Problem analyst the task, the Solution analyst the solution, the
Criterion analyst the criterion), its role as the system message.

Each agent writes short findings; every finding is embedded and stored in a vector store made
for this one evaluation. In each round an agent sees, besides its input, only the k stored
findings most similar (cosine) to its current question and the questions other agents addressed
to it, never the whole discussion. The three agents of a round speak at once (one batched call):
each reads the store as the previous round left it, and questions reach their addressee in the
next round. A finding nearly identical to a stored one (cosine >= `dedupe`) is not stored again.
After each round every agent states a verdict and a confidence; when the mean confidence reaches
the threshold T the discussion stops. The most confident agent then makes the final decision
after one more retrieval.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..llm.backend import TextEmbedder
from .judge_protocol import CriterionJudge
from .judgement import AgentVerdict, Criterion, CriterionVerdict, JudgeCall, JudgeItem, Retrieved
from .reply_parsing import FORMAT, REPLY_TEMPLATE, Ask, ask_verdicts
from .settings import PanelSettings
from .vector_store import Fragment, NumpyVectorStore, VectorStore

PROBLEM, SOLUTION, CRITERION = "Problem analyst", "Solution analyst", "Criterion analyst"
AGENTS: tuple[str, ...] = (PROBLEM, SOLUTION, CRITERION)
"""Speaking order within a round."""

ROLES: dict[str, str] = {
    PROBLEM: "You are the Problem analyst. You read the task and say what it requires: the goal, the constraints, "
             "and which tools or resources are allowed.",
    SOLUTION: "You are the Solution analyst. You read the proposed solution and say what it actually does, step by "
              "step, "
              "and which tools or resources it uses.",
    CRITERION: "You are the Criterion analyst. You check the other analysts' findings against one criterion.",
}
"""System message of each agent in the partitioned ablation (it reads only its own input)."""

PERSPECTIVES: dict[str, str] = {
    PROBLEM: "You are the Problem analyst. Argue from the task's perspective: what its goal, its constraints and the "
             "tools or resources it allows require, and whether the solution respects them.",
    SOLUTION: "You are the Solution analyst. Argue from the solution's perspective: what it actually does, step by "
              "step, which tools or resources it uses, and whether each step would work.",
    CRITERION: "You are the Criterion analyst. Argue from the criterion's perspective: hold the solution and the "
               "other analysts' findings against the criterion's definition, point by point.",
}
"""Each agent's role in the full view: the perspective it must argue from (placed after the shared input)."""

PANEL_SYSTEM = ("You are one of three analysts on a panel that decides whether a proposed solution meets a criterion. "
                "Every analyst reads the same task, solution and criterion and argues from its own perspective.")
"""System message shared by every agent in the full view (part of the shared prompt prefix)."""

VIEWS: tuple[str, ...] = ("full", "partitioned")
"""What each agent reads: "full" (task, solution and criterion; the paper's) or "partitioned" (its own input only)."""

_QUESTION = re.compile(r"^\W*question\s+(?:to|for)\s+(?:the\s+)?(problem|solution|criterion)"
                       r"(?:\s+analyst)?\s*[:\-]\s*(.+)$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.+)$")
_CLOSING = re.compile(r"^\W*(verdict|confidence)\b", re.IGNORECASE)


def base_question(agent: str, criterion: Criterion) -> str:
    """The question an agent retrieves with before any question is addressed to it."""
    return {
        PROBLEM: f"What does the task require that decides whether a solution is {criterion.name}?",
        SOLUTION: f"What does the solution do that bears on whether it is {criterion.name}?",
        CRITERION: f"Is the solution {criterion.name}? {criterion.definition}",
    }[agent]


def shared_input(item: JudgeItem, criterion: Criterion) -> str:
    """What every agent reads first in the full view: the task, the solution and the criterion."""
    return (f"TASK:\n{item.task}\n\nPROPOSED SOLUTION:\n{item.response}\n\n"
            f"CRITERION '{criterion.name}': {criterion.definition}")


def view(agent: str, item: JudgeItem, criterion: Criterion) -> str:
    """The part of the input only this agent reads in the partitioned ablation."""
    return {
        PROBLEM: f"TASK:\n{item.task}",
        SOLUTION: f"PROPOSED SOLUTION:\n{item.response}",
        CRITERION: f"CRITERION '{criterion.name}': {criterion.definition}",
    }[agent]


def extract_findings(reply: str, max_findings: int) -> tuple[list[str], list[tuple[str, str]]]:
    """Split a reply into findings (bulleted lines, else sentences) and questions [(addressee, question)].

    Closing VERDICT/CONFIDENCE lines are neither.
    """
    findings, questions, prose = [], [], []
    for line in reply.splitlines():
        if not line.strip() or _CLOSING.match(line):
            continue
        q = _QUESTION.match(line)
        if q:
            questions.append((f"{q.group(1).capitalize()} analyst", q.group(2).strip()))
            continue
        b = _BULLET.match(line)
        (findings if b else prose).append((b.group(1) if b else line).strip())
    if not findings:
        findings = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(prose)) if len(s.strip()) > 3]
    return findings[:max_findings], questions


@dataclass(frozen=True, kw_only=True)
class RetrievalPanelJudge(CriterionJudge):
    """Problem / Solution / Criterion agents that exchange only retrieved findings.

    Settings: `views` (what each agent reads), `rounds` (at most), `k` (findings retrieved per turn),
    `stop_confidence` T (stop once the mean stated confidence of a round is >= T; T > 1 never stops
    early), `criteria`, the agent model `lm` and the `embedder`; reply settings as in CriterionJudge.
    """

    embedder: TextEmbedder
    """Sentence embedder with encode(list[str]) -> unit-norm rows."""
    rounds: int = 2
    """Most discussion rounds."""
    k: int = 3
    """Findings retrieved for each turn."""
    stop_confidence: float = 0.8
    """T: stop when the mean confidence of a round reaches it."""
    max_findings: int = 4
    """Findings kept from one reply."""
    dedupe: float = 0.95
    """A finding whose cosine similarity to a stored one reaches this is not stored (> 1 keeps every finding)."""
    store_factory: Callable[[], VectorStore] = NumpyVectorStore
    """Makes the empty store of one evaluation (one per discussion: one per item when joint, per criterion else)."""
    views: str = "full"
    """"full": every agent reads task, solution and criterion (the paper's); "partitioned": each only its own input."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rounds < 1 or self.k < 0:
            raise ValueError(f"rounds={self.rounds}, k={self.k}: need rounds >= 1 and k >= 0")
        if self.views not in VIEWS:
            raise ValueError(f"views={self.views!r} is unknown: use 'full' (every agent reads the task, the solution "
                             "and the criterion; the paper's) or 'partitioned' (each agent reads only its own input)")

    @property
    def settings(self) -> PanelSettings:
        """Its views, rounds, k, T and reply length: "retrieval-full(R=3,k=2,T=0.8,L=128)"."""
        return PanelSettings(views=self.views, rounds=self.rounds, k=self.k, stop_confidence=self.stop_confidence,
                             max_tokens=self.max_tokens, criteria_mode=self.criteria_mode,
                             n_criteria=len(self.criteria))

    def _retrieve(self, store: VectorStore, queries: list[str]) -> list[list[Retrieved]]:
        """The top-k stored findings for each query (the queries embedded in one batch)."""
        if len(store) == 0 or self.k == 0:
            return [[] for _ in queries]
        return [[Retrieved(h.fragment.id, h.fragment.author, h.fragment.round, h.fragment.text, h.score, h.rank)
                 for h in store.search(v, self.k)] for v in self.embedder.encode(queries)]

    def _messages(self, agent: str, item: JudgeItem, criterion: Criterion, shown: list[Retrieved],
                  questions: list[str], final: bool) -> list[dict[str, str]]:
        """One agent's prompt. Full view: [PANEL_SYSTEM, shared_input + role + findings + questions + ask], so
        everything before the role is the same for every agent and round; partitioned: [role, view + the rest]."""
        notes = "\n".join(f"- ({r.author}) {r.text}" for r in shown) or "(none yet)"
        asked = "".join(f"\nQuestion to you: {q}" for q in questions)
        if final:
            task = (f"Give your final decision: is the solution {criterion.name}? "
                    f"Reply in exactly this format:\n{FORMAT}")
        else:
            task = (f"Is the solution {criterion.name}? Give your verdict, then 1 to 4 short findings from your role. "
                    "To ask another analyst something, add a line 'QUESTION to <Problem|Solution|Criterion> analyst: "
                    "...'. "
                    f"Reply in exactly this format:\n{REPLY_TEMPLATE}")
        turn = f"Stored findings most relevant to your question:\n{notes}{asked}\n\n{task}"
        if self.views == "partitioned":
            user = f"{view(agent, item, criterion)}\n\n{turn}"
            return [{"role": "system", "content": ROLES[agent]}, {"role": "user", "content": user}]
        user = f"{shared_input(item, criterion)}\n\n{PERSPECTIVES[agent]}\n\n{turn}"
        return [{"role": "system", "content": PANEL_SYSTEM}, {"role": "user", "content": user}]

    def _store(self, store: VectorStore, findings: list[str], agent: str, r: int) -> None:
        """Embed and store `findings`, skipping those with cosine >= `dedupe` to one already stored (or earlier in the
        list)."""
        if not findings:
            return
        vectors = np.asarray(self.embedder.encode(findings), dtype=np.float32)
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        kept: list[int] = []
        for i, v in enumerate(unit):
            stored = store.search(v, 1)
            if (stored and stored[0].score >= self.dedupe) or any(float(unit[j] @ v) >= self.dedupe for j in kept):
                continue
            kept.append(i)
        if kept:
            store.add([Fragment(f"r{r}-{agent}-{i}", findings[i], agent, r) for i in kept], vectors[kept])

    def _round(self, store: VectorStore, item: JudgeItem, criterion: Criterion, r: int, pending: dict[str, list[str]]
               ) -> tuple[dict[str, AgentVerdict], dict[str, list[str]], list[JudgeCall], int]:
        """Round r: each agent retrieves the k findings nearest its question (and the questions put to it), answers
        with a verdict and a confidence, and files its new findings and questions; returns the round's verdicts,
        the questions for the next round, the calls and the unreadable replies."""
        queries = [" ".join([base_question(agent, criterion), *pending[agent]]) for agent in AGENTS]
        asks = [Ask(self._messages(agent, item, criterion, shown, pending[agent], final=False), agent, r,
                    "discuss", query, tuple(shown))
                for agent, query, shown in zip(AGENTS, queries, self._retrieve(store, queries), strict=True)]
        answers = ask_verdicts(self.lm, asks, self.config, criterion=criterion.name, max_retries=self.max_retries,
                               forced_choice=self.forced_choice)
        questions_for: dict[str, list[str]] = {a: [] for a in AGENTS}
        verdicts: dict[str, AgentVerdict] = {}
        calls: list[JudgeCall] = []
        failures = 0
        for agent, ans in zip(AGENTS, answers, strict=True):
            calls += ans.calls
            failures += ans.failures
            findings, questions = extract_findings(ans.reply, self.max_findings)
            self._store(store, findings, agent, r)
            for addressee, q in questions:
                if addressee in questions_for and addressee != agent:
                    questions_for[addressee].append(q)
            verdicts[agent] = AgentVerdict(agent, r, ans.parsed.verdict, ans.parsed.confidence)
        return verdicts, questions_for, calls, failures

    def _decide(self, item: JudgeItem, criterion: Criterion) -> tuple[CriterionVerdict, list[JudgeCall]]:
        store = self.store_factory()
        calls: list[JudgeCall] = []
        said: list[AgentVerdict] = []
        pending: dict[str, list[str]] = {a: [] for a in AGENTS}
        failures, rounds_used, stopped = 0, 0, False
        for r in range(1, self.rounds + 1):
            rounds_used = r
            this_round, pending, round_calls, round_failures = self._round(store, item, criterion, r, pending)
            calls += round_calls
            failures += round_failures
            said += this_round.values()
            mean_conf = float(np.mean([v.confidence or 0.0 for v in this_round.values()]))
            if mean_conf >= self.stop_confidence:
                stopped = r < self.rounds
                break
        # the most confident agent of the last round decides; on a tie the later speaker (the Criterion analyst first)
        lead = max(reversed(list(this_round.values())), key=lambda v: -1.0 if v.confidence is None else v.confidence)
        query = base_question(lead.agent, criterion)
        shown = self._retrieve(store, [query])[0]
        final = Ask(self._messages(lead.agent, item, criterion, shown, [], final=True), lead.agent, rounds_used + 1,
                    "final",
                    query, tuple(shown))
        ans = ask_verdicts(self.lm, [final], self.config, criterion=criterion.name, max_retries=self.max_retries,
                           forced_choice=self.forced_choice)[0]
        calls += ans.calls
        failures += ans.failures
        said.append(AgentVerdict(lead.agent, rounds_used + 1, ans.parsed.verdict, ans.parsed.confidence))
        verdict, confidence = ans.parsed.verdict, ans.parsed.confidence
        if verdict is None:
            verdict, confidence = lead.verdict, lead.confidence
        decision = CriterionVerdict(criterion.name, verdict, confidence, lead.agent, rounds_used, stopped, failures,
                                    said)
        return decision, calls
