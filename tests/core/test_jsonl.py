import pytest

from llmcreativity.jsonl import append_jsonl, read_jsonl


def test_missing_file_reads_as_no_rows(tmp_path):
    assert read_jsonl(tmp_path / "none.jsonl") == []


def test_rows_round_trip_in_order_with_unicode(tmp_path):
    p = tmp_path / "sub" / "r.jsonl"
    append_jsonl(p, [{"id": "a", "text": "naïve — 猫"}])
    append_jsonl(p, [{"id": "b"}, {"id": "c"}])
    assert [r["id"] for r in read_jsonl(p)] == ["a", "b", "c"] and read_jsonl(p)[0]["text"] == "naïve — 猫"


def test_torn_last_line_is_ignored_then_cut_by_the_next_append(tmp_path):
    p = tmp_path / "r.jsonl"
    append_jsonl(p, [{"id": "a"}])
    with p.open("a") as f:
        f.write('{"id": "b", "tex')  # killed mid-write
    assert read_jsonl(p) == [{"id": "a"}]
    append_jsonl(p, [{"id": "b"}])
    assert read_jsonl(p) == [{"id": "a"}, {"id": "b"}]
    assert p.read_text().count("\n") == 2


def test_a_corrupt_line_before_the_end_names_file_and_line(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text('{"id": "a"}\nnot json\n{"id": "c"}\n')
    with pytest.raises(ValueError, match=r"r\.jsonl, line 2"):
        read_jsonl(p)
