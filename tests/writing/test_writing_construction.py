"""Building a SciFi-100-format dataset: candidate parsing, screening, diversity selection."""

from __future__ import annotations

import numpy as np
import pytest

from llmcreativity.llm import ScriptedEmbedder
from llmcreativity.writing.construction import construct_dataset, farthest_point_order, parse_candidate, screen
from llmcreativity.writing.dataset import load_scifi, save_scifi
from writing_helpers import CountingBackend


@pytest.mark.parametrize("reply, expected", [
    ("1. Write about a robot who learns to paint.", "Write about a robot who learns to paint."),
    ('Prompt: "Write about a robot who learns to paint."', "Write about a robot who learns to paint."),
    ("Sure! Here is a prompt:\n\n**Write about a robot.**\n\nHope it helps", "Write about a robot."),
    ("   ", ""),
])
def test_parse_candidate_strips_numbering_labels_and_quotes(reply, expected):
    assert parse_candidate(reply) == expected


def test_farthest_point_order_worked_by_hand():
    # Items 0 and 1 are near-twins, 2 is far from both; 3 sits between.
    s = np.array([[1.0, 0.95, 0.1, 0.5], [0.95, 1.0, 0.2, 0.5], [0.1, 0.2, 1.0, 0.4], [0.5, 0.5, 0.4, 1.0]])
    # mean off-diagonal similarity: [0.517, 0.55, 0.233, 0.467] -> start at 2;
    # then max similarity to {2}: 0 -> 0.1, 1 -> 0.2, 3 -> 0.4 -> pick 0; then max to {2, 0}: 1 -> 0.95, 3 -> 0.5 -> 3.
    assert farthest_point_order(s, 3) == [2, 0, 3]


def test_screen_assigns_each_failure_its_status():
    long = "Write " + "very " * 80 + "long."
    replies = [
        ("Write a story about a whale that sings to a dying star in the void.", "stop"),
        ("Write a story about a whale that sings to a dying star in the void.", "stop"),
        ("Write about a thing.", "stop"),
        (long, "stop"),
        ("Write a story about a detective on Titan who cannot trust her own", "length"),
        ("", "stop"),
        ("Describe a market on a generation ship where people trade memories for water rations.", "stop"),
        ("Describe a market on a generation ship where people trade memories for water rations!", "stop"),
    ]
    out = {c.index: c for c in screen("Pacing", replies, ScriptedEmbedder(), keep=5)}
    assert out[1].status == "duplicate"
    assert out[2].status == "too_short"
    assert out[3].status == "too_long"
    assert out[4].status == "incomplete"
    assert out[5].status == "parse_failure"
    assert out[7].status == "near_duplicate"
    assert {out[0].status, out[6].status} == {"kept"}


def test_screen_keeps_at_most_keep_and_marks_the_rest_not_selected():
    replies = [(f"Write a story about planet {w} where the rivers flow upward every night.", "stop")
               for w in ["Zed", "Orion", "Kappa", "Vega"]]
    statuses = [c.status for c in screen("Pacing", replies, ScriptedEmbedder(), keep=2, near_duplicate=0.999)]
    assert statuses.count("kept") == 2 and statuses.count("not_selected") == 2


def test_construct_dataset_writes_a_file_every_stage_can_load(tmp_path):
    names = iter(["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"])
    lm = CountingBackend(
        lambda p, i: f"Write a tale where explorer {next(names)} maps a glass desert under twin suns today.")
    data, candidates = construct_dataset(lm, ScriptedEmbedder(), ("Pacing", "Strong Voice"), n_candidates=4, keep=2,
                                         near_duplicate=0.999)
    assert lm.batches == [2]
    assert {k: len(v) for k, v in data.items()} == {"Pacing": 2, "Strong Voice": 2}
    assert len(candidates) == 8
    items = load_scifi(save_scifi(data, tmp_path / "built.json"))
    assert [i.prompt_id for i in items] == ["pacing-00", "pacing-01", "strong-voice-00", "strong-voice-01"]


def test_construct_dataset_fails_clearly_when_nothing_survives():
    lm = CountingBackend(lambda p, i: "")
    with pytest.raises(RuntimeError, match="no candidate for 'Pacing' survived"):
        construct_dataset(lm, ScriptedEmbedder(), ("Pacing",), n_candidates=2, keep=1)
