import json
import math
import os
import re

import pytest

from judge_helpers import scripted, user_of
from llmcreativity.dataclass_json import from_json, to_json
from llmcreativity.judges import (
    AnswerProbabilityJudge,
    ChatEvalJudge,
    Criterion,
    CriterionVerdict,
    JudgeItem,
    Judgement,
    RetrievalPanelJudge,
    SingleCallJudge,
    read_judgements,
    run_judge,
    validity_score,
)
from llmcreativity.judges.chateval import majority
from llmcreativity.judges.judgement import AgentVerdict
from llmcreativity.judges.retrieval_panel import extract_findings
from llmcreativity.judges.vector_store import NumpyVectorStore
from llmcreativity.llm import ScriptedEmbedder

VALID = Criterion("valid", "The solution solves the problem with the listed tools.")
ITEM = JudgeItem("p1", "Open a jar using a towel and a spoon.",
                 "Wrap the towel round the lid and twist; tap with the spoon.")


def agent_replies(confidence=None, verdicts=None, extra=None):
    """Responder: each agent writes two findings naming itself and its round, then a verdict."""
    confidence = confidence or {}
    verdicts = verdicts or {}
    counter = {}

    def reply(prompt, i):
        agent = agent_of(prompt)
        counter[agent] = counter.get(agent, 0) + 1
        n = counter[agent]
        lines = [f"- {agent} finding {n}a about towel grip", f"- {agent} finding {n}b about lid twist"]
        lines += (extra or {}).get(agent, [])
        v = verdicts.get(agent, "yes")
        return "\n".join(lines + [f"VERDICT: {v}", f"CONFIDENCE: {confidence.get(agent, 50)}"])

    return reply


def agent_of(prompt):
    """The agent a prompt is for: the role sentence sits in the system message (partitioned, ChatEval) or after the
    shared input in the user message (full view)."""
    return re.search(r"You are the (\w+ analyst)", "\n".join(m["content"] for m in prompt)).group(1)


def panel(lm, **kw):
    return RetrievalPanelJudge(lm=lm, embedder=ScriptedEmbedder(), criteria=(VALID,), **kw)


def prompts_of(lm, agent):
    return [p for p in lm.inner.seen if agent_of(p) == agent]


AGENT_NAMES = ("Problem analyst", "Solution analyst", "Criterion analyst")


def test_by_default_every_agent_reads_task_solution_and_criterion_then_its_role():
    lm = scripted(agent_replies())
    j = panel(lm, rounds=2, stop_confidence=2.0).judge(ITEM)
    assert {c.agent for c in j.calls} == set(AGENT_NAMES)
    for call in j.calls:
        user = user_of(call.messages)
        assert ITEM.task in user and ITEM.response in user and VALID.definition in user
        role = user.index(f"You are the {call.agent}")
        assert role > user.index(ITEM.task) and role > user.index(ITEM.response) and role > user.index(VALID.definition)
    assert j.criteria[0].decided_by in AGENT_NAMES and ITEM.response in user_of(j.calls[-1].messages)


def test_partitioned_ablation_gives_each_agent_only_its_own_input():
    lm = scripted(agent_replies())
    panel(lm, rounds=1, stop_confidence=2.0, views="partitioned").judge(ITEM)
    problem = user_of(prompts_of(lm, "Problem analyst")[0])
    solution = user_of(prompts_of(lm, "Solution analyst")[0])
    crit = user_of(prompts_of(lm, "Criterion analyst")[0])
    assert ITEM.task in problem and ITEM.response not in problem
    assert ITEM.response in solution and ITEM.task not in solution
    assert ITEM.task not in crit and ITEM.response not in crit and VALID.definition in crit


def test_shared_input_is_a_common_prefix_of_every_prompt_of_an_evaluation():
    extra = {"Criterion analyst": ["QUESTION to Problem analyst: is the spoon allowed?"]}
    j = panel(scripted(agent_replies(extra=extra)), rounds=3, k=2, stop_confidence=2.0).judge(ITEM)
    rendered = ["\n".join(m["role"] + ":" + m["content"] for m in c.messages) for c in j.calls]
    prefix = os.path.commonprefix(rendered)
    assert ITEM.task in prefix and ITEM.response in prefix and VALID.definition in prefix
    assert not any(f"You are the {a}" in prefix for a in AGENT_NAMES) and "Stored findings" not in prefix
    assert len({c.round for c in j.calls}) == 4  # three rounds and the final decision share it


def test_unknown_views_value_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match="views='mixed'.*'full'.*'partitioned'"):
        panel(None, views="mixed")


