"""Entailment judges: the LLM yes/no judge, the NLI cross-encoder judge and the embedding approximation."""

import math
from collections.abc import Callable

import pytest

from llmcreativity.entropy.entailment import (
    EmbeddingSimilarityJudge,
    EntailmentJudge,
    LLMEntailmentJudge,
    NLIEntailmentJudge,
)
from llmcreativity.llm import CacheMiss, ScriptedBackend, ScriptedEmbedder


class YesWhenSharedWordBackend(ScriptedBackend):
    """Scripted double whose p(Yes) is 0.9 when the two statements share their first word, else 0.2."""

    def __init__(self):
        super().__init__(lambda p, i: "")

    def answer_probs(self, prompt, answers):
        text = prompt[-1]["content"]
        a = text.split("Statement A: ")[1].split()[0]
        b = text.split("Statement B: ")[1].split()[0]
        p_yes = 0.9 if a == b else 0.2
        self.answer_logprobs = {answers[0]: math.log(p_yes), answers[1]: math.log(1 - p_yes)}
        return super().answer_probs(prompt, answers)


def test_llm_judge_reads_yes_probability():
    judge = LLMEntailmentJudge(YesWhenSharedWordBackend())
    assert judge.entails([("cut the rope", "cut it"), ("cut the rope", "tie it")]) == [True, False]


def test_llm_judge_asks_with_chat_messages_and_yes_no_answers():
    lm = YesWhenSharedWordBackend()
    judge = LLMEntailmentJudge(lm)
    judge.entails([("A thing", "B thing")], context="Fix the sink")
    msgs = lm.seen[-1]
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert "Statement A: A thing" in msgs[1]["content"] and "Statement B: B thing" in msgs[1]["content"]
    assert "Fix the sink" in msgs[1]["content"]
    assert msgs[1]["content"].rstrip().endswith("Answer Yes or No.")


def test_llm_judge_threshold_decides():
    lm = ScriptedBackend(lambda p, i: "", answer_logprobs={"Yes": math.log(0.3), "No": math.log(0.7)})
    assert LLMEntailmentJudge(lm, threshold=0.5).entails([("a", "b")]) == [False]
    assert LLMEntailmentJudge(lm, threshold=0.25).entails([("a", "b")]) == [True]


def test_llm_judge_counts_calls():
    judge = LLMEntailmentJudge(YesWhenSharedWordBackend())
    judge.entails([("a", "b")] * 3)
    judge.entails([("a", "b")])
    assert judge.calls == 4


@pytest.mark.parametrize("kwargs", [{"threshold": 1.0}, {"answers": ("Yes", "Yes")}])
def test_llm_judge_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError):
        LLMEntailmentJudge(YesWhenSharedWordBackend(), **kwargs)


def test_judges_reject_malformed_pairs():
    with pytest.raises(ValueError, match="premise, hypothesis"):
        LLMEntailmentJudge(YesWhenSharedWordBackend()).entails(["just one string"])


def letter_embedder() -> ScriptedEmbedder:
    """Embeds a text by the counts of the letters a, b, c."""
    return ScriptedEmbedder(lambda t: [t.count(c) + 1e-6 for c in "abc"], identity="letters")


def test_embedding_judge_thresholds_cosine():
    judge = EmbeddingSimilarityJudge(letter_embedder(), threshold=0.9)
    assert judge.entails([("aa", "a"), ("aa", "bb"), ("ab", "a")]) == [True, False, False]


def test_embedding_judge_is_symmetric_and_labelled_an_approximation():
    judge = EmbeddingSimilarityJudge(letter_embedder(), threshold=0.5)
    assert judge.entails([("ab", "a")]) == judge.entails([("a", "ab")])
    assert "approximation" in judge.identity


def test_embedding_judge_encodes_each_text_once():
    emb = letter_embedder()
    judge = EmbeddingSimilarityJudge(emb)
    judge.entails([("a", "b"), ("b", "a")])
    judge.entails([("a", "c")])
    assert sorted(emb.seen) == ["a", "b", "c"]
    assert judge.calls == 3


@pytest.mark.parametrize("make", [lambda **kw: LLMEntailmentJudge(YesWhenSharedWordBackend(), **kw),
                                  lambda **kw: EmbeddingSimilarityJudge(letter_embedder(), **kw)],
                         ids=["llm", "embedding"])
def test_every_judge_keeps_the_protocol(make: Callable[..., EntailmentJudge]):
    judge = make(threshold=0.6)
    assert judge.entails([]) == [] and judge.calls == 0
    pairs = [("a cat", "a dog"), ("b cat", "a cat"), ("a cat", "a cat")]
    decisions = judge.entails(pairs, context="Name a pet")
    assert len(decisions) == 3 and all(type(d) is bool for d in decisions)  # plain bools, one per pair
    assert decisions[2] is True and judge.calls == 3
    assert make(threshold=0.95).identity != judge.identity  # the identity names the settings that decide


def _tiny_nli_model(folder, favoured: int):
    """A 1-layer BERT classifier whose output is fixed by its bias: class `favoured` always wins."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "cat", "dog"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=16, num_labels=3,
                     id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
                     label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2})
    model = BertForSequenceClassification(cfg)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 0.0, 0.0]))
        model.classifier.bias[favoured] = 5.0
    model.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("favoured, expected", [(2, True), (0, False), (1, False)])
def test_nli_judge_says_entails_only_for_the_entailment_label(tmp_path, favoured, expected):
    judge = NLIEntailmentJudge(_tiny_nli_model(tmp_path, favoured), batch_size=2, cache=tmp_path / "calls.sqlite")
    assert judge.entails([("a cat", "a dog"), ("b", "a"), ("cat", "dog")]) == [expected] * 3
    assert judge.calls == 3


def test_nli_judge_rejects_a_model_without_entailment_label(tmp_path):
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n")
    BertTokenizer(str(tmp_path / "vocab.txt")).save_pretrained(tmp_path)
    cfg = BertConfig(vocab_size=6, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
                     num_labels=2, id2label={0: "NEGATIVE", 1: "POSITIVE"}, label2id={"NEGATIVE": 0, "POSITIVE": 1})
    BertForSequenceClassification(cfg).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="entailment"):
        NLIEntailmentJudge(tmp_path, cache=None).entails([("a", "a")])


def test_nli_verdicts_are_cached_and_replayed_without_the_model(tmp_path):
    cache = tmp_path / "calls.sqlite"
    pairs = [("a cat", "a dog"), ("b", "a")]
    (tmp_path / "m").mkdir()
    live = NLIEntailmentJudge(_tiny_nli_model(tmp_path / "m", 2), cache=cache)
    assert live.entails(pairs, context="pets") == [True, True]
    replay = NLIEntailmentJudge(tmp_path / "m", cache=cache, cache_only=True)
    assert replay.entails(pairs, context="pets") == [True, True]
    assert "_model" not in vars(replay)  # answered from the cache: the weights were never loaded
    with pytest.raises(CacheMiss, match="entail of nli-entailment"):
        replay.entails([("a cat", "a bird")], context="pets")
