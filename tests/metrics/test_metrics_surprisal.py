import math

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
