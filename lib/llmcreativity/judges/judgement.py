"""What every judge reads and returns: the item judged, verdicts, every prompt, what was retrieved and why, token use
per call. A `Judgement` is stored as its JSON form (`dataclass_json.to_json`), one line of a judge's runs file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..llm.types import Message

TurnPurpose = Literal["discuss", "final", "judge"]
"""What a judge's turn is for: a discussion turn, the final decision, or a single-call judgement."""

CallPurpose = Literal["discuss", "final", "judge", "retry", "forced-choice", "answer-probs"]
"""What a logged call was: a turn, a retry after an unreadable reply, or a scoring pass."""


@dataclass(frozen=True)
class Criterion:
    """One yes/no criterion a judge decides."""

    name: str
    """Short adjective the verdict answers, e.g. "feasible" ("is the solution feasible?")."""
    definition: str
    """What the criterion means, shown to every agent."""


@dataclass(frozen=True)
class JudgeItem:
    """One thing to judge: a task and a response to it (a MacGyver problem and a solution; a writing prompt and a
    story)."""

    item_id: str
    """Unique id; the key of resumable runs."""
    task: str
    """The task or prompt (a MacGyver problem, a story prompt)."""
    response: str
    """The response judged (a solution, a story)."""


@dataclass(frozen=True)
class Retrieved:
    """One fragment an agent was shown, and why."""

    fragment_id: str
    """Id of the stored fragment."""
    author: str
    """Agent that wrote it."""
    round: int
    """Round it was written in."""
    text: str
    """The fragment."""
    score: float
    """Cosine similarity between the fragment and the agent's query."""
    rank: int
    """1 = most similar."""


@dataclass(frozen=True)
class JudgeCall:
    """One model call made by a judge."""

    criterion: str
    """Criterion being decided."""
    agent: str
    """Agent (or judge) that made the call."""
    round: int
    """Discussion round (0 for single-call judges, rounds+1 for a final decision)."""
    purpose: CallPurpose
    """What the call was (see `CallPurpose`)."""
    messages: list[Message]
    """The full prompt sent (chat messages)."""
    reply: str
    """The model's reply."""
    prompt_tokens: int
    """Prompt tokens of this call."""
    completion_tokens: int
    """Generated tokens of this call."""
    seconds: float
    """Model seconds of this call when it was computed (a cache hit reports the original time)."""
    cached: bool
    """True when answered from the call cache."""
    query: str = ""
    """The retrieval query (empty when nothing was retrieved)."""
    retrieved: list[Retrieved] = field(default_factory=list)
    """Fragments shown to the agent, best first."""


@dataclass(frozen=True)
class AgentVerdict:
    """One agent's stated verdict after a round."""

    agent: str
    """Who stated it."""
    round: int
    """After which round (rounds+1 for the final decision)."""
    verdict: bool | None
    """True = criterion met; None when no verdict could be parsed."""
    confidence: float | None
    """Stated confidence in [0, 1]; None when none could be parsed."""


@dataclass(frozen=True)
class CriterionVerdict:
    """A judge's decision on one criterion."""

    criterion: str
    """Criterion name."""
    verdict: bool | None
    """Final verdict; None when no verdict could be parsed at all."""
    confidence: float | None
    """Confidence attached to the final verdict."""
    decided_by: str
    """Agent whose verdict is final, or the rule used ("majority")."""
    rounds_used: int
    """Discussion rounds run (0 for single-call judges)."""
    stopped_early: bool
    """True when the mean confidence reached the threshold before the last round."""
    parse_failures: int
    """Replies whose verdict or confidence could not be parsed (each then retried)."""
    agent_verdicts: list[AgentVerdict] = field(default_factory=list)
    """Every verdict stated on the way."""


@dataclass(frozen=True)
class Judgement:
    """A judge's full answer for one item."""

    item_id: str
    """The item judged."""
    judge: str
    """Judge name with its settings."""
    verdict: bool | None
    """True when every criterion is met; None when any criterion has no verdict."""
    criteria: list[CriterionVerdict]
    """One decision per criterion."""
    calls: list[JudgeCall]
    """Every model call, in order."""

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens summed over calls."""
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        """Generated tokens summed over calls."""
        return sum(c.completion_tokens for c in self.calls)

    @property
    def total_tokens(self) -> int:
        """prompt_tokens + completion_tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def seconds(self) -> float:
        """Model seconds summed over calls."""
        return sum(c.seconds for c in self.calls)

    @property
    def parse_failures(self) -> int:
        """Unparseable replies summed over criteria."""
        return sum(c.parse_failures for c in self.criteria)


def combine(verdicts: Iterable[bool | None]) -> bool | None:
    """All criteria met: v = AND_c v_c, None if any v_c is None."""
    vs = list(verdicts)
    return None if any(v is None for v in vs) else all(vs)
