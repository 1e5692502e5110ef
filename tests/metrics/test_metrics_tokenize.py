import pytest

from llmcreativity.metrics.tokenize import tokenize


def test_whitespace_tokenizer_is_case_sensitive_and_keeps_punctuation():
    assert tokenize("The Moon, the moon.", "whitespace") == ["The", "Moon,", "the", "moon."]


def test_word_tokenizer_lowercases_and_keeps_inner_apostrophes_and_hyphens():
    assert tokenize("Don't open the air-lock, Dr. Smith!", "words") == ["don't", "open", "the", "air-lock", "dr",
                                                                        "smith"]


def test_unknown_tokenizer_is_refused():
    with pytest.raises(ValueError, match="choose one of"):
        tokenize("x", "bpe")
