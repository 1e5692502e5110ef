"""Coherence of sampled candidates (text rule, log-probability rule) and SE without the incoherent ones."""

import math

import numpy as np
import pandas as pd
import pytest

from llmcreativity.entropy import STEP_SAMPLING, StepwiseSettings
from llmcreativity.entropy.chains import Candidate, Chain, StepResult
from llmcreativity.entropy.coherence import (
    LOGPROB_THRESHOLD,
    candidate_table,
    coherence_examples,
    coherence_line,
    coherence_summary,
    coherent_step_table,
    is_incoherent,
    judge_cluster_table,
    logprob_coherent,
    restricted_se,
    rule_agreement,
    shown_summary,
    text_verdict,
    word_shaped,
)
from llmcreativity.entropy.se_estimators import (
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)

# candidates as the recorded chains hold them (texts of the published record's steps at T = 0.3 and T = 1.5)
READABLE = ["Remove the stain from the carpet using a bottle opener.", "Soak the white bath towel in water.",
            "Remove the stain from the carpet using a bottle opener.", "Identify the weak WiFi signal.",
            "Define the problem"]
GARBLED = ["Shape theплач闻 piece afin ministry Spitוף na dang.",
           "Bench using Sizestack equipped telescope. UselargeLMFreEglassessarcinomacreteTheabightude oV",
           "Importer npwiki brochure Linkwire girter Stamp Harvest Renfaces Cinderella Cotton"]


def cand(text: str, mean: float, tokens: int = 5) -> Candidate:
    return Candidate(text, tuple([mean] * tokens) if text else (), text.startswith("STOP"), "stop")


def mixed_step(index: int = 1) -> StepResult:
    texts = READABLE + GARBLED + ["", "STOP"]
    means = [-0.8, -1.1, -0.8, -0.6, -1.3, -9.9, -10.2, -8.7, 0.0, -0.4]
    cands = tuple(cand(t, m, tokens=3 + i) for i, (t, m) in enumerate(zip(texts, means, strict=True)))
    ids = (0, 1, 0, 2, 3, 4, 5, 6, 7, 8)
    return StepResult(index, cands, ids, len(set(ids)), discrete_semantic_entropy(ids),
                      probability_weighted_semantic_entropy(ids, [c.sum_logprob for c in cands],
                                                            [c.text for c in cands]),
                      length_normalized_semantic_entropy(ids, [c.logprobs for c in cands], [c.text for c in cands]),
                      0, 1, None, 0.0, 0.0)


def chain(temperature: float, steps: tuple[StepResult, ...], problem: str = "m-1", model: str = "lm") -> Chain:
    settings = StepwiseSettings(STEP_SAMPLING.merge(n=len(steps[0].candidates), temperature=temperature))
    return Chain(f"{model}-{problem}-{temperature}", problem, "macgyver", model, "judge", settings, steps, "cap")


def test_the_text_rule_keeps_readable_steps_and_rejects_garbled_ones():
    assert [text_verdict(t) for t in READABLE] == ["coherent"] * len(READABLE)
    assert [text_verdict(t) for t in GARBLED] == ["non-Latin script", "non-word tokens", "few function words"]
    assert text_verdict("  ") == "empty" and text_verdict("STOP") == "coherent"


def test_word_shapes_admit_acronyms_and_numbers_not_fused_words():
    assert all(map(word_shaped, ["YSOs", "mass-radius", "you're", "3.5", "iPhone"]))
    assert not any(map(word_shaped, ["ChandmpS", "madeCamp'])", "uneconomic_deleteton", "électroniquementxyz" * 2]))


def test_the_logprob_rule_compares_the_mean_token_logprob_with_its_threshold():
    assert logprob_coherent(cand("Fill the cup.", LOGPROB_THRESHOLD + 0.1)) is True
    assert logprob_coherent(cand("Fill the cup.", LOGPROB_THRESHOLD - 0.1)) is False
    assert logprob_coherent(cand("", 0.0)) is None
    with pytest.raises(ValueError, match="rule='nli'"):
        is_incoherent(cand("Fill the cup.", -1.0), "nli")  # type: ignore[arg-type]


def test_restricted_se_over_every_candidate_equals_the_recorded_statistics():
    step = mixed_step()
    full = restricted_se(step, range(10))
    assert full["se_discrete"] == pytest.approx(step.se_discrete)
    assert full["se_probability"] == pytest.approx(step.se_probability)
    assert full["se_length_normalized"] == pytest.approx(step.se_length_normalized)
    assert full["n_clusters"] == step.n_clusters


def test_restricted_se_equals_the_estimators_on_the_kept_subset():
    step = mixed_step()
    keep = [i for i, c in enumerate(step.candidates) if not is_incoherent(c)]
    assert keep == [0, 1, 2, 3, 4, 8, 9]  # the three garbled candidates dropped; empty and STOP kept
    ids = [step.cluster_ids[i] for i in keep]
    cands = [step.candidates[i] for i in keep]
    texts = [c.text for c in cands]
    got = restricted_se(step, keep)
    assert got["n_clusters"] == 6
    assert got["se_discrete"] == pytest.approx(discrete_semantic_entropy(ids))
    assert got["se_probability"] == pytest.approx(
        probability_weighted_semantic_entropy(ids, [c.sum_logprob for c in cands], texts))
    assert got["se_length_normalized"] == pytest.approx(
        length_normalized_semantic_entropy(ids, [c.logprobs for c in cands], texts))
    assert got["se_probability_distinct"] == pytest.approx(
        probability_weighted_semantic_entropy(ids, [c.sum_logprob for c in cands], texts, duplicates="distinct"))
    assert got["se_discrete"] < step.se_discrete  # three singleton clusters fewer


