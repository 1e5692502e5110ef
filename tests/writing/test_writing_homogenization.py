"""Homogenization by round: versions carried forward, similarity of the agents' stories."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llmcreativity.llm import ScriptedEmbedder
from llmcreativity.writing.homogenization import homogenization, versions_by_round
from llmcreativity.writing.transcript import Message, Transcript


def story(t: Transcript, author: str, r: int, text: str) -> None:
    kind = "draft" if r == 0 else "revision"
    t.add(Message(f"{author}{r}", t.framework, t.prompt_id, author, r, kind, [{"role": "user", "content": "w"}], (),
                  text, story=text))


def make() -> Transcript:
    t = Transcript("discussion", "p")
    story(t, "A", 0, "red planet dust")
    story(t, "B", 0, "blue ocean waves")
    story(t, "A", 1, "blue ocean waves")
    return t


def test_versions_carry_an_unrevised_agent_forward():
    v = versions_by_round({("discussion", "p"): make()})
    assert v[v["round"] == 1].set_index("agent").story.to_dict() == {"A": "blue ocean waves", "B": "blue ocean waves"}


def test_similarity_rises_when_agents_converge():
    h = homogenization(versions_by_round({("discussion", "p"): make()}), ScriptedEmbedder())
    assert h.cosine.tolist() == pytest.approx([0.0, 1.0])
    assert h.self_bleu.iloc[1] == pytest.approx(1.0)
    assert h.self_bleu.iloc[0] < 0.2


def test_fewer_than_two_stories_give_nan():
    t = Transcript("single", "p")
    story(t, "A", 0, "lonely story")
    h = homogenization(versions_by_round({("single", "p"): t}), ScriptedEmbedder())
    assert h.n_stories.tolist() == [1]
    assert math.isnan(h.cosine.iloc[0]) and math.isnan(h.self_bleu.iloc[0])


def test_empty_stories_are_left_out():
    t = Transcript("review", "p")
    story(t, "A", 0, "one two")
    story(t, "B", 0, "one two")
    story(t, "C", 0, "")
    h = homogenization(versions_by_round({("review", "p"): t}), ScriptedEmbedder())
    assert h.n_stories.tolist() == [2]
    assert np.isclose(h.cosine.iloc[0], 1.0)


def test_mean_ci_worked_by_hand():
    import pandas as pd

    from llmcreativity.writing.report import mean_ci
    # mean 2, sd 1, n 3: half-width = t_{0.975,2} * 1 / sqrt(3) = 4.302653 / 1.732051 = 2.484138
    m, lo, hi = mean_ci(pd.Series([1.0, 2.0, 3.0]))
    assert (m, lo, hi) == pytest.approx((2.0, 2.0 - 2.484138, 2.0 + 2.484138), abs=1e-6)


def test_summary_has_one_row_per_framework_and_round():
    from llmcreativity.writing.report import summarize_homogenization
    h = homogenization(versions_by_round({("discussion", "p"): make()}), ScriptedEmbedder())
    s = summarize_homogenization(h)
    assert s[["framework", "round", "prompts"]].values.tolist() == [["discussion", 0, 1], ["discussion", 1, 1]]
