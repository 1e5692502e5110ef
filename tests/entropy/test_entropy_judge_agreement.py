"""The entailment-validation chapter's judge set and its repeated agreement with the coders."""

from __future__ import annotations

import pandas as pd

from entropy_helpers import FirstWordJudge
from llmcreativity.entropy import EmbeddingSimilarityJudge
from llmcreativity.entropy.judge_agreement import entailment_judges, repeated_agreement
from llmcreativity.llm import ScriptedEmbedder


def ideas():
    return pd.DataFrame({"id": range(6), "round_id": [1] * 6,
                         "idea_content": ["doorstop now", "doorstop heavy", "hat", "hat big", "jewel", "jewel ring"],
                         "ali": [0, 0, 1, 1, 2, 2], "krish": [0, 0, 1, 1, 1, 1]})


def test_entailment_judges_names_one_embedding_judge_per_threshold():
    judges = entailment_judges([], [0.5], ["Yes", "No"], ScriptedEmbedder(), [0.5, 0.9])
    assert list(judges) == ["embedding cos>=0.5", "embedding cos>=0.9"]
    assert all(isinstance(j, EmbeddingSimilarityJudge) for j in judges.values())


def test_repeated_agreement_draws_one_sample_per_repeat_with_fresh_judges():
    made = []

    def make():
        made.append(FirstWordJudge(ignore_case=True))
        return {"first word": made[-1]}

    table = repeated_agreement(ideas(), 1, 6, 2, make, seed=0)
    assert list(table["repeat"].unique()) == [0, 1] and len(made) == 2
    row = table[(table["method"] == "first word") & (table["reference"] == "ali")]
    assert list(row["ari"]) == [1.0, 1.0] and (table["seconds"] >= 0).all()
