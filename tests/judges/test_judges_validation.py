import json

import pytest

from llmcreativity.judges.validation import items_and_labels, load_labelled


def write_jsonl(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")


def test_load_labelled_reads_jsonl_and_maps_labels(tmp_path):
    p = tmp_path / "mine.jsonl"
    write_jsonl(p, [{"item_id": 1, "problem": "P", "solution": "S", "label": "valid"},
                    {"item_id": 2, "problem": "P", "solution": "T", "label": 0}])
    df = load_labelled(p)
    items, labels = items_and_labels(df)
    assert labels == {"1": True, "2": False} and items[1].response == "T"


def test_load_labelled_reads_csv(tmp_path):
    p = tmp_path / "mine.csv"
    p.write_text("item_id,problem,solution,label\na,P,S,yes\nb,P,S,no\n")
    assert load_labelled(p)["valid"].tolist() == [True, False]


def test_load_labelled_names_missing_columns(tmp_path):
    p = tmp_path / "bad.jsonl"
    write_jsonl(p, [{"item_id": 1, "problem": "P", "label": 1}])
    with pytest.raises(ValueError, match="solution"):
        load_labelled(p)


def test_load_labelled_rejects_unknown_label_values(tmp_path):
    p = tmp_path / "bad.jsonl"
    write_jsonl(p, [{"item_id": 1, "problem": "P", "solution": "S", "label": "maybe"}])
    with pytest.raises(ValueError, match="maybe"):
        load_labelled(p)