def test_early_stop_off_runs_every_round_even_when_everyone_is_sure():
    lm = scripted(agent_replies(confidence={a: 100 for a in AGENT_NAMES}))
    on = panel(lm, rounds=3, stop_confidence=0.8).judge(ITEM).criteria[0]
    off = panel(lm, rounds=3, stop_confidence=1.01).judge(ITEM)
    assert on.rounds_used == 1 and on.stopped_early
    assert off.criteria[0].rounds_used == 3 and not off.criteria[0].stopped_early
    assert len([c for c in off.calls if c.purpose == "discuss"]) == 3 * 3


def test_agents_see_only_top_k_findings_not_the_history():
    lm = scripted(agent_replies())
    j = panel(lm, rounds=3, k=2, stop_confidence=2.0).judge(ITEM)
    for call in j.calls:
        assert len(call.retrieved) <= 2
        shown = [line for line in user_of(call.messages).splitlines() if line.startswith("- (")]
        assert len(shown) == len(call.retrieved)
    last = [c for c in j.calls if c.round == 3][0]
    assert len(last.retrieved) == 2  # 12+ findings are stored by then


def test_first_speaker_of_a_new_evaluation_sees_an_empty_store():
    lm = scripted(agent_replies())
    judge = panel(lm, rounds=1, stop_confidence=2.0)
    judge.judge(ITEM)
    j2 = judge.judge(JudgeItem("p2", "Another task.", "Another answer."))
    assert j2.calls[0].retrieved == [] and "(none yet)" in user_of(j2.calls[0].messages)


def test_retrieval_scores_are_the_cosine_of_query_and_finding():
    lm = scripted(agent_replies())
    j = panel(lm, rounds=2, k=3, stop_confidence=2.0).judge(ITEM)
    emb = ScriptedEmbedder()
    call = [c for c in j.calls if c.retrieved][0]
    q = emb.encode([call.query])[0]
    for r in call.retrieved:
        assert r.score == pytest.approx(float(emb.encode([r.text])[0] @ q), abs=1e-5)
    assert [r.rank for r in call.retrieved] == list(range(1, len(call.retrieved) + 1))
    assert [r.score for r in call.retrieved] == sorted((r.score for r in call.retrieved), reverse=True)


def test_discussion_stops_early_when_mean_confidence_reaches_threshold():
    lm = scripted(agent_replies(confidence={"Problem analyst": 90, "Solution analyst": 80, "Criterion analyst": 70}))
    d = panel(lm, rounds=3, stop_confidence=0.8).judge(ITEM).criteria[0]
    assert d.rounds_used == 1 and d.stopped_early


def test_discussion_runs_all_rounds_below_threshold():
    lm = scripted(agent_replies(confidence={"Problem analyst": 90, "Solution analyst": 80, "Criterion analyst": 69}))
    d = panel(lm, rounds=3, stop_confidence=0.8).judge(ITEM).criteria[0]
    assert d.rounds_used == 3 and not d.stopped_early


def test_final_verdict_comes_from_the_most_confident_agent():
    lm = scripted(agent_replies(confidence={"Solution analyst": 95}, verdicts={"Solution analyst": "no"}))
    j = panel(lm, rounds=2, stop_confidence=2.0).judge(ITEM)
    d = j.criteria[0]
    assert d.decided_by == "Solution analyst" and d.verdict is False and j.verdict is False
    final = j.calls[-1]
    assert final.purpose == "final" and final.agent == "Solution analyst" and final.round == 3
    assert final.retrieved  # a final retrieval was made


def test_questions_reach_the_addressed_agent_next_turn():
    extra = {"Criterion analyst": ["QUESTION to Problem analyst: is the spoon allowed?"]}
    lm = scripted(agent_replies(extra=extra))
    j = panel(lm, rounds=2, stop_confidence=2.0).judge(ITEM)
    r2 = [c for c in j.calls if c.agent == "Problem analyst" and c.round == 2][0]
    assert "Question to you: is the spoon allowed?" in user_of(r2.messages) and "spoon allowed" in r2.query
    assert not any("spoon allowed" in user_of(c.messages) for c in j.calls if c.agent == "Solution analyst")


def test_agents_of_a_round_speak_in_one_batch_and_read_only_earlier_rounds():
    lm = scripted(agent_replies())
    j = panel(lm, rounds=2, k=4, stop_confidence=2.0).judge(ITEM)
    assert lm.inner.batches == [3, 3, 1]
    assert all(c.retrieved == [] for c in j.calls if c.round == 1)
    assert all(r.round == 1 for c in j.calls if c.round == 2 for r in c.retrieved)
    assert {r.author for c in j.calls if c.round == 2 for r in c.retrieved} == {"Problem analyst", "Solution analyst",
                                                                                "Criterion analyst"}


