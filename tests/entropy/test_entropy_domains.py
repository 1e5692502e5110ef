"""Problem loaders (MacGyver, SciFi-100) and the step prompt."""

import pandas as pd
import pytest

from llmcreativity.entropy.domains import (
    MACGYVER_PROMPT,
    SCIFI_PROMPT,
    hypogen_astro_problems,
    macgyver_problems,
    scifi_problems,
)
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


def test_hypogen_astro_loads_the_90_usable_problems_with_stable_ids():
    problems = hypogen_astro_problems()
    assert len(problems) == 90 and len({p.id for p in problems}) == 90
    assert all(p.domain == "hypogen-astro" and p.text and p.text.lower() != "not applicable" for p in problems)
    assert "hypogen-astro-12" not in {p.id for p in problems}  # data row 12 is the "Not applicable" row
    assert problems[0].id == "hypogen-astro-1" and problems[0].text.startswith("How can young stellar objects")
    assert [p.id for p in hypogen_astro_problems(limit=2)] == ["hypogen-astro-1", "hypogen-astro-2"]


def test_hypogen_astro_missing_file_and_missing_columns_say_how_to_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="hypogen-astro.*LLMCREATIVITY_DATA"):
        hypogen_astro_problems(tmp_path / "nope.csv")
    f = tmp_path / "x.csv"
    pd.DataFrame({"Question": ["q"]}).to_csv(f, index=False)
    with pytest.raises(ValueError, match="Problem"):
        hypogen_astro_problems(f)


def test_hypogen_astro_runs_through_the_step_wise_protocol_on_a_scripted_model(tmp_path):
    from entropy_helpers import FirstWordJudge, GreedyAwareBackend
    from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings
    from llmcreativity.entropy.entropy_tables import chain_table, model_step_table
    from llmcreativity.entropy.grid import run_grid
    from llmcreativity.llm import CachedBackend, ScriptedEmbedder

    def sample(prompt, i):
        return "STOP" if prompt.count("\nStep ") > 2 else ["Model the light curve", "Fit a spectrum"][i % 2]

    def greedy(prompt):  # the greedy continuation ends the chain after two steps
        return "STOP" if prompt.count("\nStep ") > 2 else "Model the light curve"

    lm = CachedBackend(GreedyAwareBackend(sample, greedy), cache=None)
    problems = {"hypogen-astro": hypogen_astro_problems(limit=2)}
    run = run_grid(["smollm2-135m"], FirstWordJudge(), problems, [StepwiseSettings(STEP_SAMPLING.merge(n=4),
                   step_cap=4)], tmp_path / "chains.jsonl", load=lambda name: lm)
    assert len(run.chains) == 2 and all(c.domain == "hypogen-astro" and c.ended == "stop" for c in run.chains)
    assert all("Approach:" in p and "astrophysics" in p for p in lm.inner.sampled.seen)
    assert run.chains[0].solution == ("Model the light curve", "Model the light curve")

    steps = model_step_table(run.chains, ScriptedEmbedder(lambda t: [1.0, 1.0, 1.0], identity="constant"), run.names)
    table = chain_table(steps, run.chains, {p.id: p.text for p in problems["hypogen-astro"]})
    assert set(table["domain"]) == {"hypogen-astro"} and table["se_discrete"].gt(0).all()
