"""The step-wise protocol: sampling, STOP rule, greedy chaining (and the best-sample option), records and resuming."""

import json
import math

import pytest

from entropy_helpers import FirstWordJudge, GreedyAwareBackend
from llmcreativity.dataclass_json import from_json, to_json
from llmcreativity.entropy import STEP_SAMPLING, Chain, StepwiseSettings, run_chain, run_chains
from llmcreativity.entropy.domains import MACGYVER_PROMPT, Problem
from llmcreativity.llm import CachedBackend, ScriptedBackend

PROBLEM = Problem("macgyver-1", "macgyver", "Open a jar. Tools available: a towel, a spoon.")


def steps_done(prompt):
    return prompt.count("\nStep ") - 1  # the open label of the next step is not a finished step


def stop_after(k, stop_share):
    """Responder: content replies until k steps are chosen, then `stop_share` of the n=10 samples say STOP."""

    def reply(prompt, i):
        if steps_done(prompt) >= k and i < round(stop_share * 10):
            return "STOP"
        return ["Grip the lid with the towel", "Grip it harder now", "Tap the lid with the spoon", "Pry it up"][i % 4]

    return reply


def lm_for(responder):
    return CachedBackend(ScriptedBackend(responder), cache=None)


def test_votes_option_ends_the_chain_when_half_of_the_candidates_say_stop():
    lm = greedy_lm(stop_after(2, 0.5))
    chain = run_chain(CachedBackend(lm, cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING, step_cap=5, chain_end="votes"))
    assert chain.ended == "stop"
    assert len(chain.steps) == 3
    assert chain.steps[-1].stop_votes == 5 and chain.steps[-1].appended is None and chain.steps[-1].ended
    assert chain.steps[-1].continuation is None and sum(c.temperature == 0 for c in lm.configs) == 2  # not decoded


def test_sample_stop_votes_do_not_cut_the_greedy_chain_short_but_are_recorded():
    """The paper's chain is the greedy continuation "repeated until done": every sample saying STOP ends nothing."""
    chain = run_chain(CachedBackend(greedy_lm(stop_after(1, 1.0)), cache=None), FirstWordJudge(), PROBLEM,
                      MACGYVER_PROMPT, StepwiseSettings(STEP_SAMPLING, step_cap=4))
    assert chain.ended == "cap" and chain.solution == tuple(f"Greedy step {k}" for k in range(1, 5))
    assert [s.stop_votes for s in chain.steps] == [0, 10, 10, 10] and not any(s.ended for s in chain.steps)


def test_the_greedy_continuations_own_stop_ends_the_chain_whatever_the_samples_say():
    lm = GreedyAwareBackend(stop_after(9, 0), lambda p: "STOP" if steps_done(p) >= 2 else "Grip it")
    chain = run_chain(CachedBackend(lm, cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING, step_cap=6))
    assert chain.ended == "stop" and chain.solution == ("Grip it", "Grip it") and chain.steps[-1].stop_votes == 0


def test_chain_end_is_stored_only_for_the_greedy_end_and_best_sample_always_ends_by_votes():
    assert StepwiseSettings(STEP_SAMPLING).to_dict()["chain_end"] == "greedy"
    assert "chain_end" not in StepwiseSettings(STEP_SAMPLING, chain_end="votes").to_dict()
    old = StepwiseSettings(STEP_SAMPLING).to_dict()
    del old["chain_end"]  # a greedy chain stored before the greedy end
    assert StepwiseSettings.from_dict(old).chain_end == "votes"
    best = StepwiseSettings(STEP_SAMPLING, continuation="best_sample")
    assert best.chain_end == "votes" and StepwiseSettings.from_dict(best.to_dict()) == best
    with pytest.raises(ValueError, match="chain_end='samples'.*greedy.*votes"):
        StepwiseSettings(chain_end="samples")


def test_chain_continues_when_fewer_than_half_say_stop():
    chain = run_chain(CachedBackend(greedy_lm(stop_after(1, 0.4)), cache=None), FirstWordJudge(), PROBLEM,
                      MACGYVER_PROMPT, StepwiseSettings(STEP_SAMPLING, step_cap=3))
    assert chain.ended == "cap"
    assert len(chain.steps) == 3 and all(s.appended is not None for s in chain.steps)