def test_near_duplicate_findings_are_stored_once():
    def reply(prompt, i):
        return ("VERDICT: yes\nCONFIDENCE: 50\n- the towel grips the lid\n- The towel grips the lid.\n"
                "- spoon taps the rim")

    def stored(dedupe):
        stores = []
        judge = panel(scripted(reply), rounds=2, stop_confidence=2.0, dedupe=dedupe,
                      store_factory=lambda: stores.append(NumpyVectorStore()) or stores[-1])
        judge.judge(ITEM)
        return len(stores[0])

    assert stored(0.95) == 2  # two distinct findings, whoever writes them and however often
    assert stored(1.01) == 3 * 3 * 2  # off: every finding of 3 agents x 2 rounds


def test_extract_findings_separates_bullets_questions_and_closing_lines():
    f, q = extract_findings("- a one\n* b two\nQUESTION for the Solution analyst: why?\nVERDICT: yes\nCONFIDENCE: 9", 5)
    assert f == ["a one", "b two"] and q == [("Solution analyst", "why?")]


def test_extract_findings_falls_back_to_sentences():
    f, _ = extract_findings("The towel helps. The spoon pries the lid!\nVERDICT: no", 5)
    assert f == ["The towel helps.", "The spoon pries the lid!"]


def test_judgement_tokens_are_the_sum_over_logged_calls():
    lm = scripted(agent_replies())
    j = panel(lm, rounds=2, stop_confidence=2.0).judge(ITEM)
    assert j.prompt_tokens == sum(r.prompt_tokens for r in lm.records)
    assert j.completion_tokens == sum(r.completion_tokens for r in lm.records)
    assert len(j.calls) == len(lm.records) == 3 * 2 + 1


TWO = (Criterion("feasible", "Possible."), Criterion("safe", "Not dangerous."))


def no_when_asked_about_safe_alone(reply):
    """Agents say no in a discussion of the criterion 'safe' alone, yes otherwise."""
    return lambda p, i: reply(p, i).replace("VERDICT: yes", "VERDICT: no") if "'safe'" in user_of(p) else reply(p, i)


def test_per_criterion_ablation_gives_each_criterion_its_own_store_and_verdicts_combine_with_and():
    j = RetrievalPanelJudge(lm=scripted(no_when_asked_about_safe_alone(agent_replies())), embedder=ScriptedEmbedder(),
                            criteria=TWO, rounds=1, stop_confidence=2.0, criteria_mode="per_criterion").judge(ITEM)
    assert [c.verdict for c in j.criteria] == [True, False] and j.verdict is False
    first_safe = [c for c in j.calls if c.criterion == "safe"][0]
    assert first_safe.retrieved == []
    assert len(j.calls) == 2 * (3 + 1) and j.judge.endswith("[per_criterion]")


def test_by_default_one_discussion_over_all_criteria_reaches_one_binary_verdict():
    lm = scripted(no_when_asked_about_safe_alone(agent_replies()))
    j = RetrievalPanelJudge(lm=lm, embedder=ScriptedEmbedder(), criteria=TWO, rounds=2, stop_confidence=2.0).judge(ITEM)
    assert len(j.criteria) == 1 and j.criteria[0].criterion == "feasible and safe" and j.verdict is True
    assert {c.criterion for c in j.calls} == {"feasible and safe"} and len(j.calls) == 3 * 2 + 1
    assert all("Possible." in user_of(c.messages) and "Not dangerous." in user_of(c.messages) for c in j.calls)
    assert "is the solution feasible and safe?" in user_of(j.calls[-1].messages).lower()
    # one store for the whole discussion: round 2 retrieves what round 1 stored, the final decision too
    assert all(c.retrieved for c in j.calls if c.round >= 2) and j.judge.endswith("[joint]")


def test_with_one_criterion_both_modes_are_the_same_judge_with_the_same_prompts():
    runs = [panel(scripted(agent_replies()), rounds=2, stop_confidence=2.0, criteria_mode=m).judge(ITEM)
            for m in ("joint", "per_criterion")]
    assert [c.messages for c in runs[0].calls] == [c.messages for c in runs[1].calls]
    assert runs[0].judge == runs[1].judge == "retrieval-full(R=2,k=3,T=2,L=128)"


