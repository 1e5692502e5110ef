"""Claims A1-A3 and A5 of the evaluation chapter: comparisons per claim and their verdicts with reasons."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from claim_inputs import hanna as _hanna
from llmcreativity.evaluation import JUDGE_COLUMNS, NOVELTY_COLUMNS
from llmcreativity.evaluation.review_claims import (
    a3_not_testable_reason,
    claim_comparisons,
    judge_human_verdict,
    review_verdicts,
)
from llmcreativity.evaluation.rubric_estimators import estimator_agreement, score_tables
from llmcreativity.judges.rubric import RubricScore
from llmcreativity.pipeline.claim_records import claim_text
from llmcreativity.pipeline.claim_table import CLAIMS
from llmcreativity.writing import BASELINES


def test_review_verdicts_are_inconclusive_on_two_prompts_and_say_why():
    rows = []
    for system in [*BASELINES, "review", "single (big)"]:
        for p in ("p1", "p2"):
            scores = {c: (4.0 if system == "review" else 2.0) + (p == "p2") for c in [*JUDGE_COLUMNS, *NOVELTY_COLUMNS]}
            rows.append({"system": system, "prompt_id": p, "story_id": f"{system}-{p}",
                         "judge_mean": scores[JUDGE_COLUMNS[0]], **scores})
    table = pd.DataFrame(rows)
    comps = claim_comparisons(table, ["single (big)"], seed=0)
    assert set(comps["A3"]["baseline"]) == {"single (big)"} and set(comps["A1"]["measure"]) == set(JUDGE_COLUMNS)
    verdicts = review_verdicts(comps, judge="J", writer_model="w", large_model="big")
    for claim_id, v in verdicts.items():
        assert v.label == "inconclusive", claim_id
        assert claim_text(claim_id, v).endswith("The sample is too small to decide: as few as 2 prompt(s) per "
                                                f"comparison (at least {CLAIMS[claim_id].min_n} needed).")
    assert claim_text("A3", verdicts["A3"]).startswith("Review with w beats a Single Agent with big")
    assert np.isfinite(verdicts["A3"].statistic)


# --- A1/A3 rest on the sampled mean; the expected score is the alternative --------------------

LARGE = "single (big)"


def _stories(n_prompts=6):
    rows = []
    for system in [*BASELINES, "review", LARGE]:
        for i in range(n_prompts):
            rows.append({"system": system, "prompt_id": f"p{i}", "story_id": f"{system}-p{i}",
                         **{c: 1.0 + (system == "review") + 0.1 * i for c in NOVELTY_COLUMNS}})
    return pd.DataFrame(rows)


def _scores(table, mode, review_high):
    """Review scores 4 and the others 2 (or the reverse), with a prompt effect; sampled scores carry samples."""
    out = []
    for r in table.itertuples():
        i = int(r.prompt_id[1:])
        high = (r.system == "review") == review_high
        value = (4.0 if high else 2.0) + 0.1 * i + (0.05 if r.system == "teacher" else 0.0)
        for dim in JUDGE_COLUMNS:
            samples = [value - 0.5, value, value + 0.5] if mode == "sampled" else []
            out.append(RubricScore(r.story_id, dim, mode, "j", value, samples=samples))
    return out


def test_a1_and_a3_verdicts_read_the_sampled_mean_not_the_expected_score():
    table = _stories()
    expected, sampled = _scores(table, "expected", False), _scores(table, "sampled", True)
    primary, alternative = score_tables(table, expected, sampled)
    verdicts = review_verdicts(claim_comparisons(primary, [LARGE], seed=0), judge="J", writer_model="w",
                               large_model="big")
    assert verdicts["A1"].label == "supported" and verdicts["A1"].statistic > 0
    assert verdicts["A3"].label == "supported" and "sampled mean" in claim_text("A3", verdicts["A3"])
    other = review_verdicts(claim_comparisons(alternative, [LARGE], seed=0), judge="J", writer_model="w",
                            large_model="big", estimator="expected score")
    assert other["A1"].label == "not supported" and other["A1"].statistic < 0
    with pytest.raises(ValueError, match="mode"):
        score_tables(table, sampled, sampled)


def test_estimator_agreement_reports_rank_and_absolute_agreement_with_intervals():
    table = _stories()
    sampled = _scores(table, "sampled", True)
    expected = [RubricScore(s.story_id, s.dimension, "expected", "j", s.score) for s in sampled]
    agree = estimator_agreement(expected, sampled, ["judge_mean", JUDGE_COLUMNS[0]], n_resamples=200)
    agree = agree.set_index("measure")
    assert agree.loc["judge_mean", "n"] == len(table)
    assert agree.loc["judge_mean", "spearman"] == pytest.approx(1.0)
    assert agree.loc["judge_mean", "icc"] == pytest.approx(1.0)
    flipped = [RubricScore(s.story_id, s.dimension, "expected", "j", 6 - s.score) for s in sampled]
    assert estimator_agreement(flipped, sampled, ["judge_mean"], n_resamples=200)["spearman"].iloc[0] < -0.9


# --- A3 refuses a "large" model that is not larger, or a judge that wrote -----------------------

@pytest.mark.parametrize(("writer", "large", "judge", "expect"), [
    ("transformers:smollm2-135m:float32", ["qwen2.5-coder-0.5b"], "transformers:qwen2.5-coder-1.5b:float32", None),
    ("transformers:smollm2-135m:float32", ["smollm2-135m"], "transformers:qwen2.5-coder-1.5b:float32",
     "is not larger than the writer"),
    ("transformers:qwen2.5-coder-0.5b:float32", ["gemma3-270m"], "qwen2.5-coder-1.5b", "is not larger"),
    ("transformers:smollm2-135m:float32", ["qwen2.5-coder-1.5b"], "transformers:qwen2.5-coder-1.5b:float32",
     "judge qwen2.5-coder-1.5b is one of the writers"),
    ("transformers:smollm2-135m:float32", ["qwen2.5-coder-0.5b"], "transformers:smollm2-135m:float32",
     "is one of the writers"),
    ("openai:gpt-x", ["qwen2.5-coder-0.5b"], "qwen2.5-coder-1.5b", "unknown"),
    ("smollm2-135m", [], "qwen2.5-coder-1.5b", "no bigger Single Agent"),
    ("openai:http://h:1/v1:m", ["openai:http://h:1/v1:m"], "openai:http://h:1/v1:m", "one model"),
    ("transformers:smollm2-135m:float32:row-seeded", ["transformers:qwen2.5-coder-0.5b:float32:row-seeded"],
     "transformers:qwen2.5-coder-1.5b:float32:row-seeded", None),
])
def test_a3_testability(writer, large, judge, expect):
    reason = a3_not_testable_reason(writer, large, judge)
    assert reason is None if expect is None else expect in reason


def test_a3_not_testable_is_recorded_and_the_other_claims_go_on():
    table = _stories()
    primary, _ = score_tables(table, [], _scores(table, "sampled", True))
    reason = a3_not_testable_reason("gemma3-270m", ["smollm2-135m"], "qwen2.5-coder-1.5b")
    verdicts = review_verdicts(claim_comparisons(primary, [LARGE], seed=0), judge="J", writer_model="w",
                               large_model="big", a3_not_testable=reason)
    assert verdicts["A3"].label == "not testable here" and "not larger" in verdicts["A3"].reason
    text = claim_text("A3", verdicts["A3"])
    assert "Not testable here" not in text and "not larger" in text
    assert verdicts["A1"].label == "supported"


# --- A5: the judge against HANNA's human consensus ---------------------------------------------

def test_a5_supported_when_the_judge_ranks_stories_like_the_human_consensus():
    hanna, quality = _hanna()
    judge = pd.DataFrame({"story_id": [str(i) for i in range(len(quality))], "judge_mean": quality})
    v = judge_human_verdict(judge, hanna, judge_name="J", n_resamples=300)
    assert v.label == "supported" and v.statistic > 0.8 and v.n == len(quality)
    assert "sampled mean" in claim_text("A5", v) and "Spearman" in v.measure


def test_a5_not_supported_for_a_judge_ranking_against_humans_and_inconclusive_below_three_stories():
    hanna, quality = _hanna()
    against = pd.DataFrame({"story_id": range(len(quality)), "judge_mean": -quality})
    assert judge_human_verdict(against, hanna, judge_name="J", n_resamples=300).label == "not supported"
    two = pd.DataFrame({"story_id": range(2), "judge_mean": quality[:2]})
    v = judge_human_verdict(two, hanna, judge_name="J")
    assert v.label == "inconclusive" and "needs at least 3" in v.reason and v.n == 2
    empty = pd.DataFrame(columns=["story_id", "judge_mean"])
    assert judge_human_verdict(empty, hanna, judge_name="J").n == 0


# --- A2: decided on the a2_kl lexical KL (the paper's whole-story one in the paper profile) -----------------------

def test_a2_is_decided_on_the_chosen_lexical_kl_and_the_other_one_is_the_robustness_column():
    from llmcreativity.evaluation.review_claims import other_kl, with_kl

    table = _stories(8)
    noise = np.random.default_rng(0).normal(0, 0.05, len(table))
    review = (table["system"] == "review").to_numpy()
    table["lexical_kl_whole"] = table["lexical_kl"] + noise  # Review highest
    table["lexical_kl_windowed"] = 1.0 - 1.0 * review + noise  # Review lowest: the two KLs disagree
    table = table.assign(**{c: 3.0 + noise for c in [*JUDGE_COLUMNS, "judge_mean"]})
    labels = {}
    for kl in ("whole", "windowed"):
        comps = claim_comparisons(with_kl(table, kl), [LARGE], seed=0)
        v = review_verdicts(comps, judge="J", writer_model="w", large_model="big", kl=kl)["A2"]
        labels[kl] = v.label
        assert f"lexical KL ({kl})" in claim_text("A2", v)
    assert labels == {"whole": "supported", "windowed": "not supported"}
    assert (other_kl("whole"), other_kl("windowed")) == ("windowed", "whole")
    with pytest.raises(ValueError, match="kl mode 'both' is not one of"):
        with_kl(table, "both")
    with pytest.raises(ValueError, match="has no 'lexical_kl_whole'"):
        with_kl(table.drop(columns="lexical_kl_whole"), "whole")


def test_the_paper_profile_decides_a2_on_the_papers_whole_story_kl_and_the_default_on_the_windowed_one():
    from llmcreativity.pipeline.parameters import check_value
    from llmcreativity.pipeline.planning import declared_parameters
    from llmcreativity.pipeline.stages import STAGES

    stage = next(s for s in STAGES if s.name == "evaluation")
    declared = declared_parameters(stage)
    assert declared["a2_kl"].default == "windowed" and stage.profiles["paper"]["a2_kl"] == "whole"
    assert check_value(declared["a2_kl"], "whole", "paper") == "whole"
    with pytest.raises(ValueError, match="a2_kl|windowed"):
        check_value(declared["a2_kl"], "both", "test")
    assert "kl_mode" not in declared
