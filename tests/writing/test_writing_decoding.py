"""The writing pilot's decoding settings, its choice rule and its prompt ranges."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from llmcreativity.pipeline.stages import PUBLISHED_SIZES, STAGES
from llmcreativity.writing import STORY_SAMPLING, WritingConfig, load_scifi, select_prompts
from llmcreativity.writing.decoding import (
    CHOSEN_DECODING,
    DECODINGS,
    applicable_decodings,
    check_decodings,
    check_pilot_prompts,
    choose_decoding,
    decoding_sampling,
    save_choice,
    screen_table,
)


def test_the_chosen_setting_is_a_known_one_and_every_setting_is_a_valid_config() -> None:
    assert CHOSEN_DECODING in DECODINGS
    for name in DECODINGS:
        decoding_sampling(name, STORY_SAMPLING)  # GenerateConfig validates its controls
    with pytest.raises(ValueError, match="not a known setting"):
        decoding_sampling("no-loops-please", STORY_SAMPLING)


def test_no_control_leaves_a_writing_runs_stored_settings_as_the_published_run_stored_them() -> None:
    plain = WritingConfig.for_words(300, sampling=decoding_sampling("none", STORY_SAMPLING))
    assert plain.to_dict() == WritingConfig.for_words(300).to_dict()
    banned = WritingConfig.for_words(300, sampling=decoding_sampling("penalty-1.1+4gram", STORY_SAMPLING))
    stored = banned.to_dict()
    assert stored["no_repeat_ngram"] == 4 and stored["repetition_penalty"] == 1.1
    assert WritingConfig.from_dict(stored) == banned
    assert banned.feedback_config().no_repeat_ngram == 4  # feedback is decoded alike


def test_the_rule_takes_the_lowest_share_and_a_tie_goes_to_the_lighter_setting() -> None:
    assert choose_decoding({"none": 0.5, "min-p+freq-pres": 0.2, "no-repeat-4gram": 0.3}) == "min-p+freq-pres"
    assert choose_decoding({"min-p+freq-pres": 0.1, "penalty-1.1+4gram": 0.1, "none": 0.6}) == "penalty-1.1+4gram"
    with pytest.raises(ValueError, match="known settings"):
        choose_decoding({"none": 0.5, "beam": 0.0})
    with pytest.raises(ValueError, match="each once"):
        check_decodings(["none", "none"])


def test_the_screen_table_counts_each_setting_and_the_choice_file_says_why(tmp_path) -> None:
    rows = [("none", True, True, False, False, True, 300),
            ("none", True, False, True, False, False, 280),
            ("none", False, False, False, False, False, 250),
            ("no-repeat-4gram", False, False, False, False, False, 290),
            ("no-repeat-4gram", True, False, False, True, False, 310),
            ("no-repeat-4gram", False, False, False, False, True, 300)]
    table = pd.DataFrame(rows, columns=["decoding", "degenerate", "loop", "echo", "salad", "cut", "words"])
    screen = screen_table(table, {"none": 60.0, "no-repeat-4gram": 90.0})
    assert list(screen["decoding"]) == ["none", "no-repeat-4gram"]
    first = screen.iloc[0]
    assert first["stories"] == 3 and first["degenerate"] == pytest.approx(2 / 3)
    assert first["ci_low"] < 2 / 3 < first["ci_high"] and first["ended"] == pytest.approx(2 / 3)
    assert first["seconds_per_story"] == pytest.approx(20.0) and first["words"] == pytest.approx(830 / 3)
    choice = save_choice(tmp_path / "choice.json", screen, ["p-02", "p-03"])
    assert choice["chosen"] == "no-repeat-4gram"
    stored = json.loads((tmp_path / "choice.json").read_text())
    assert stored["chosen"] == "no-repeat-4gram" and stored["prompts"] == ["p-02", "p-03"]
    assert stored["shares"]["none"] == pytest.approx(2 / 3)


def test_the_pilots_prompts_are_neither_the_published_runs_nor_each_others() -> None:
    published = PUBLISHED_SIZES["baselines"]["per_category"]
    with pytest.raises(ValueError, match="skip at least 2"):
        check_pilot_prompts(published, 1, 2, 4)
    with pytest.raises(ValueError, match="confirmation's prompts are new"):
        check_pilot_prompts(published, 2, 2, 3)
    stage = next(s for s in STAGES if s.name == "writing_pilot")
    p = stage.profiles["published"]
    check_pilot_prompts(published, 2, p["screen_per_category"], 4)
    scifi = load_scifi()
    ran = {i.prompt_id for i in select_prompts(scifi, n_categories=7, per_category=published)}
    screen = {i.prompt_id for i in select_prompts(scifi, n_categories=p["screen_categories"],
                                                  per_category=p["screen_per_category"], skip=2)}
    confirm = {i.prompt_id for i in select_prompts(scifi, n_categories=p["confirm_categories"],
                                                   per_category=p["confirm_per_category"], skip=4)}
    assert screen and confirm and not (ran & screen) and not (ran & confirm) and not (screen & confirm)


def test_an_endpoint_writer_screens_only_the_setting_without_controls() -> None:
    local = "llama.cpp:qwen2.5-coder-0.5b:qwen2.5-coder-0.5b-instruct.gguf:sha256-1d96:row-seeded"
    assert applicable_decodings(local, list(DECODINGS)) == (list(DECODINGS), [])
    kept, dropped = applicable_decodings("openai:http://127.0.0.1:8080/v1:qwen", ["no-repeat-4gram", "none"])
    assert kept == ["none"] and dropped == ["no-repeat-4gram"]
