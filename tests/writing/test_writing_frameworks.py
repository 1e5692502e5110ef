"""Each framework's information-flow rule, proven from transcripts produced with a scripted model."""

from __future__ import annotations

import pytest

from llmcreativity.llm.types import prompt_text
from llmcreativity.writing.dataset import PromptItem
from llmcreativity.writing.frameworks import (
    STORY_SAMPLING,
    LLMDebate,
    LLMDiscussion,
    LLMReview,
    LLMTeacher,
    SingleAgent,
    WritingConfig,
)
from llmcreativity.writing.frameworks.prompts import OWN_STORY, REVISION_INSTRUCTION, revise_instruction
from llmcreativity.writing.persona import HUMANISTIC, TEACHER
from llmcreativity.writing.transcript import STORY_KINDS, Message, Transcript
from llmcreativity.writing.visibility import leaks, visibility_edges
from writing_helpers import CountingBackend, unique_story_responder

ITEM = PromptItem("pacing-00", "Pacing", 0, "A courier races a solar storm to deliver a vaccine to a Martian outpost.")
CONFIG = WritingConfig(STORY_SAMPLING.merge(max_tokens=64), feedback_max_tokens=32, max_story_words=60)


def run(framework):
    lm = CountingBackend(unique_story_responder())
    return framework.run(lm, ITEM), lm


def stories_of(t: Transcript, author: str) -> list[Message]:
    return t.select(kind=STORY_KINDS, author=author)


# --- LLM Review -------------------------------------------------------------------------------

def test_review_makes_three_batched_calls_drafts_reviews_revisions():
    _, lm = run(LLMReview(config=CONFIG))
    assert lm.batches == [3, 6, 3]


def test_review_no_agent_reviews_itself():
    t, _ = run(LLMReview(config=CONFIG))
    reviews = t.select(kind="review")
    assert len(reviews) == 6
    assert all(r.author != r.target for r in reviews)


def test_review_reviews_see_exactly_the_targets_initial_draft():
    t, _ = run(LLMReview(config=CONFIG))
    for r in t.select(kind="review"):
        draft = t.select(kind="draft", author=r.target)[0]
        assert r.visible == (draft.id,)
        assert draft.content in prompt_text(r.prompt)


def test_review_revision_prompts_hold_no_other_agents_story():
    t, _ = run(LLMReview(config=CONFIG))
    for rev in t.select(kind="revision"):
        text = prompt_text(rev.prompt)
        for other in t.select(kind=STORY_KINDS):
            if other.author != rev.author:
                assert other.content not in text, f"{rev.id} contains {other.id}"


def test_review_revision_sees_own_draft_and_exactly_the_reviews_of_it():
    t, _ = run(LLMReview(config=CONFIG))
    for rev in t.select(kind="revision"):
        own = t.select(kind="draft", author=rev.author)[0]
        received = {r.id for r in t.select(kind="review", target=rev.author)}
        assert set(rev.visible) == {own.id} | received
        assert len(received) == 2


def test_review_every_writer_delivers_one_revised_story():
    t, _ = run(LLMReview(config=CONFIG))
    assert [(m.author, m.kind, m.round) for m in t.finals()] == [
        ("Humanistic", "revision", 1), ("Futuristic", "revision", 1), ("Ecological", "revision", 1)]


def test_review_transcript_visibility_is_honest():
    t, _ = run(LLMReview(config=CONFIG))
    assert leaks(t) == []


# --- LLM Discussion ---------------------------------------------------------------------------

def test_discussion_every_agent_sees_the_others_latest_versions():
    t, _ = run(LLMDiscussion(rounds=3, config=CONFIG))
    writers = t.writers()
    for rev in t.select(kind="revision"):
        expected = {t.latest_version(w, up_to_round=rev.round - 1).id for w in writers}
        assert set(rev.visible) == expected
        for v in expected:
            assert t.get(v).content in prompt_text(rev.prompt)


def test_discussion_one_batched_call_per_round():
    _, lm = run(LLMDiscussion(rounds=2, config=CONFIG))
    assert lm.batches == [3, 3, 3]


