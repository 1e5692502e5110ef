"""Semantic entropy across writers: first drafts versus final versions."""

import math

import pytest

from llmcreativity.entropy.drafts import draft_revision_entropy
from llmcreativity.writing.transcript import Message, Transcript


class FirstWordJudge:
    identity = "first-word"
    calls = 0

    def entails(self, pairs, context=None):
        return [a.split()[0] == b.split()[0] for a, b in pairs]


def story(author, rnd, text, kind=None):
    return Message(id=f"review/p1/r{rnd}/{author}", framework="review", prompt_id="p1", author=author, round=rnd,
                   kind=kind or ("draft" if rnd == 0 else "revision"), prompt=[], visible=(), text=text, story=text)


def transcript(messages):
    t = Transcript("review", "p1")
    for m in messages:
        t.messages.append(m)
    return t


def test_drafts_and_final_versions_get_their_own_entropy():
    t = transcript([story("a", 0, "robots win"), story("b", 0, "aliens land"), story("c", 0, "time loops"),
                    story("a", 1, "aliens again"), story("b", 1, "aliens land"), story("c", 1, "time loops")])
    df = draft_revision_entropy([t], FirstWordJudge()).set_index("phase")
    assert df.loc["first drafts", "se_discrete"] == pytest.approx(math.log(3))
    # final: aliens, aliens, time -> 2/3, 1/3
    expected = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert df.loc["final versions", "se_discrete"] == pytest.approx(expected)
    assert df.loc["final versions", "clusters"] == 2 and df.loc["first drafts", "writers"] == 3


def test_writer_without_revision_keeps_the_draft_as_final_version():
    t = transcript([story("a", 0, "robots win"), story("b", 0, "robots lose"), story("a", 1, "aliens come")])
    df = draft_revision_entropy([t], FirstWordJudge()).set_index("phase")
    assert df.loc["final versions", "clusters"] == 2 and df.loc["first drafts", "clusters"] == 1


def test_single_writer_or_no_revision_rounds_are_skipped():
    solo = transcript([story("a", 0, "x y"), story("a", 1, "z w")])
    no_rounds = transcript([story("a", 0, "x y"), story("b", 0, "z w")])
    assert draft_revision_entropy([solo, no_rounds], FirstWordJudge()).empty
