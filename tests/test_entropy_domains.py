"""Problem loaders (MacGyver, SciFi-100) and the step prompt."""

import pandas as pd
import pytest

from llmcreativity.entropy.domains import MACGYVER_PROMPT, SCIFI_PROMPT, macgyver_problems, scifi_problems
from llmcreativity.paths import data_dir


def test_macgyver_keeps_only_solvable_problems():
    df = pd.read_excel(data_dir() / "macgyver" / "problem_solution_pair.xlsx", engine="openpyxl")
    problems = macgyver_problems()
    assert len(problems) == int((df["Solvable?"] == "Yes").sum())
    solvable_ids = {f"macgyver-{i}" for i in df.loc[df["Solvable?"] == "Yes", "ID"]}
    assert {p.id for p in problems} == solvable_ids


def test_macgyver_limit_takes_the_first_rows():
    assert [p.id for p in macgyver_problems(limit=3)] == [p.id for p in macgyver_problems()[:3]]


def test_macgyver_rejects_a_file_without_its_columns(tmp_path):
    f = tmp_path / "x.xlsx"
    pd.DataFrame({"ID": [1], "Problem": ["p"]}).to_excel(f, index=False)
    with pytest.raises(ValueError, match="Solvable"):
        macgyver_problems(f)


def test_missing_file_error_says_how_to_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="LLMCREATIVITY_DATA"):
        macgyver_problems(tmp_path / "nope.xlsx")


def test_scifi_has_100_unique_prompts_interleaving_categories():
    problems = scifi_problems()
    assert len(problems) == 100 and len({p.id for p in problems}) == 100
    assert len({p.id.rsplit("-", 1)[0] for p in problems[:10]}) == 10


def test_render_lists_chosen_steps_then_opens_the_next():
    prompt = MACGYVER_PROMPT.render("Fix it.", ["Find glue.", "Apply glue."])
    assert "Problem: Fix it." in prompt
    assert prompt.endswith("Step 1: Find glue.\nStep 2: Apply glue.\nStep 3:")


def test_scifi_prompt_asks_for_sentences():
    assert SCIFI_PROMPT.render("A robot dreams.", []).endswith("Sentence 1:")


@pytest.mark.parametrize("text, stop", [("STOP", True), ("STOP.", True), ("**STOP**", True),
                                        ("Stop the leak with tape", False), ("STOPPER it", False), ("", False)])
def test_stop_word_is_matched_as_the_first_word(text, stop):
    assert MACGYVER_PROMPT.is_stop(text) is stop
