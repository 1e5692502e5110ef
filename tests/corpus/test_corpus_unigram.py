from collections import Counter

from llmcreativity.corpus.unigram import counts_from_table, counts_table, unigram_counts


def test_unigram_counts_pool_all_texts():
    assert unigram_counts(["a b a", "b c"], "whitespace") == Counter({"a": 2, "b": 2, "c": 1})


def test_counts_table_round_trips_and_has_probabilities():
    counts = Counter({"x": 3, "y": 1})
    table = counts_table(counts)
    assert table["token"].tolist() == ["x", "y"]
    assert table["prob"].tolist() == [0.75, 0.25]
    assert counts_from_table(table) == counts
