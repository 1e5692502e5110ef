"""Validation of clustering against the MuseScorer human coders."""

import pandas as pd
import pytest

from entropy_helpers import FirstWordJudge
from llmcreativity.data.musescorer import load_musescorer
from llmcreativity.entropy.musescorer_validation import agreement_table, partition_agreement, sample_round


def test_identical_partitions_agree_perfectly_under_relabeling():
    assert partition_agreement([0, 0, 1, 2], [5, 5, 9, 7]) == {"ari": 1.0, "nmi": 1.0}


def test_ari_worked_by_hand():
    # a = {0,1}{2,3}, b = {0,1,2}{3}: pair-counting gives ARI = (1 - 2*3/6) / (0.5*(2+3) - 1) = 0 / 1.5 = 0
    assert partition_agreement([0, 0, 1, 1], [0, 0, 0, 1])["ari"] == pytest.approx(0.0)


def test_unequal_partitions_are_rejected():
    with pytest.raises(ValueError, match="equally long"):
        partition_agreement([0, 1], [0])


def test_loader_keeps_ideas_and_both_coders():
    df = load_musescorer()
    assert list(df.columns) == ["id", "round_id", "idea_content", "ali", "krish"]
    assert len(df) == 5703


def test_sample_round_draws_from_one_round_reproducibly():
    df = load_musescorer()
    a, b = sample_round(df, 2, 30, seed=1), sample_round(df, 2, 30, seed=1)
    assert len(a) == 30 and set(a["round_id"]) == {2} and a.equals(b)


def test_sample_round_rejects_unknown_round():
    with pytest.raises(ValueError, match="round_id"):
        sample_round(load_musescorer(), 9, 5)


def test_agreement_table_scores_judge_and_coders_per_round():
    ideas = pd.DataFrame({
        "id": range(6), "round_id": [1, 1, 1, 2, 2, 2],
        "idea_content": ["doorstop now", "doorstop heavy", "hat", "doorstop", "jewel", "jewel ring"],
        "ali": [0, 0, 1, 0, 1, 1], "krish": [3, 3, 3, 0, 1, 1],
    })
    judge = FirstWordJudge(ignore_case=True)
    table = agreement_table(ideas, {"first word": judge}).set_index(["method", "reference"])
    # judge: round 1 {doorstop now, doorstop heavy}{hat}, round 2 {doorstop}{jewel, jewel ring} == ali exactly;
    # the two "doorstop" ideas of different rounds stay apart
    assert table.loc[("first word", "ali"), "ari"] == pytest.approx(1.0)
    expected = partition_agreement([0, 0, 1, 2, 3, 3], [0, 0, 0, 1, 2, 2])["ari"]
    assert table.loc[("coder ali", "krish"), "ari"] == pytest.approx(expected)
    assert table.loc[("first word", "ali"), "judge_calls"] == judge.calls > 0
    assert set(table["n_ideas"]) == {6}
