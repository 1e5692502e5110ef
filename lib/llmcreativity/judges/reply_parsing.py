"""Reading a verdict and a confidence from a judge's reply, retrying when the reply lacks them.

Replies are asked to contain two lines, `VERDICT: yes|no` and `CONFIDENCE: <0-100>`. A reply
missing either is answered with a reminder (the conversation continues, so the retry is a new
prompt even under greedy decoding); every failed attempt is counted and kept in the call log.
When every attempt fails and `forced_choice` is on, the verdict is read from the model's
probabilities of answering "yes" or "no" to a closing question (one scoring pass, no sampling),
with the probability of the chosen answer as confidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..llm.backend import Backend
from ..llm.generate_config import GenerateConfig
from ..llm.types import Message
from .asking import Attempt, ask, remind_until_readable
from .judgement import JudgeCall, Retrieved, TurnPurpose

FORMAT = "VERDICT: yes or no\nCONFIDENCE: how sure you are of that verdict, from 0 to 100"
"""The two lines every judge prompt asks for."""

REPLY_TEMPLATE = f"{FORMAT}\n- <finding>\n- <finding>"
"""Reply layout of the discussion judges: the verdict lines first, then 1-4 bulleted findings.

Small models run out of tokens before a closing verdict and follow a layout best when it opens the
reply; the verdict first makes every turn's verdict readable at the price of deciding before writing.
"""

FORCED_QUESTION = "Answer with one word, yes or no: is the solution {criterion}?"
"""Closing question whose answer probabilities give the verdict when no reply could be parsed."""

REMINDER = f"Your reply lacked the two required lines. Answer again, starting with exactly:\n{FORMAT}"
"""Follow-up sent after an unparseable reply."""

_YES = {"yes", "true", "pass", "valid", "met"}
_NO = {"no", "false", "fail", "invalid", "unmet"}
_VERDICT = re.compile(r"verdict\W{0,6}(" + "|".join(sorted(_YES | _NO)) + r")\b", re.IGNORECASE)
_CONFIDENCE = re.compile(r"confidence\W{0,6}(\d+(?:\.\d+)?)\s*(%|/\s*100|/\s*10)?", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedVerdict:
    """What could be read from one reply."""

    verdict: bool | None
    """True for yes, False for no, None when no verdict line was found."""
    confidence: float | None
    """Confidence scaled to [0, 1], None when absent or out of range."""

    @property
    def complete(self) -> bool:
        """Both verdict and confidence were read."""
        return self.verdict is not None and self.confidence is not None


def parse_verdict(text: str) -> ParsedVerdict:
    """The last `VERDICT: yes|no` and `CONFIDENCE: x` in `text`.

    Confidence x is read as a percentage when 1 < x <= 100 (also "x%" or "x/100"), as a
    fraction when 0 <= x <= 1, as tenths with "x/10"; anything else is None.
    """
    verdicts = _VERDICT.findall(text)
    verdict = None if not verdicts else verdicts[-1].lower() in _YES
    confs = _CONFIDENCE.findall(text)
    confidence = None
    if confs:
        number, unit = confs[-1]
        x = float(number)
        unit = unit.replace(" ", "")
        if unit == "/10":
            x = x / 10
        elif unit in {"%", "/100"} or x > 1:
            x = x / 100
        confidence = x if 0 <= x <= 1 else None
    return ParsedVerdict(verdict, confidence)


@dataclass(frozen=True)
class Answer:
    """The outcome of asking for a verdict, retries included."""

    reply: str
    """The last reply (the parsed one when any attempt succeeded)."""
    parsed: ParsedVerdict
    """Verdict and confidence of the best attempt (complete if any attempt was)."""
    failures: int
    """Attempts whose reply was not complete."""
    calls: list[JudgeCall]
    """One log per attempt."""


@dataclass(frozen=True)
class Ask:
    """One conversation to get a verdict from, with what its call log records."""

    messages: list[Message]
    """The chat so far, ending with the user's request."""
    agent: str
    """Who speaks."""
    round: int
    """Discussion round (0 for single-call judges)."""
    purpose: TurnPurpose
    """What the turn is for: a discussion turn, the final decision, or a single-call judgement."""
    query: str = ""
    """Retrieval query, when findings were retrieved for this turn."""
    retrieved: tuple[Retrieved, ...] = ()
    """Findings shown in this turn."""