def test_discussion_transcript_visibility_is_honest():
    t, _ = run(LLMDiscussion(rounds=2, config=CONFIG))
    assert leaks(t) == []


# --- LLM Teacher ------------------------------------------------------------------------------

def test_teacher_critique_sees_only_that_students_latest_version():
    t, _ = run(LLMTeacher(rounds=2, config=CONFIG))
    for c in t.select(kind="critique"):
        assert c.author == TEACHER.name
        assert c.visible == (t.latest_version(c.target, up_to_round=c.round - 1).id,)


def test_teacher_student_revision_sees_own_version_and_its_own_critique_only():
    t, _ = run(LLMTeacher(rounds=2, config=CONFIG))
    for rev in t.select(kind="revision"):
        critique = t.select(kind="critique", round=rev.round, target=rev.author)[0]
        assert rev.visible == (t.latest_version(rev.author, up_to_round=rev.round - 1).id, critique.id)


def test_teacher_no_student_sees_another_students_story():
    t, _ = run(LLMTeacher(rounds=2, config=CONFIG))
    for m in t.select(kind=STORY_KINDS):
        for other in t.select(kind=STORY_KINDS):
            if other.author != m.author:
                assert other.content not in prompt_text(m.prompt)
    assert leaks(t) == []


# --- LLM Debate -------------------------------------------------------------------------------

def test_debate_challenges_see_every_writers_previous_version():
    t, _ = run(LLMDebate(n_agents=3, rounds=2, config=CONFIG))
    for c in t.select(kind="challenge"):
        assert set(c.visible) == {t.latest_version(w, up_to_round=c.round - 1).id for w in t.writers()}


def test_debate_revision_sees_own_version_and_the_other_writers_challenges_of_that_round():
    t, _ = run(LLMDebate(n_agents=3, rounds=2, config=CONFIG))
    for rev in t.select(kind="revision"):
        others = {c.id for c in t.select(kind="challenge", round=rev.round) if c.author != rev.author}
        assert set(rev.visible) == {t.latest_version(rev.author, up_to_round=rev.round - 1).id} | others
    assert leaks(t) == []


def test_debate_writers_share_one_role_without_personas():
    t, _ = run(LLMDebate(n_agents=2, config=CONFIG))
    systems = {m.prompt[0]["content"].rsplit(" You are ", 1)[0] for m in t.select(kind="draft")}
    assert len(systems) == 1
    assert [m.author for m in t.select(kind="draft")] == ["Writer1", "Writer2"]


def test_debate_batches_drafts_challenges_revisions():
    _, lm = run(LLMDebate(n_agents=3, rounds=1, config=CONFIG))
    assert lm.batches == [3, 3, 3]


# --- Single agent and shared behaviour --------------------------------------------------------

def test_single_agent_writes_one_story_from_the_prompt_alone():
    t, lm = run(SingleAgent(persona=HUMANISTIC, config=CONFIG))
    assert lm.batches == [1]
    (m,) = t.messages
    assert (m.author, m.kind, m.visible) == ("Humanistic", "draft", ())
    assert ITEM.text in prompt_text(m.prompt)
    assert m.prompt[0] == {"role": "system", "content": HUMANISTIC.description}


# --- What every framework asks of a revision ---------------------------------------------------

def _instruction_of(revision: Message) -> str:
    """The text of a revision prompt after its last quoted block: what the writer is asked to do."""
    return revision.prompt[-1]["content"].rsplit(">>>", 1)[1].strip()


def test_revision_instruction_is_identical_across_frameworks():
    frameworks = [LLMTeacher(config=CONFIG, rounds=2), LLMDebate(config=CONFIG, rounds=2),
                  LLMDiscussion(config=CONFIG, rounds=2), LLMReview(config=CONFIG)]
    instructions = {}
    for framework in frameworks:
        t, _ = run(framework)
        revisions = t.select(kind="revision")
        assert revisions, framework.name
        instructions[framework.name] = {_instruction_of(m) for m in revisions}
        for m in revisions:
            assert m.prompt[-1]["content"].startswith(f"Writing prompt: {ITEM.text}\n\n{OWN_STORY}:\n<<<\n")
    assert all(found == {revise_instruction(CONFIG.max_story_words)} for found in instructions.values()), instructions
    assert str(CONFIG.max_story_words) in revise_instruction(CONFIG.max_story_words)


