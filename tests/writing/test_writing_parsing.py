"""Story extraction: markers, empty and over-long replies are handled and flagged."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from llmcreativity.writing.parsing import cut_to_words, extract_feedback, extract_story


def test_text_after_the_marker_is_the_story():
    p = extract_story("Sure, here it is.\nSTORY:\nThe moon hummed.", max_words=50)
    assert p.text == "The moon hummed."
    assert p.flags == ()


def test_markdown_marker_is_recognized():
    assert extract_story("**Story:** The moon hummed.", max_words=50).text == "The moon hummed."


def test_missing_marker_uses_whole_reply_and_flags_it():
    p = extract_story("The moon hummed.", max_words=50)
    assert (p.text, p.flags) == ("The moon hummed.", ("missing_marker",))


def test_empty_reply_is_flagged_empty():
    assert extract_story("   ", max_words=50).flags == ("empty",)


def test_marker_with_nothing_after_it_is_flagged_empty():
    assert extract_story("STORY:\n  \nThe End", max_words=50).flags == ("empty",)


def test_trailing_the_end_is_dropped():
    assert extract_story("STORY: It rained on Mars. The End.", max_words=50).text == "It rained on Mars."


def test_over_long_story_is_cut_at_a_sentence_end_and_flagged():
    p = extract_story("STORY: One two three. Four five six. Seven eight", max_words=7)
    assert (p.text, p.flags) == ("One two three. Four five six.", ("over_long",))


def test_length_finish_is_flagged_truncated():
    assert extract_story("STORY: It rained", max_words=50, finish_reason="length").flags == ("truncated",)


def test_cut_without_sentence_end_keeps_first_words():
    assert cut_to_words("a b c d e", 3) == "a b c"


def test_empty_feedback_is_flagged():
    assert extract_feedback(" \n").flags == ("empty",)


@given(st.text(), st.integers(min_value=1, max_value=40))
def test_extracted_story_never_exceeds_the_word_budget(reply, budget):
    assert len(extract_story(reply, max_words=budget).text.split()) <= budget


@given(st.text())
def test_flags_say_empty_exactly_when_the_story_is_empty(reply):
    p = extract_story(reply, max_words=100)
    assert ("empty" in p.flags) == (p.text == "")


def test_a_story_ending_with_the_words_the_end_inside_a_sentence_keeps_them():
    assert extract_story("STORY: It was the beginning of the end.",
                         max_words=50).text == "It was the beginning of the end."


def test_copied_quote_delimiters_are_removed():
    assert extract_story("<<<\n<<<<<\nSTORY: Rain on Io.\n>>>", max_words=50).text == "Rain on Io."
    assert extract_feedback("<<<\nGood imagery.\n>>>").text == "Good imagery."
