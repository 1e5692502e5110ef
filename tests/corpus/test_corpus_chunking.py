from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcreativity.corpus.chunking import chunk_book, chunk_spans, sentence_spans


def test_sentences_split_after_terminal_punctuation_but_not_abbreviations():
    text = 'Mr. Smith went to Washington. He said "Hello!" Then he left.\n\nA new paragraph'
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Mr. Smith went to Washington.",
        'He said "Hello!"',
        "Then he left.",
        "A new paragraph",
    ]


def test_chunks_pack_whole_sentences_up_to_the_word_limit():
    text = "One two three. Four five six. Seven eight nine. Ten."
    chunks = [(text[s:e], n) for s, e, n in chunk_spans(text, chunk_words=6, min_words=0)]
    assert chunks == [("One two three. Four five six.", 6), ("Seven eight nine. Ten.", 4)]


def test_a_sentence_longer_than_the_limit_is_cut_at_words():
    text = "a b c d e f g."
    assert [text[s:e] for s, e, _ in chunk_spans(text, chunk_words=3, min_words=0)] == ["a b c", "d e f", "g."]


def test_a_short_last_chunk_is_merged_into_the_previous_one():
    text = "One two three. Four."
    assert [n for _, _, n in chunk_spans(text, chunk_words=3, min_words=2)] == [4]


def test_chunks_keep_provenance():
    text = "First sentence here. Second one."
    c = chunk_book(text, book="b.txt", author="wells", year=1895, chunk_words=3, min_words=0)
    assert [(x.book, x.author, x.year, x.index, x.text) for x in c] == [
        ("b.txt", "wells", 1895, 0, "First sentence here."),
        ("b.txt", "wells", 1895, 1, "Second one."),
    ]


sentences = st.lists(
    st.lists(st.sampled_from(["Mars", "ship", "red", "the", "Dr.", "moon"]), min_size=1, max_size=15).map(
        lambda ws: " ".join(ws) + "."
    ),
    min_size=1,
    max_size=30,
)


@given(sentences, st.integers(1, 20))
def test_chunks_are_ordered_slices_that_cover_every_word(sents, limit):
    text = " ".join(sents)
    spans = chunk_spans(text, chunk_words=limit, min_words=limit // 5)
    assert " ".join(text[s:e] for s, e, _ in spans).split() == text.split()
    assert all(a[1] <= b[0] for a, b in pairwise(spans))
    assert all(n == len(text[s:e].split()) and n <= limit + limit // 5 for s, e, n in spans)


def test_bad_chunk_sizes_are_refused():
    with pytest.raises(ValueError, match="chunk_words"):
        chunk_spans("a b.", chunk_words=0)
    with pytest.raises(ValueError, match="min_words"):
        chunk_spans("a b.", chunk_words=5, min_words=9)
