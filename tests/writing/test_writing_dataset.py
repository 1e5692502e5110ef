"""SciFi-100 loading, prompt ids, subsets and files in the same format."""

from __future__ import annotations

import json

import pytest

from llmcreativity.writing.dataset import category_slug, load_scifi, save_scifi, select_prompts


def test_paper_file_has_100_prompts_in_10_categories():
    items = load_scifi()
    assert len(items) == 100
    assert len({it.category for it in items}) == 10


def test_prompt_ids_are_unique_and_built_from_category_and_index():
    items = load_scifi()
    assert len({it.prompt_id for it in items}) == 100
    assert items[0].prompt_id == "strong-voice-00"
    assert items[-1].prompt_id == "effective-dialogue-09"


def test_category_slug_drops_punctuation_and_curly_quotes():
    assert category_slug("Show, Don’t Tell") == "show-don-t-tell"


def test_select_prompts_takes_first_of_each_category_in_file_order():
    chosen = select_prompts(load_scifi(), n_categories=3, per_category=1)
    assert [c.prompt_id for c in chosen] == ["strong-voice-00", "imagery-and-sensory-details-00",
                                             "conflict-and-tension-00"]


def test_select_prompts_skip_takes_the_prompts_after_the_first_of_each_category():
    items = load_scifi()
    chosen = select_prompts(items, n_categories=2, per_category=2, skip=3)
    assert [c.prompt_id for c in chosen] == ["strong-voice-03", "strong-voice-04", "imagery-and-sensory-details-03",
                                             "imagery-and-sensory-details-04"]
    published = select_prompts(items, n_categories=2, per_category=3)
    assert not {c.prompt_id for c in select_prompts(items, n_categories=2, per_category=3, skip=3)} & {
        c.prompt_id for c in published}
    assert select_prompts(items, skip=8, n_categories=1) == [i for i in items if i.prompt_id in (
        "strong-voice-08", "strong-voice-09")]


def test_select_prompts_without_skip_is_todays_selection_for_every_size():
    items = load_scifi()
    for n_categories in (None, 1, 4):
        for per_category in (None, 1, 3):
            assert select_prompts(items, n_categories=n_categories, per_category=per_category) == [
                it for it in items if it.category in list(dict.fromkeys(i.category for i in items))[:n_categories]
                and (per_category is None or it.index < per_category)]
            assert select_prompts(items, n_categories=n_categories, per_category=per_category, skip=0) == \
                select_prompts(items, n_categories=n_categories, per_category=per_category)


def test_select_prompts_rejects_a_negative_skip():
    with pytest.raises(ValueError, match="skip=-1"):
        select_prompts(load_scifi(), skip=-1)


def test_select_prompts_rejects_zero():
    with pytest.raises(ValueError, match="n_categories=0"):
        select_prompts(load_scifi(), n_categories=0)


def test_saved_file_loads_back_with_the_same_ids(tmp_path):
    path = save_scifi({"Pacing": ["Write a fast story.", "Write a slow one."]}, tmp_path / "d.json")
    items = load_scifi(path)
    assert [(i.prompt_id, i.text) for i in items] == [("pacing-00", "Write a fast story."),
                                                      ("pacing-01", "Write a slow one.")]


def test_missing_file_names_the_path_and_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="SciFi-100 dataset file not found.*LLMCREATIVITY_DATA"):
        load_scifi(tmp_path / "nope.json")


def test_wrong_shape_is_a_clear_error(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"Pacing": []}))
    with pytest.raises(ValueError, match="category 'Pacing'.*not a non-empty list"):
        load_scifi(p)


def test_empty_prompt_is_a_clear_error(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"Pacing": ["ok prompt", "  "]}))
    with pytest.raises(ValueError, match=r"empty or non-string prompts at \[1\]"):
        load_scifi(p)
