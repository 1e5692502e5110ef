"""Reading a verdict and a confidence from a judge's reply, retrying when the reply lacks them.

Replies are asked to end with two lines, `VERDICT: yes|no` and `CONFIDENCE: <0-100>`. A reply
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

FORMAT = "VERDICT: yes or no\nCONFIDENCE: a number from 0 to 100"
"""The two closing lines every judge prompt asks for."""

REPLY_TEMPLATE = f"- <finding>\n- <finding>\n{FORMAT}"
"""Reply layout of the discussion judges: 2-4 bulleted points, then the closing lines (small models follow a template best)."""

FORCED_QUESTION = "Answer with one word, yes or no: is the solution {criterion}?"
"""Closing question whose answer probabilities give the verdict when no reply could be parsed."""

REMINDER = f"Your reply did not end with the two required lines. Answer again, ending with exactly:\n{FORMAT}"
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


def ask_verdict(
    lm: Any,
    messages: list[dict[str, str]],
    config: GenerateConfig,
    *,
    max_retries: int,
    criterion: str,
    agent: str,
    round: int,
    purpose: str,
    query: str = "",
    retrieved: list[Retrieved] | None = None,
    forced_choice: bool = False,
) -> Answer:
    """Ask `lm` and parse; on an incomplete reply, append it and REMINDER and ask again (at most max_retries times).

    Returns the first complete answer; else, with `forced_choice`, the verdict v = argmax_a p(a | dialogue,
    FORCED_QUESTION) over a in {yes, no} with confidence p(v); else the latest attempt that had a verdict,
    else the latest attempt.
    """
    if max_retries < 0:
        raise ValueError(f"max_retries={max_retries}: must be >= 0")
    convo = list(messages)
    calls: list[CallLog] = []
    best: tuple[str, ParsedVerdict] | None = None
    failures = 0
    for attempt in range(max_retries + 1):
        completion = lm.generate([convo], config)[0][0]
        u = completion.usage
        calls.append(CallLog(
            criterion=criterion, agent=agent, round=round, purpose=purpose if attempt == 0 else "retry",
            messages=list(convo), reply=completion.text, prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens, seconds=u.seconds, cached=u.cached,
            query=query if attempt == 0 else "", retrieved=list(retrieved or []) if attempt == 0 else [],
        ))
        parsed = parse_verdict(completion.text)
        if parsed.complete:
            return Answer(completion.text, parsed, failures, calls)
        failures += 1
        if best is None or parsed.verdict is not None or best[1].verdict is None:
            best = (completion.text, parsed)
        convo = convo + [{"role": "assistant", "content": completion.text}, {"role": "user", "content": REMINDER}]
    assert best is not None
    if forced_choice:
        closing = list(messages) + [{"role": "assistant", "content": best[0]},
                                    {"role": "user", "content": FORCED_QUESTION.format(criterion=criterion)}]
        dist = lm.answer_probs(closing, ["yes", "no"])
        choice = max(dist.probs, key=dist.probs.__getitem__)
        u = dist.usage
        calls.append(CallLog(
            criterion=criterion, agent=agent, round=round, purpose="forced-choice", messages=closing,
            reply=f"{choice} (p_yes={dist.probs['yes']:.3f}, coverage={dist.coverage:.3f})", prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens, seconds=u.seconds, cached=u.cached,
        ))
        return Answer(best[0], ParsedVerdict(choice == "yes", dist.probs[choice]), failures, calls)
    return Answer(best[0], best[1], failures, calls)
