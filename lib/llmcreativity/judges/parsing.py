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
from typing import Any

from ..llm.config import GenerateConfig
from .records import CallLog, Retrieved

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
    calls: list[CallLog]
    """One log per attempt."""


@dataclass(frozen=True)
class Ask:
    """One conversation to get a verdict from, with what its call log records."""

    messages: list[dict[str, str]]
    """The chat so far, ending with the user's request."""
    agent: str
    """Who speaks."""
    round: int
    """Discussion round (0 for single-call judges)."""
    purpose: str
    """"discuss", "final" or "judge"."""
    query: str = ""
    """Retrieval query, when findings were retrieved for this turn."""
    retrieved: tuple[Retrieved, ...] = ()
    """Findings shown in this turn."""


def ask_verdicts(
    lm: Any, asks: list[Ask], config: GenerateConfig, *, criterion: str, max_retries: int, forced_choice: bool = False,
) -> list[Answer]:
    """Ask `lm` every conversation of `asks` in one batched call and parse each reply.

    An incomplete reply gets REMINDER appended and is asked again (at most `max_retries` times; the
    retries of a batch go together). Each result is the first complete answer; else, with
    `forced_choice`, the verdict v = argmax_a p(a | dialogue, FORCED_QUESTION) over a in {yes, no} with
    confidence p(v); else the latest attempt that had a verdict, else the latest attempt.
    """
    if max_retries < 0:
        raise ValueError(f"max_retries={max_retries}: must be >= 0")
    convos = [list(a.messages) for a in asks]
    calls: list[list[CallLog]] = [[] for _ in asks]
    best: list[tuple[str, ParsedVerdict] | None] = [None] * len(asks)
    failures = [0] * len(asks)
    done: dict[int, Answer] = {}
    for attempt in range(max_retries + 1):
        todo = [i for i in range(len(asks)) if i not in done]
        if not todo:
            break
        completions = lm.generate([convos[i] for i in todo], config)
        for i, samples in zip(todo, completions):
            c, a = samples[0], asks[i]
            calls[i].append(CallLog(
                criterion=criterion, agent=a.agent, round=a.round, purpose=a.purpose if attempt == 0 else "retry",
                messages=list(convos[i]), reply=c.text, prompt_tokens=c.usage.prompt_tokens,
                completion_tokens=c.usage.completion_tokens, seconds=c.usage.seconds, cached=c.usage.cached,
                query=a.query if attempt == 0 else "", retrieved=list(a.retrieved) if attempt == 0 else [],
            ))
            parsed = parse_verdict(c.text)
            if parsed.complete:
                done[i] = Answer(c.text, parsed, failures[i], calls[i])
                continue
            failures[i] += 1
            if best[i] is None or parsed.verdict is not None or best[i][1].verdict is None:
                best[i] = (c.text, parsed)
            convos[i] = convos[i] + [{"role": "assistant", "content": c.text}, {"role": "user", "content": REMINDER}]
    for i, a in enumerate(asks):
        if i in done:
            continue
        text, parsed = best[i]
        if forced_choice:
            parsed = _forced_choice(lm, a, text, criterion, calls[i])
        done[i] = Answer(text, parsed, failures[i], calls[i])
    return [done[i] for i in range(len(asks))]


def _forced_choice(lm: Any, ask: Ask, reply: str, criterion: str, calls: list[CallLog]) -> ParsedVerdict:
    """The verdict from p(yes) vs p(no) after the unreadable `reply`; logs the scoring call into `calls`."""
    closing = list(ask.messages) + [{"role": "assistant", "content": reply},
                                    {"role": "user", "content": FORCED_QUESTION.format(criterion=criterion)}]
    dist = lm.answer_probs(closing, ["yes", "no"])
    choice = max(dist.probs, key=dist.probs.__getitem__)
    u = dist.usage
    calls.append(CallLog(
        criterion=criterion, agent=ask.agent, round=ask.round, purpose="forced-choice", messages=closing,
        reply=f"{choice} (p_yes={dist.probs['yes']:.3f}, coverage={dist.coverage:.3f})", prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens, seconds=u.seconds, cached=u.cached,
    ))
    return ParsedVerdict(choice == "yes", dist.probs[choice])


def ask_verdict(lm: Any, messages: list[dict[str, str]], config: GenerateConfig, *, max_retries: int, criterion: str,
                agent: str, round: int, purpose: str, forced_choice: bool = False) -> Answer:
    """`ask_verdicts` for one conversation."""
    return ask_verdicts(lm, [Ask(messages, agent, round, purpose)], config, criterion=criterion, max_retries=max_retries,
                        forced_choice=forced_choice)[0]