def test_every_judge_decides_jointly_by_default_and_per_criterion_on_request():
    def yes(p, i):
        return "VERDICT: yes\nCONFIDENCE: 70"

    for make in (lambda **kw: SingleCallJudge(lm=scripted(yes), criteria=TWO, **kw),
                 lambda **kw: ChatEvalJudge(lm=scripted(agent_replies()), criteria=TWO, rounds=1, **kw),
                 lambda **kw: AnswerProbabilityJudge(lm=scripted(yes, answer_logprobs={"Yes": -0.1, "No": -2.0}),
                                                     criteria=TWO, **kw)):
        joint, apart = make().judge(ITEM), make(criteria_mode="per_criterion").judge(ITEM)
        assert [c.criterion for c in joint.criteria] == ["feasible and safe"]
        assert [c.criterion for c in apart.criteria] == ["feasible", "safe"]
        assert len(apart.calls) == 2 * len(joint.calls) and joint.judge != apart.judge


def test_unknown_criteria_mode_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match="criteria_mode='each'.*joint.*per_criterion"):
        panel(None, criteria_mode="each")


def test_chateval_referees_read_the_full_history():
    lm = scripted(agent_replies())
    j = ChatEvalJudge(lm=lm, criteria=(VALID,), rounds=2).judge(ITEM)
    assert len(j.calls) == 6
    for n, call in enumerate(j.calls):
        for earlier in j.calls[:n]:
            assert earlier.reply.strip() in user_of(call.messages)
        assert ITEM.task in user_of(call.messages) and ITEM.response in user_of(call.messages)
    tokens = [c.prompt_tokens for c in j.calls]
    assert tokens == sorted(tokens) and tokens[-1] > tokens[0]


def test_chateval_prompt_extends_the_previous_speakers_prompt():
    """Shared part first: from the second speaker on (before it the discussion is a placeholder), a referee's prompt
    starts with the previous referee's prompt up to that referee's perspective."""
    from llmcreativity.judges.chateval import REFEREE_ROLES

    j = ChatEvalJudge(lm=scripted(agent_replies()), criteria=(VALID,), rounds=2).judge(ITEM)
    systems = {c.messages[0]["content"] for c in j.calls}
    assert len(systems) == 1
    users = [user_of(c.messages) for c in j.calls]
    for prev, call, nxt in zip(j.calls[1:-1], users[1:-1], users[2:], strict=True):
        shared = call[:call.index(REFEREE_ROLES[prev.agent])].rstrip()
        assert nxt.startswith(shared) and len(shared) > len(ITEM.task) + len(ITEM.response)
        assert REFEREE_ROLES[prev.agent] not in nxt[:len(shared)]


def test_chateval_verdict_is_the_last_round_majority():
    lm = scripted(agent_replies(verdicts={"Problem analyst": "no", "Solution analyst": "no"}))
    d = ChatEvalJudge(lm=lm, criteria=(VALID,), rounds=2).judge(ITEM).criteria[0]
    assert d.verdict is False and d.decided_by == "majority"


def test_majority_tie_goes_to_the_more_confident_side():
    vs = [AgentVerdict("a", 1, True, 0.9), AgentVerdict("b", 1, False, 0.5), AgentVerdict("c", 1, None, None)]
    assert majority(vs) == (True, 0.9)


def test_retrieval_panel_prompts_stay_bounded_while_chateval_grows():
    lm_r, lm_c = scripted(agent_replies()), scripted(agent_replies())
    jr = panel(lm_r, rounds=4, k=2, stop_confidence=2.0).judge(ITEM)
    jc = ChatEvalJudge(lm=lm_c, criteria=(VALID,), rounds=4).judge(ITEM)
    crit_r = [c.prompt_tokens for c in jr.calls if c.agent == "Criterion analyst" and c.purpose == "discuss"]
    crit_c = [c.prompt_tokens for c in jc.calls if c.agent == "Criterion analyst"]
    assert max(crit_r) - min(crit_r[1:]) < 15
    assert crit_c[-1] - crit_c[0] > 100


def test_single_call_judge_makes_one_call_per_criterion_in_the_per_criterion_form():
    crits = (Criterion("feasible", "Possible."), Criterion("safe", "Not dangerous."))
    lm = scripted(lambda p, i: "VERDICT: yes\nCONFIDENCE: 70")
    j = SingleCallJudge(lm=lm, criteria=crits, criteria_mode="per_criterion").judge(ITEM)
    assert len(j.calls) == 2 and j.verdict is True and j.judge == "single[per_criterion]"
    assert "without explanation" in user_of(j.calls[0].messages)


def test_cot_judge_asks_to_reason_first():
    lm = scripted(lambda p, i: "The towel grips. VERDICT: no\nCONFIDENCE: 60")
    j = SingleCallJudge(lm=lm, criteria=(VALID,), reasoning=True, max_tokens=160).judge(ITEM)
    assert "step by step" in user_of(j.calls[0].messages) and j.verdict is False and j.judge == "cot"


