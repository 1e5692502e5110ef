"""The degeneracy measure on a looped text, a clean text, a paraphrase loop that no n-gram ban prevents, word salad
and a cut-off text, under the project's embedder all-minilm-l6-v2 (a few seconds once the model is assembled)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from llmcreativity.llm import get_embedder
from llmcreativity.writing.degeneracy import (
    ECHO_SHARE_LIMIT,
    degeneracy_table,
    degenerate_share,
    distinct_4gram_share,
    measure_degeneracy,
    story_sentences,
    writer_name,
)

CLEAN = ("Mara found the seed vault on the night the gardens failed. Its door was cold and older than the ship. "
         "Inside, the drawers held wheat from a planet none of the crew had seen. Her brother wanted to wake the "
         "sleepers and put them to work in the dying rows. The captain refused and locked the cryo deck behind a "
         "code only she knew. Mara spent three shifts testing the seeds in water taken from her own ration. On the "
         "fourth morning a single green thread split the husk. She carried the dish to the council and set it on "
         "the table between the two camps. Nobody spoke while the sprout leaned toward the strip light. Then her "
         "brother laughed, and the captain, for the first time in a year, sat down.")
LOOP = ("He starts to suspect that there might be a technology that could help him find his way back. As he "
        "explores the bunker, he finds that he can't help but feel the strange sound echoing through his walls. ") * 4
PARAPHRASE_LOOP = ("The engineers were deeply worried about the failing reactor core. "
                   "The technicians were very concerned about the broken reactor core. "
                   "Her engineers grew deeply worried about their failing reactor. "
                   "The crew was truly concerned about its damaged reactor core. "
                   "The engineers felt very worried over the failing reactor chamber. "
                   "Our technicians were deeply concerned with the broken reactor.")
"""One sentence said six times with a word or two swapped every few words, so that no word 4-gram repeats: what a
model under a no-repeat-4-gram ban writes when it loops."""
SALAD = ("Nebula quantum crimson whisper engine lattice forgotten harbor silent copper beacon drifting orchard "
         "velvet reactor comet archive spiral glacier lantern cipher meadow thunder orbit fragment ember horizon "
         "mosaic pilgrim circuit.")


@pytest.fixture(scope="module")
def embedder():
    return get_embedder("all-minilm-l6-v2", cache=None)


def test_a_clean_story_is_not_degenerate(embedder):
    (d,) = measure_degeneracy([CLEAN], embedder)
    assert not (d.loop or d.echo or d.salad or d.degenerate)
    assert d.repeated_sentences == 0 and d.distinct_4gram_share == 1.0 and d.sentences == 10
    assert 0.35 < d.function_word_share < 0.6 and not d.cut and not d.ends_mid_sentence


def test_a_looped_story_is_a_loop_and_an_echo(embedder):
    (d,) = measure_degeneracy([LOOP], embedder)
    assert d.loop and d.echo and d.degenerate
    assert d.repeated_sentences == 6 and d.distinct_4gram_share < 0.3 and d.echo_share == 1.0


def test_a_paraphrase_loop_passes_the_lexical_rule_but_not_the_embedding_signal(embedder):
    """What a no-repeat-4-gram ban cannot stop: no 4-gram repeats, most sentences have a near-copy."""
    (d,) = measure_degeneracy([PARAPHRASE_LOOP], embedder)
    assert distinct_4gram_share(PARAPHRASE_LOOP) == 1.0 and d.repeated_sentences == 0 and not d.loop
    assert d.echo and d.echo_share >= ECHO_SHARE_LIMIT and d.degenerate


def test_a_loop_rephrased_in_wholly_new_words_is_missed(embedder):
    """Where the echo signal errs: full paraphrases of one sentence score below its cosine threshold."""
    rephrased = ("The ship drifted slowly toward the dying star. Slowly, the vessel floated in the direction of the "
                 "fading sun. Their craft was carried gently to the expiring star. Little by little the starship "
                 "moved closer to the dimming sun. The spacecraft crept steadily toward that collapsing star.")
    (d,) = measure_degeneracy([rephrased], embedder)
    assert not d.loop and not d.echo and 0.5 < d.mean_nearest_cosine < 0.85


def test_word_salad_is_clean_to_the_repetition_signals_and_caught_by_the_function_words(embedder):
    """Heavy penalties make text like this: nothing repeats, so loop and echo call it clean; it has no function
    words at all, which the salad signal reads."""
    (d,) = measure_degeneracy([SALAD], embedder)
    assert not d.loop and not d.echo
    assert d.function_word_share == 0.0 and d.salad and d.degenerate


def test_salad_made_of_function_words_is_missed(embedder):
    """Where the salad signal errs: a jumble of closed-class words has plenty of them (the chapter says so)."""
    jumble = ("of the and which to it was by from their is for with as not been they that would could " * 2).strip()
    (d,) = measure_degeneracy([jumble + "."], embedder)
    assert not d.salad and d.function_word_share > 0.9


def test_a_cut_off_story_is_cut_apart_from_its_degeneracy(embedder):
    cut_text = CLEAN[:CLEAN.index("Nobody spoke") + len("Nobody spoke while the")]
    flagged, unflagged = measure_degeneracy([cut_text, cut_text], embedder, [["over_long", "truncated"], []])
    assert flagged.cut and flagged.ends_mid_sentence and not flagged.degenerate
    assert not unflagged.cut and unflagged.ends_mid_sentence  # the text shows the cut even where flags do not


def test_sentences_are_split_after_end_marks_lower_cased_and_kept_from_four_words():
    assert story_sentences("Run! The door is open now? yes. I SAW IT come back. ") == [
        "the door is open now?", "i saw it come back."]
    assert distinct_4gram_share("too short") == 1.0


def test_an_empty_story_and_a_one_sentence_story_are_measured_without_error(embedder):
    empty, one = measure_degeneracy(["", "A single short sentence here."], embedder)
    assert empty.words == 0 and math.isnan(empty.function_word_share) and not empty.degenerate
    assert one.sentences == 1 and one.echo_share == 0.0 and math.isnan(one.mean_nearest_cosine)


def test_bad_input_is_refused_naming_the_fix(embedder):
    with pytest.raises(TypeError, match=r"wrap it as \[text\]"):
        measure_degeneracy(CLEAN, embedder)
    with pytest.raises(ValueError, match="one flag list per story"):
        measure_degeneracy([CLEAN, LOOP], embedder, [[]])


def test_writer_names_are_the_registry_names_of_local_identities():
    assert writer_name("transformers:smollm2-135m:float32:row-seeded") == "smollm2-135m"
    assert writer_name("openai:http://h/v1:gpt") == "openai:http://h/v1:gpt" and writer_name("scripted") == "scripted"


def test_the_share_per_framework_has_a_wilson_interval(embedder):
    stories = pd.DataFrame({"framework": ["single", "single", "review", "review"], "model": ["m"] * 4,
                            "story": [CLEAN, LOOP, LOOP, PARAPHRASE_LOOP], "flags": [[], ["truncated"], [], []]})
    table = degeneracy_table(stories, embedder)
    assert list(table["degenerate"]) == [False, True, True, True] and list(table["cut"]) == [False, True, False,
                                                                                              False]
    share = degenerate_share(table).set_index("framework")
    assert set(share["model"]) == {"m"}
    assert share.loc["review", "degenerate"] == 1.0 and share.loc["single", "degenerate"] == 0.5
    assert share.loc["single", "ci_low"] == pytest.approx(0.0945, abs=1e-4)  # Wilson, 1 of 2
    assert share.loc["review", "ci_high"] == 1.0 and share.loc["review", "ci_low"] < 1.0


def test_the_claims_read_only_the_stories_and_runs_that_pass_when_asked(embedder):
    """`story_filter` "passing": paper A's comparisons drop a degenerate story (A1-A3) and a framework run with one
    degenerate version at any round (A4); a story or run the measure did not read is refused, not kept."""
    from llmcreativity.writing.degeneracy import check_story_filter, degenerate_runs, passing_runs, passing_stories

    stories = pd.DataFrame({"story_id": ["a", "b", "c"], "story": [CLEAN, LOOP, SALAD], "flags": [[], [], []],
                            "system": ["review", "review", "single"]})
    read = degeneracy_table(stories, embedder)
    assert list(passing_stories(stories, read)["story_id"]) == ["a"]
    with pytest.raises(ValueError, match="1 stories have no degeneracy reading .*first: d"):
        passing_stories(pd.concat([stories, stories.iloc[:1].assign(story_id="d")]), read)
    versions = pd.DataFrame({"framework": ["debate"] * 4 + ["review"] * 4, "prompt_id": ["p"] * 8,
                             "round": [0, 0, 1, 1] * 2, "agent": ["x", "y"] * 4,
                             "story": [CLEAN, CLEAN, CLEAN, LOOP, CLEAN, CLEAN, CLEAN, ""]})
    runs = degenerate_runs(versions, embedder).set_index("framework")
    assert runs.loc["debate", "degenerate"] and not runs.loc["review", "degenerate"]
    assert runs.loc["debate", "versions"] == 4 and runs.loc["review", "versions"] == 3  # the empty one unread
    homog = pd.DataFrame({"framework": ["debate", "debate", "review", "review"], "prompt_id": ["p"] * 4,
                          "round": [0, 1, 0, 1], "cosine": [0.1, 0.2, 0.1, 0.1]})
    assert set(passing_runs(homog, runs.reset_index())["framework"]) == {"review"}
    with pytest.raises(ValueError, match="no degeneracy reading .*'teacher', 'p'"):
        passing_runs(homog.assign(framework="teacher"), runs.reset_index())
    share = degenerate_share(runs.reset_index(), by=["framework"]).set_index("framework")
    assert share.loc["debate", "framework_runs"] == 1 and share.loc["debate", "degenerate"] == 1.0
    assert "loop" not in share
    assert check_story_filter("passing") == "passing"
    with pytest.raises(ValueError, match=r"story_filter 'some': use one of \['all', 'passing'\]"):
        check_story_filter("some")