def test_revision_prompts_differ_only_in_what_the_writer_is_shown():
    # Strip the shared head (prompt + own story) and the shared instruction: what is left is the material shown.
    shown = {}
    for framework in (LLMTeacher(config=CONFIG), LLMDebate(config=CONFIG), LLMDiscussion(config=CONFIG),
                      LLMReview(config=CONFIG)):
        t, _ = run(framework)
        rev = t.select(kind="revision")[0]
        own = t.latest_version(rev.author, up_to_round=0).content
        text = rev.prompt[-1]["content"]
        head = f"Writing prompt: {ITEM.text}\n\n{OWN_STORY}:\n<<<\n{own}\n>>>\n\n"
        assert text.startswith(head) and text.endswith("\n\n" + revise_instruction(CONFIG.max_story_words))
        shown[framework.name] = text[len(head):-len(revise_instruction(CONFIG.max_story_words))]
    labels = {name: body.split(":\n<<<", 1)[0] for name, body in shown.items()}
    assert labels == {"teacher": "Your teacher's feedback", "debate": "Challenge from Writer2",
                      "discussion": "Latest story by the Futuristic writer", "review": "Review 1"}
    for word in ("perspective", "take up", "debate is over", "defend", "discussion"):
        assert word not in REVISION_INSTRUCTION.lower()


def test_usage_is_tagged_with_the_framework_name():
    _, lm = run(LLMReview(config=CONFIG))
    summary = lm.usage_summary()
    assert list(summary["tag"]) == ["review"]
    assert int(summary["calls"].iloc[0]) == 12


def test_empty_revision_keeps_previous_version_and_flags_it():
    def respond(prompt, i):
        if OWN_STORY + ":" in prompt[-1]["content"]:
            return ""
        return "STORY: A first draft about the rings of Saturn singing."
    lm = CountingBackend(respond)
    t = LLMReview(config=CONFIG).run(lm, ITEM)
    for rev in t.select(kind="revision"):
        assert rev.story == "A first draft about the rings of Saturn singing."
        assert rev.flags == ("empty", "kept_previous")


def test_missing_marker_is_recorded_on_the_message():
    lm = CountingBackend(lambda p, i: "No marker here, just a story about Europa.")
    t = SingleAgent(config=CONFIG).run(lm, ITEM)
    assert t.messages[0].flags == ("missing_marker",)


def test_transcript_rejects_a_visible_id_that_is_not_earlier():
    t = Transcript("single", "p")
    with pytest.raises(ValueError, match="not earlier messages"):
        t.add(Message("x", "single", "p", "A", 0, "draft", [], ("future",), "text"))


def test_leaks_detects_undeclared_text_in_a_prompt():
    t = Transcript("review", "p")
    secret = "A secret draft about the ice moons of Jupiter."
    t.add(Message("a", "review", "p", "A", 0, "draft", [{"role": "user", "content": "go"}], (), secret, story=secret))
    t.add(Message("b", "review", "p", "B", 1, "revision", [{"role": "user", "content": secret}], (), "x", story="x"))
    assert leaks(t) == ["b contains the text of a without declaring it visible"]


def test_visibility_edges_list_who_read_whom():
    t, _ = run(LLMReview(config=CONFIG))
    edges = visibility_edges(t)
    assert len(edges) == 6 + 3 * 3
    assert not ((edges.reader_kind == "review") & (edges.reader == edges.seen_author)).any()


@pytest.mark.parametrize("make", [
    lambda: LLMTeacher(rounds=0),
    lambda: LLMDebate(n_agents=1),
    lambda: LLMDiscussion(personas=(HUMANISTIC, HUMANISTIC)),
    lambda: LLMReview(personas=(HUMANISTIC,)),
    lambda: WritingConfig(max_story_words=0),
    lambda: WritingConfig(STORY_SAMPLING.merge(n=2)),
])
def test_bad_framework_parameters_are_clear_errors(make):
    with pytest.raises(ValueError):
        make()


