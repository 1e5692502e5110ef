import math

import numpy as np
import pytest

from llmcreativity.llm import ScriptedBackend
from llmcreativity.metrics import first_words, mean_surprisal, surprisal_from_logprobs


def test_surprisal_is_minus_mean_logprob():
    # -(ln 1/2 + ln 1/4) / 2 = 1.5 ln 2
    assert surprisal_from_logprobs([math.log(0.5), math.log(0.25)]) == pytest.approx(1.5 * math.log(2))


def test_mean_surprisal_reads_teacher_forced_scores_from_backend():
    backend = ScriptedBackend(lambda prompt, i: "")  # scores every whitespace token at log p = -1
    s = mean_surprisal(backend, "the red ship", context="Write a story.")
    assert s.mean == pytest.approx(1.0)
    assert s.tokens == ("the", "red", "ship")
    assert s.per_token == (1.0, 1.0, 1.0)
    assert s.model == "scripted"


def test_max_words_scores_only_the_first_words_with_their_spacing():
    assert first_words("  The red\nship  sails on.", 3) == "  The red\nship"
    assert first_words("The red ship", 5) == first_words("The red ship", 0) == "The red ship"
    backend = ScriptedBackend(lambda prompt, i: "")
    assert mean_surprisal(backend, "the red ship sails", context="Write.", max_words=2).tokens == ("the", "red")
    with pytest.raises(ValueError, match="max_words=-1"):
        first_words("a b", -1)


def test_surprisal_rejects_empty_text_and_bad_logprobs():
    with pytest.raises(ValueError, match="text is empty"):
        mean_surprisal(ScriptedBackend(lambda p, i: ""), " ", context="Write.")
    with pytest.raises(ValueError, match="empty"):
        surprisal_from_logprobs([])
    with pytest.raises(ValueError, match="<= 0"):
        surprisal_from_logprobs([0.5])


@pytest.mark.slow
def test_surprisal_under_smollm2_is_lower_for_fluent_than_scrambled_text():
    from llmcreativity.llm import get_backend

    lm = get_backend("smollm2-135m")
    fluent = mean_surprisal(lm, "The ship landed on the moon and the crew stepped out.", context="A story:\n")
    scrambled = mean_surprisal(lm, "Moon crew the out landed stepped ship the and on the.", context="A story:\n")
    assert fluent.model == lm.identity and len(fluent.per_token) == len(fluent.tokens) > 5
    assert 0 < fluent.mean < scrambled.mean


# -- the two forms of a story's surprisal (`story_surprisal`, `surprisal_context`) ------------------------------------

class Recording:
    """A backend that passes `score` to `inner` and keeps each (context, continuation) it was asked."""

    def __init__(self, inner):
        self.inner, self.asked = inner, []
        self.identity = inner.identity

    def score(self, context, continuation):
        self.asked.append((context, continuation))
        return self.inner.score(context, continuation)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    from llm_tiny import tiny_backend, tiny_model_dir

    return tiny_backend(tiny_model_dir(tmp_path_factory.mktemp("tiny")), dtype="float32")


def test_unconditioned_surprisal_scores_the_story_without_its_prompt(tiny_lm):
    from llmcreativity.metrics import story_surprisal

    story = "The ship drifted past the moon and the crew slept on."
    lm = Recording(tiny_lm)
    alone = [story_surprisal(lm, story, prompt, context="none") for prompt in ("Write about a ship.", "Cats.")]
    assert lm.asked == [("The", " ship drifted past the moon and the crew slept on.")] * 2  # no prompt read
    assert alone[0] == alone[1]
    # the same tokens as the story after its first word, each scored after the story's earlier tokens only
    direct = tiny_lm.score("The", " ship drifted past the moon and the crew slept on.")
    assert alone[0].tokens == tuple(direct.tokens) and alone[0].mean == pytest.approx(-np.mean(direct.logprobs))
    # the prompt-conditioned form reads the prompt, so it changes with it
    after = [story_surprisal(tiny_lm, story, prompt) for prompt in ("Write about a ship.", "Cats.")]
    assert after[0].mean != pytest.approx(after[1].mean)
    assert len(after[0].tokens) > len(alone[0].tokens)  # it also scores the first word


def test_unconditioned_surprisal_cuts_to_max_words_first_and_refuses_a_one_word_story():
    from llmcreativity.metrics import story_surprisal

    lm = Recording(ScriptedBackend(lambda p, i: ""))
    assert story_surprisal(lm, "  the red ship sails on", "P", context="none", max_words=3).tokens == ("red", "ship")
    assert lm.asked == [("  the", " red ship")]
    with pytest.raises(ValueError, match="at least two words"):
        story_surprisal(lm, "ship.", "P", context="none")


def test_a_bad_surprisal_context_names_the_parameter_and_the_choices():
    from llmcreativity.metrics import check_surprisal_context, story_surprisal

    with pytest.raises(ValueError, match=r"surprisal_context='story' is not one of \['prompt', 'none'\]"):
        check_surprisal_context("story")
    with pytest.raises(ValueError, match=r"context='nothing' is not one of"):
        story_surprisal(ScriptedBackend(lambda p, i: ""), "a b", "P", context="nothing")


def test_the_prompt_form_asks_exactly_the_recorded_calls():
    """Every surprisal call of the committed smoke record's evaluation stage, asked again by the prompt-conditioned
    form from the prompt and story it was made of, has the recorded cache key: the records replay."""
    import gzip
    import json

    from llmcreativity.llm.response_cache import cache_key
    from llmcreativity.metrics import PROMPT_CONTEXT, story_surprisal
    from llmcreativity.paths import REPO_ROOT

    keys = REPO_ROOT / "tests/data/records/smoke/evaluation/keys.1.jsonl.gz"
    calls = [json.loads(line) for line in gzip.open(keys, "rt")]
    recorded = [c for c in calls if c["method"] == "score" and c["role"] == "surprisal_scorer"]
    assert recorded
    head, tail = PROMPT_CONTEXT.split("{prompt}")
    for call in recorded:
        context, story = call["inputs"]["context"], call["inputs"]["continuation"]
        assert context.startswith(head) and context.endswith(tail)
        lm = Recording(ScriptedBackend(lambda p, i: ""))
        story_surprisal(lm, story, context[len(head):-len(tail)], max_words=10)  # the smoke profile's surprisal_words
        assert [cache_key(call["identity"], "score", *a) for a in lm.asked] == call["keys"]
