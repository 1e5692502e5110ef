import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge_helpers import scripted, user_of
from llmcreativity.judges import parse_verdict
from llmcreativity.judges.reply_parsing import REMINDER, Ask, ask_verdict, ask_verdicts
from llmcreativity.llm.generate_config import GenerateConfig


def test_parse_reads_verdict_and_percentage_confidence():
    p = parse_verdict("- fine\nVERDICT: yes\nCONFIDENCE: 85")
    assert (p.verdict, p.confidence) == (True, 0.85)


def test_parse_reads_no_with_markdown_and_percent_sign():
    p = parse_verdict("**Verdict:** No\n**Confidence:** 40%")
    assert (p.verdict, p.confidence) == (False, 0.4)


def test_parse_takes_the_last_verdict_when_several():
    assert parse_verdict("VERDICT: yes\n...\nVERDICT: no\nCONFIDENCE: 0.9").verdict is False


def test_parse_reads_tenths_and_fractions():
    assert parse_verdict("VERDICT: yes CONFIDENCE: 7/10").confidence == pytest.approx(0.7)
    assert parse_verdict("VERDICT: yes CONFIDENCE: 0.3").confidence == pytest.approx(0.3)


def test_parse_rejects_out_of_range_confidence():
    assert parse_verdict("VERDICT: yes\nCONFIDENCE: 250").confidence is None


def test_parse_without_lines_is_incomplete():
    p = parse_verdict("I think it works.")
    assert p.verdict is None and p.confidence is None and not p.complete


@given(st.booleans(), st.integers(0, 100))
def test_parse_roundtrips_the_requested_format(v, c):
    p = parse_verdict(f"notes\nVERDICT: {'yes' if v else 'no'}\nCONFIDENCE: {c}")
    assert p.verdict is v and p.confidence == pytest.approx(c / 100 if c > 1 else c)


def test_ask_retries_with_reminder_and_counts_the_failure():
    lm = scripted(lambda p, i: "VERDICT: no\nCONFIDENCE: 60" if REMINDER in user_of(p) else "It seems fine.")
    ans = ask_verdict(lm, [{"role": "user", "content": "judge"}], GenerateConfig(temperature=0), max_retries=2,
                      criterion="valid", agent="a", round=1, purpose="discuss")
    assert ans.failures == 1 and ans.parsed.verdict is False and len(ans.calls) == 2
    assert ans.calls[1].purpose == "retry" and ans.calls[1].messages[-1]["content"] == REMINDER


def test_ask_gives_up_after_max_retries_and_records_every_attempt():
    lm = scripted(lambda p, i: "no idea")
    ans = ask_verdict(lm, [{"role": "user", "content": "judge"}], GenerateConfig(temperature=0), max_retries=1,
                      criterion="valid", agent="a", round=1, purpose="discuss")
    assert ans.failures == 2 and ans.parsed.verdict is None and len(ans.calls) == 2


def test_ask_keeps_a_verdict_without_confidence_when_retries_fail():
    lm = scripted(lambda p, i: "VERDICT: yes")
    ans = ask_verdict(lm, [{"role": "user", "content": "judge"}], GenerateConfig(temperature=0), max_retries=1,
                      criterion="valid", agent="a", round=1, purpose="discuss")
    assert ans.parsed.verdict is True and ans.parsed.confidence is None and ans.failures == 2


def test_ask_logs_token_use_of_each_call():
    lm = scripted(lambda p, i: "VERDICT: yes\nCONFIDENCE: 90")
    ans = ask_verdict(lm, [{"role": "user", "content": "one two three"}], GenerateConfig(temperature=0), max_retries=0,
                      criterion="valid", agent="a", round=1, purpose="discuss")
    assert ans.calls[0].prompt_tokens == 3 and ans.calls[0].completion_tokens == 4


def test_ask_verdicts_batches_first_attempts_and_retries_only_the_failures():
    def reply(p, i):
        text = user_of(p)
        return "VERDICT: yes\nCONFIDENCE: 80" if text.startswith("good") or REMINDER in text else "rambling"

    lm = scripted(reply)
    asks = [Ask([{"role": "user", "content": "good one"}], "a", 1, "discuss"),
            Ask([{"role": "user", "content": "bad one"}], "b", 1, "discuss")]
    first, second = ask_verdicts(lm, asks, GenerateConfig(temperature=0), criterion="valid", max_retries=1)
    assert lm.inner.batches == [2, 1]
    assert first.failures == 0 and len(first.calls) == 1 and first.calls[0].agent == "a"
    assert second.failures == 1 and second.parsed.verdict is True
    assert [c.purpose for c in second.calls] == ["discuss", "retry"]