def ask_verdicts(
    lm: Backend, asks: list[Ask], config: GenerateConfig, *, criterion: str, max_retries: int,
    forced_choice: bool = False,
) -> list[Answer]:
    """Ask `lm` every conversation of `asks` in one batched call and parse each reply.

    An incomplete reply gets REMINDER appended and is asked again (at most `max_retries` times; the
    retries of a batch go together; see `asking.remind_until_readable`). Each result is the first
    complete answer; else, with `forced_choice`, the verdict v = argmax_a p(a | dialogue, FORCED_QUESTION)
    over a in {yes, no} with confidence p(v); else the latest attempt that had a verdict, else the latest attempt.
    """
    first = [row[0] for row in ask(lm, [a.messages for a in asks], config, parse_verdict)]
    chains = remind_until_readable(lm, first, parse=parse_verdict, readable=lambda p: p.complete, reminder=REMINDER,
                                   max_retries=max_retries, config=lambda attempt, i: config)
    out = []
    for a, attempts in zip(asks, chains, strict=True):
        calls = [_call_log(a, k, attempt, criterion) for k, attempt in enumerate(attempts)]
        failures = sum(not t.parsed.complete for t in attempts)
        last = attempts[-1]
        if last.parsed.complete:
            out.append(Answer(last.completion.text, last.parsed, failures, calls))
            continue
        best = next((t for t in reversed(attempts) if t.parsed.verdict is not None), last)
        parsed = _forced_choice(lm, a, best.completion.text, criterion, calls) if forced_choice else best.parsed
        out.append(Answer(best.completion.text, parsed, failures, calls))
    return out


def _call_log(a: Ask, k: int, attempt: Attempt[ParsedVerdict], criterion: str) -> JudgeCall:
    """The log of attempt `k` (0 = the first ask, later ones are retries) of conversation `a`."""
    c = attempt.completion
    return JudgeCall(
        criterion=criterion, agent=a.agent, round=a.round, purpose=a.purpose if k == 0 else "retry",
        messages=list(attempt.messages), reply=c.text, prompt_tokens=c.usage.prompt_tokens,
        completion_tokens=c.usage.completion_tokens, seconds=c.usage.seconds, cached=c.usage.cached,
        query=a.query if k == 0 else "", retrieved=list(a.retrieved) if k == 0 else [],
    )


def _forced_choice(lm: Backend, a: Ask, reply: str, criterion: str, calls: list[JudgeCall]) -> ParsedVerdict:
    """The verdict from p(yes) vs p(no) after the unreadable `reply`; logs the scoring call into `calls`."""
    closing = list(a.messages) + [{"role": "assistant", "content": reply},
                                    {"role": "user", "content": FORCED_QUESTION.format(criterion=criterion)}]
    dist = lm.answer_probs(closing, ["yes", "no"])
    choice = max(dist.probs, key=dist.probs.__getitem__)
    u = dist.usage
    calls.append(JudgeCall(
        criterion=criterion, agent=a.agent, round=a.round, purpose="forced-choice", messages=closing,
        reply=f"{choice} (p_yes={dist.probs['yes']:.3f}, coverage={dist.coverage:.3f})", prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens, seconds=u.seconds, cached=u.cached,
    ))
    return ParsedVerdict(choice == "yes", dist.probs[choice])


def ask_verdict(lm: Backend, messages: list[Message], config: GenerateConfig, *, max_retries: int, criterion: str,
                agent: str, round: int, purpose: TurnPurpose, forced_choice: bool = False) -> Answer:
    """`ask_verdicts` for one conversation."""
    return ask_verdicts(lm, [Ask(messages, agent, round, purpose)], config, criterion=criterion,
                        max_retries=max_retries,
                        forced_choice=forced_choice)[0]