def test_backend_without_usage_accounting_is_a_clear_error():
    from llmcreativity.llm.scripted import ScriptedBackend
    with pytest.raises(TypeError, match="CachedBackend"):
        SingleAgent().run(ScriptedBackend(lambda p, i: "x"), ITEM)


def test_ngram_overlap_worked_by_hand():
    from llmcreativity.writing.visibility import ngram_overlap
    # source bigrams: (a b), (b c), (c d); text has (a b) and (c d) -> 2/3
    assert ngram_overlap("a b c d", "a b x c d", n=2) == pytest.approx(2 / 3)
    assert ngram_overlap("a", "a", n=2) == 0.0
    # excluding (a b) leaves (b c), (c d); only (c d) occurs -> 1/2
    assert ngram_overlap("a b c d", "a b x c d", n=2, exclude="a b") == pytest.approx(1 / 2)


STORIES = {"humanistic": "A grandmother teaches her android grandson to bake bread on the last night of Earth.",
           "futuristic": "Engineers fold a star into a pocket drive and argue over who gets to carry it.",
           "ecological": "Lichen on a terraformed moon learns to signal the colonists before each dust storm.",
           "1": "A grandmother teaches her android grandson to bake bread on the last night of Earth.",
           "2": "Engineers fold a star into a pocket drive and argue over who gets to carry it.",
           "3": "Lichen on a terraformed moon learns to signal the colonists before each dust storm."}


def quoting_responder(prompt, i):
    """Feedback that copies the first story quoted in its prompt; distinct stories per writer."""
    text = prompt[-1]["content"]
    if "Begin your reply with the line STORY:" not in text:
        return text.split("Story by", 1)[-1].split("<<<\n", 1)[1].split("\n>>>", 1)[0]
    system = prompt[0]["content"]
    key = system.split()[7] if "outlook" in system else system.rstrip(".").split("Writer")[-1].split()[0]
    return "STORY: " + STORIES[key]


def test_blind_review_passes_no_other_writers_text_even_when_reviews_quote_drafts():
    from llmcreativity.writing.visibility import story_exposure
    t = LLMReview(config=CONFIG).run(CountingBackend(quoting_responder), ITEM)
    assert story_exposure(t).max_overlap.tolist() == [0.0, 0.0, 0.0]


def test_debate_challenges_that_quote_stories_expose_them_to_other_writers():
    from llmcreativity.writing.visibility import story_exposure
    t = LLMDebate(n_agents=3, config=CONFIG).run(CountingBackend(quoting_responder), ITEM)
    assert story_exposure(t).max_overlap.tolist() == [0.0, 1.0, 1.0]


def test_feedback_is_passed_on_without_copied_delimiters():
    def respond(prompt, i):
        text = prompt[-1]["content"]
        return "STORY: A draft about tides on a moon of glass." if "Peer draft" not in text else "<<<\nNice tides.\n>>"
    t = LLMReview(config=CONFIG).run(CountingBackend(respond), ITEM)
    revision = t.select(kind="revision")[0]
    assert "<<<\nNice tides.\n>>>" in prompt_text(revision.prompt)
    assert all(r.content == "Nice tides." for r in t.select(kind="review"))


def test_leaks_accepts_text_explained_by_a_visible_message():
    t = Transcript("review", "p")
    draft = "A long draft about the ice moons of Jupiter and the miners who sing there."
    quote = "the ice moons of Jupiter and the miners"
    t.add(Message("d", "review", "p", "A", 0, "draft", [{"role": "user", "content": "go"}], (), draft, story=draft))
    t.add(Message("r1", "review", "p", "B", 1, "review", [{"role": "user", "content": draft}], ("d",), quote,
                  target="A"))
    t.add(Message("r2", "review", "p", "C", 1, "review", [{"role": "user", "content": draft}], ("d",), "fine",
                  target="A"))
    assert leaks(t) == []