def greedy_lm(responder=None):
    """Samples cycle the four replies of `stop_after(9, 0)`; the temperature-0 call answers "Greedy step k"."""
    return GreedyAwareBackend(responder or stop_after(9, 0), lambda p: f"Greedy step {steps_done(p) + 1}")


def test_chain_appends_the_temperature_0_continuation_not_a_sample():
    lm = greedy_lm()
    chain = run_chain(CachedBackend(lm, cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING, step_cap=2))
    assert chain.solution == ("Greedy step 1", "Greedy step 2")
    sampled = {c.text for s in chain.steps for c in s.candidates}
    assert not sampled & set(chain.solution)  # no sampled candidate made it into the chain
    assert [(c.n, c.temperature) for c in lm.configs] == [(10, 0.8), (1, 0.0)] * 2  # n samples, then one greedy
    assert all(s.chosen is None and s.continuation.text == t for s, t in zip(chain.steps, chain.solution, strict=True))
    assert lm.sampled.seen[-1].endswith("Step 1: Greedy step 1\nStep 2:")  # the greedy step is fed back


def test_entropy_comes_from_the_samples_not_the_greedy_continuation():
    step = run_chain(CachedBackend(greedy_lm(), cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                     StepwiseSettings(STEP_SAMPLING, step_cap=1)).steps[0]
    assert len(step.candidates) == 10 and step.n_clusters == 3  # Grip / Tap / Pry, no "Greedy" cluster


def test_a_stop_or_empty_greedy_continuation_ends_the_chain():
    for reply, ended in (("STOP", "stop"), ("", "empty")):
        lm = GreedyAwareBackend(stop_after(9, 0), lambda p, r=reply: r if steps_done(p) >= 1 else "Grip it")
        chain = run_chain(CachedBackend(lm, cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                          StepwiseSettings(STEP_SAMPLING, step_cap=5))
        assert chain.ended == ended and chain.solution == ("Grip it",) and len(chain.steps) == 2


def test_best_sample_option_appends_the_most_probable_sampled_candidate():
    # the scripted model gives -1 per word, so the shortest candidate has the highest probability
    lm = greedy_lm()
    chain = run_chain(CachedBackend(lm, cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING, step_cap=2, continuation="best_sample"))
    assert chain.solution == ("Pry it up", "Pry it up")
    assert all(c.temperature > 0 for c in lm.configs)  # no greedy call under this option
    assert lm.sampled.seen[-1].endswith("Step 1: Pry it up\nStep 2:")


def test_unknown_continuation_rule_is_refused():
    with pytest.raises(ValueError, match="continuation='beam'.*greedy.*best_sample"):
        StepwiseSettings(continuation="beam")


def test_settings_stored_before_greedy_chaining_read_back_as_best_sample():
    stored = StepwiseSettings(STEP_SAMPLING, chain_end="votes").to_dict()
    assert stored["continuation"] == "greedy"
    del stored["continuation"]
    assert StepwiseSettings.from_dict(stored).continuation == "best_sample"


def test_step_entropies_match_the_clusters():
    # 10 samples cycling 4 replies: "Grip ..." x6 (two texts, one cluster), "Tap" x2, "Pry" x2
    step = run_chain(lm_for(stop_after(9, 0)), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                     StepwiseSettings(STEP_SAMPLING, step_cap=1)).steps[0]
    assert step.n_clusters == 3
    p = [0.6, 0.2, 0.2]
    assert step.se_discrete == pytest.approx(-sum(q * math.log(q) for q in p))
    # every sample counts: Grip the lid with the towel (6 words) x3, Grip it harder now (4) x3, Tap ... (6) x2,
    # Pry it up (3) x2
    m = [3 * math.exp(-6) + 3 * math.exp(-4), 2 * math.exp(-6), 2 * math.exp(-3)]
    q = [v / sum(m) for v in m]
    assert step.se_probability == pytest.approx(-sum(v * math.log(v) for v in q))
    # every word scores -1, so each sample has mean log-prob -1: masses 6e^-1, 2e^-1, 2e^-1 (the discrete SE)
    assert step.se_length_normalized == pytest.approx(step.se_discrete)


def test_stop_candidates_share_one_cluster_without_judge_calls():
    judge = FirstWordJudge()
    step = run_chain(lm_for(lambda p, i: "STOP" if i < 6 else "Pry the lid"), judge, PROBLEM, MACGYVER_PROMPT,
                     StepwiseSettings(STEP_SAMPLING, step_cap=3)).steps[0]
    assert step.n_clusters == 2 and step.judge_calls == 0 and judge.calls == 0


def test_all_empty_candidates_end_the_chain_with_undefined_weighted_entropy():
    chain = run_chain(lm_for(lambda p, i: ""), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                      StepwiseSettings(STEP_SAMPLING.merge(n=4), step_cap=3))
    step = chain.steps[0]
    assert chain.ended == "empty" and step.n_clusters == 1 and step.se_discrete == 0.0
    assert math.isnan(step.se_probability) and math.isnan(step.se_length_normalized)


def test_empty_candidate_carries_no_probability_mass():
    step = run_chain(lm_for(lambda p, i: "" if i == 0 else "Pry it up"), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
                     StepwiseSettings(STEP_SAMPLING.merge(n=4), step_cap=1)).steps[0]
    assert step.n_clusters == 2 and step.se_probability == 0.0 and step.se_discrete > 0


def test_one_by_one_sampling_makes_n_calls_of_one_sample():
    lm = greedy_lm()
    run_chain(CachedBackend(lm, cache=None), FirstWordJudge(), PROBLEM, MACGYVER_PROMPT,
              StepwiseSettings(STEP_SAMPLING.merge(n=6), step_cap=1, batched=False))
    assert [(c.n, c.seed) for c in lm.configs if c.temperature > 0] == [(1, i) for i in range(6)]


def test_run_chains_resumes_without_recomputing(tmp_path):
    out = tmp_path / "chains.jsonl"
    inner = ScriptedBackend(stop_after(9, 0))
    lm = CachedBackend(inner, cache=None)
    grid = [StepwiseSettings(STEP_SAMPLING.merge(n=4, temperature=t), step_cap=1) for t in (0.5, 1.0)]
    problems = [PROBLEM, Problem("macgyver-2", "macgyver", "Light a room.")]
    first = run_chains(lm, FirstWordJudge(), problems, MACGYVER_PROMPT, grid, out, progress=False)
    calls = len(inner.seen)
    again = run_chains(lm, FirstWordJudge(), problems, MACGYVER_PROMPT, grid, out, progress=False)
    assert len(inner.seen) == calls
    assert again == first
    assert len(out.read_text().splitlines()) == 4


def test_truncated_last_record_is_recomputed(tmp_path):
    out = tmp_path / "chains.jsonl"
    lm = lm_for(stop_after(9, 0))
    s = [StepwiseSettings(STEP_SAMPLING.merge(n=4), step_cap=1)]
    run_chains(lm, FirstWordJudge(), [PROBLEM], MACGYVER_PROMPT, s, out, progress=False)
    text = out.read_text()
    out.write_text(text[: len(text) // 2])  # a killed run left half a line
    chains = run_chains(lm, FirstWordJudge(), [PROBLEM], MACGYVER_PROMPT, s, out, progress=False)
    assert len(chains) == 1
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [chains[0].id]


def test_chain_round_trips_through_json():
    for rule, end in (("greedy", "greedy"), ("greedy", "votes"), ("best_sample", "votes")):
        chain = run_chain(CachedBackend(greedy_lm(stop_after(1, 0.6)), cache=None), FirstWordJudge(), PROBLEM,
                          MACGYVER_PROMPT, StepwiseSettings(STEP_SAMPLING, step_cap=3, continuation=rule,
                                                            chain_end=end))
        assert from_json(Chain, json.loads(json.dumps(to_json(chain)))) == chain


@pytest.mark.parametrize("kwargs, name", [({"step_cap": 0}, "step_cap"), ({"stop_fraction": 0}, "stop_fraction"),
                                          ({"sampling": STEP_SAMPLING.merge(n=1)}, "n=")])
def test_bad_settings_raise_naming_the_field(kwargs, name):
    with pytest.raises(ValueError, match=name):
        StepwiseSettings(**kwargs)