def test_unparseable_verdict_is_none_and_counted_without_forced_choice():
    lm = scripted(lambda p, i: "hmm")
    j = SingleCallJudge(lm=lm, criteria=(VALID,), max_retries=1, forced_choice=False).judge(ITEM)
    assert j.verdict is None and j.parse_failures == 2 and len(j.calls) == 2


def test_forced_choice_reads_the_verdict_from_answer_probabilities():
    lm = scripted(lambda p, i: "hmm", answer_logprobs={"yes": math.log(0.2), "no": math.log(0.6)})
    j = SingleCallJudge(lm=lm, criteria=(VALID,), max_retries=0).judge(ITEM)
    d = j.criteria[0]
    assert j.verdict is False and d.confidence == pytest.approx(0.75) and d.parse_failures == 1
    assert [c.purpose for c in j.calls] == ["judge", "forced-choice"]
    assert j.calls[1].messages[-2] == {"role": "assistant", "content": "hmm"}


def test_judgement_round_trips_through_json():
    j = panel(scripted(agent_replies()), rounds=2, stop_confidence=2.0).judge(ITEM)
    assert from_json(Judgement, json.loads(json.dumps(to_json(j)))) == j


def test_run_judge_resumes_without_recomputing_or_duplicating(tmp_path):
    lm = scripted(lambda p, i: "VERDICT: yes\nCONFIDENCE: 70")
    judge = SingleCallJudge(lm=lm, criteria=(VALID,))
    items = [JudgeItem(f"i{n}", "task", "answer") for n in range(3)]
    out = tmp_path / "j.jsonl"
    run_judge(judge, items[:2], out, progress=False)
    with out.open("a") as f:
        f.write('{"item_id": "i2", "trunc')  # a run killed mid-write
    res = run_judge(judge, items, out, progress=False)
    assert [r.item_id for r in res] == ["i0", "i1", "i2"] and len(lm.records) == 3
    assert sorted(j.item_id for j in read_judgements(out)) == ["i0", "i1", "i2"]


def test_run_judge_rejects_duplicate_ids(tmp_path):
    judge = SingleCallJudge(lm=scripted(lambda p, i: "VERDICT: yes\nCONFIDENCE: 1"), criteria=(VALID,))
    with pytest.raises(ValueError, match="duplicate"):
        run_judge(judge, [ITEM, ITEM], tmp_path / "j.jsonl", progress=False)


def test_judge_settings_are_validated():
    with pytest.raises(ValueError, match="criteria"):
        RetrievalPanelJudge(lm=None, embedder=None, criteria=())
    with pytest.raises(ValueError, match="rounds"):
        ChatEvalJudge(lm=None, criteria=(VALID,), rounds=0)


def test_judge_names_carry_their_settings():
    assert panel(None, rounds=2, k=3, stop_confidence=0.8).name == "retrieval-full(R=2,k=3,T=0.8,L=128)"
    assert panel(None, rounds=2, k=3, stop_confidence=1.01, views="partitioned", max_tokens=64).name == \
        "retrieval-partitioned(R=2,k=3,T=1.01,L=64)"
    assert ChatEvalJudge(lm=None, criteria=(VALID,), rounds=2, max_tokens=256).name == "chateval(R=2,L=256)"


def test_answer_probability_judge_reads_p_yes_in_one_scoring_pass():
    lm = scripted(lambda p, i: "unused", answer_logprobs={"Yes": math.log(0.3), "No": math.log(0.1)})
    j = AnswerProbabilityJudge(lm=lm, criteria=(VALID,)).judge(ITEM)
    d = j.criteria[0]
    assert j.verdict is True and d.confidence == pytest.approx(0.75) and validity_score(j) == pytest.approx(0.75)
    assert [c.purpose for c in j.calls] == ["answer-probs"] and lm.inner.batches == []  # nothing sampled
    assert "Answer with one word, Yes or No." in user_of(j.calls[0].messages) and j.judge == "p(yes)"


def test_validity_score_multiplies_per_criterion_probabilities_and_is_nan_when_one_is_missing():
    crit = lambda v, c: CriterionVerdict("x", v, c, "a", 1, False, 0)  # noqa: E731
    both = Judgement("i", "J", False, [crit(True, 0.8), crit(False, 0.6)], [])
    assert validity_score(both) == pytest.approx(0.8 * 0.4)
    assert math.isnan(validity_score(Judgement("i", "J", None, [crit(None, None)], [])))