def test_an_empty_coherent_subset_gives_nan_not_an_error():
    step = mixed_step()
    assert all(math.isnan(v) for v in restricted_se(step, []).values())
    only_empty = restricted_se(step, [8])  # an empty candidate: no token to weigh
    assert only_empty["se_discrete"] == 0.0 and math.isnan(only_empty["se_probability"])


def test_a_step_of_garbled_text_only_leaves_nothing_and_the_summary_skips_it():
    garbled = tuple(cand(t, -9.0) for t in GARBLED * 3)
    ids = tuple(range(9))
    step = StepResult(1, garbled, ids, 9, discrete_semantic_entropy(ids), 0.1, 0.2, 0, 0, None, 0.0, 0.0)
    table = coherent_step_table([chain(1.5, (step,)), chain(0.3, (mixed_step(),))], {"lm": "tiny"})
    hot = table[table["temperature"] == 1.5].iloc[0]
    assert (hot["coherent_text"], hot["coherent_logprob"]) == (0, 0) and math.isnan(hot["se_discrete_coherent"])
    summary = coherence_summary(table)
    assert list(summary.columns) == ["tiny T=0.3", "tiny T=1.5"]
    # of the nine candidates with text, five readable ones and STOP
    assert summary.loc["coherent share, text rule", "tiny T=0.3"] == pytest.approx(6 / 9)
    assert summary.loc["empty share", "tiny T=0.3"] == pytest.approx(0.1)
    assert summary.loc["SE_D, all", "tiny T=1.5"] == pytest.approx(math.log(9))
    assert np.isnan(summary.loc["SE_D, coherent", "tiny T=1.5"])
    shown = shown_summary(summary)
    assert shown.loc["coherent share, text rule", "tiny T=0.3"] == "67%"
    assert shown.loc["SE_D, all", "tiny T=1.5"] == f"{math.log(9):.2f}"
    assert shown.loc["SE_D, coherent", "tiny T=1.5"] == "–"


def test_candidate_table_and_rule_agreement_on_a_mixed_step():
    cands = candidate_table([chain(0.3, (mixed_step(),))], {"lm": "tiny"})
    assert len(cands) == 10 and cands["coherent_text"].isna().sum() == 1  # the empty candidate
    assert cands.loc[cands["text"] == GARBLED[0], "text_verdict"].item() == "non-Latin script"
    agree = rule_agreement(cands)
    row = agree.loc[("tiny", 0.3)]
    assert row["candidates"] == 9 and row["agree"] == pytest.approx(1.0)  # both rules reject the same three
    assert row["text_rule"] == pytest.approx(6 / 9)


def test_examples_cut_long_texts_to_one_readable_line_and_show_both_verdicts():
    cands = candidate_table([chain(0.3, (mixed_step(),))], {"lm": "tiny"})
    ex = coherence_examples(cands, per_cell=9, width=30)
    assert len(ex) == 9 and ex["candidate"].str.len().max() <= 30
    assert ex["candidate"].str.endswith("…").any() and "" not in set(ex["candidate"])
    four = coherence_examples(cands, per_cell=4)
    assert (four["text rule"] == "coherent").sum() == 2 and len(four) == 4  # half and half where both are there


def test_judge_cluster_table_groups_the_low_temperature_step_by_cluster():
    table = judge_cluster_table([chain(0.3, (mixed_step(),)), chain(1.5, (mixed_step(),))], {"lm": "tiny"})
    assert set(table["step"]) == {"tiny, m-1, step 1"} and len(table) == 9  # nine clusters of the one step
    first = table.iloc[0]
    assert first["cluster (size)"] == "0 (2)" and first["distinct texts"] == READABLE[0]  # a repeat shown once


def test_coherence_line_reports_both_ends_and_both_rises():
    cold = chain(0.3, (mixed_step(),))
    garbled = tuple(cand(t, -9.0) for t in (GARBLED * 4)[:10])
    ids = (0, 1, 2, 3, 4, 5, 6, 7, 8, 8)
    hot = chain(1.5, (StepResult(1, garbled, ids, 9, discrete_semantic_entropy(ids), 0.1, 0.2, 0, 0, None, 0.0,
                                 0.0),), problem="m-2")
    line = coherence_line(coherent_step_table([cold, hot], {"lm": "tiny"}))
    assert "67% are coherent at T = 0.3 and 0% at T = 1.5" in line and "text rule" in line
    assert "exploratory" in line and "0.0 at T = 1.5" in line  # the garbled step keeps nothing
    assert coherence_line(pd.DataFrame()) == ""
