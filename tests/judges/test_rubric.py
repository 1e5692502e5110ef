"""The rubric judge: prompts, score parsing, the two estimators, retries, missing scores and resumable runs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcreativity.judges import JudgeItem
from llmcreativity.judges.rubric import (
    ANSWERS,
    DIMENSIONS,
    REMINDER,
    SAMPLING,
    SCALE,
    RubricJudge,
    expected_score,
    mean_of_samples,
    parse_score,
    read_scores,
    rubric_prompt,
    run_rubric,
)
from llmcreativity.llm import CachedBackend, ScriptedBackend
from llmcreativity.llm.scripted import prompt_text

ITEM = JudgeItem("s1", "A city on a comet.", "The comet city woke when the ice began to sing.")


def test_five_dimensions_have_written_criteria():
    assert [d.name for d in DIMENSIONS] == ["Integration of Scientific Concepts", "Speculative Logic",
                                            "Character Depth",
                                            "Immersive World-Building", "Ethical and Philosophical Themes"]
    assert all(len(d.criterion.split()) > 15 for d in DIMENSIONS)


def test_prompts_share_the_story_prefix_and_differ_in_the_dimension():
    prompts = [rubric_prompt(ITEM.task, ITEM.response, d) for d in DIMENSIONS]
    texts = [p[-1]["content"] for p in prompts]
    prefix = texts[0][: texts[0].index("Dimension:")]
    assert ITEM.response in prefix and all(t.startswith(prefix) for t in texts)
    assert SCALE in prefix  # the shared scale is read once per story, before the dimension
    assert all(p[0] == prompts[0][0] for p in prompts)
    assert all(d.name in t for d, t in zip(DIMENSIONS, texts, strict=True))


def test_empty_story_is_refused():
    with pytest.raises(ValueError, match="story is empty"):
        rubric_prompt("p", "   ", DIMENSIONS[0])


@pytest.mark.parametrize("reply, score", [("4", 4.0), (" 3\n", 3.0), ("Score: 5", 5.0), ("4/5", 4.0),
                                           ("I would give it a 2 out of 5.", 2.0), ("Reasoning... SCORE: 1", 1.0),
                                           ("3.5", 3.5), ("0", 0.0)])
def test_parse_score_reads_the_score(reply, score):
    assert parse_score(reply) == score


@pytest.mark.parametrize("reply", ["", "excellent story", "7", "Score: 9", "-", "10/10"])
def test_parse_score_returns_none_without_a_score_on_the_scale(reply):
    assert parse_score(reply) is None


@given(st.integers(0, 5))
def test_parse_score_reads_any_bare_digit(k):
    assert parse_score(str(k)) == k


def test_expected_score_by_hand():
    # 0.5 * 2 + 0.25 * 4 + 0.25 * 5 = 1 + 1 + 1.25 = 3.25
    assert expected_score({"0": 0, "1": 0, "2": 0.5, "3": 0, "4": 0.25, "5": 0.25}) == pytest.approx(3.25)


@given(st.lists(st.floats(0.001, 1), min_size=6, max_size=6))
def test_expected_score_lies_in_range(weights):
    value = expected_score(dict(zip(ANSWERS, weights, strict=True)))
    assert 0 <= value <= 5


def test_mean_of_samples_skips_missing_and_is_none_when_all_missing():
    assert mean_of_samples([4, None, 2]) == 3.0
    assert mean_of_samples([None, None]) is None


def test_expected_mode_reads_digit_distribution():
    lm = ScriptedBackend(lambda p, i: "", answer_logprobs={"0": -30, "1": -30, "2": -30, "3": -30, "4": math.log(0.5),
                                                           "5": math.log(0.5)})
    scores = RubricJudge(lm).expected(ITEM)
    assert [s.dimension for s in scores] == [d.key for d in DIMENSIONS]
    assert all(s.mode == "expected" and s.score == pytest.approx(4.5, abs=1e-3) for s in scores)
    assert scores[0].coverage == pytest.approx(1.0, abs=1e-3)
    assert len(lm.seen) == 5


def test_sampled_mode_averages_repeats_in_one_batch():
    replies = {0: "4", 1: "Score: 2", 2: "3"}
    lm = ScriptedBackend(lambda p, i: replies[i])
    scores = RubricJudge(lm, sampling=SAMPLING.merge(n=3)).sampled(ITEM)
    assert len(lm.seen) == 5  # five prompts, one generate call, no retries
    assert all(s.score == 3.0 and s.samples == [4.0, 2.0, 3.0] and s.retries == 0 for s in scores)


def test_unreadable_reply_is_retried_with_a_reminder():
    def reply(prompt, i):
        return "5" if REMINDER in prompt_text(prompt) else ("great story" if i == 0 else "3")
    lm = ScriptedBackend(reply)
    s = RubricJudge(lm, sampling=SAMPLING.merge(n=2), max_retries=1).sampled(ITEM)[0]
    assert s.samples == [5.0, 3.0] and s.retries == 1 and s.score == 4.0
    retry = [p for p in lm.seen if REMINDER in prompt_text(p)][0]
    assert retry[-2] == {"role": "assistant", "content": "great story"}


def test_reply_unreadable_after_retries_is_missing_with_raw_reply():
    lm = ScriptedBackend(lambda p, i: "a wonderful tale")
    s = RubricJudge(lm, sampling=SAMPLING.merge(n=3), max_retries=2).sampled(ITEM)[0]
    assert s.score is None and s.samples == [None, None, None]
    assert s.raw == ["a wonderful tale"] * 3 and s.retries == 6


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError, match="mode"):
        RubricJudge(ScriptedBackend(lambda p, i: "1")).score(ITEM, "greedy")


def test_run_rubric_resumes_without_duplicates(tmp_path):
    path = tmp_path / "scores.jsonl"
    lm = CachedBackend(ScriptedBackend(lambda p, i: "2"), cache=None)
    judge = RubricJudge(lm, sampling=SAMPLING.merge(n=1))
    items = [ITEM, JudgeItem("s2", "p", "another story")]
    run_rubric(judge, items[:1], path, "sampled", progress=False)
    calls = len(lm.inner.seen)
    out = run_rubric(judge, items, path, "sampled", progress=False)
    assert len(lm.inner.seen) == calls + 5  # only s2 was graded the second time
    assert len(out) == 10 and {s.story_id for s in out} == {"s1", "s2"}
    assert len(read_scores(path)) == 10


def test_run_rubric_rejects_duplicate_ids(tmp_path):
    judge = RubricJudge(ScriptedBackend(lambda p, i: "2"))
    with pytest.raises(ValueError, match="duplicate item_id"):
        run_rubric(judge, [ITEM, ITEM], tmp_path / "s.jsonl", "expected", progress=False)
