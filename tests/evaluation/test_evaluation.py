"""Evaluation tables and statistics: story table, novelty metrics, judge table, summaries, paired tests, verdicts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcreativity.corpus.store import CorpusStore
from llmcreativity.dataclass_json import to_json
from llmcreativity.evaluation import (
    framework_summary,
    judge_table,
    load_story_table,
    mode_comparison,
    novelty_table,
    paper_table,
)
from llmcreativity.jsonl import append_jsonl
from llmcreativity.judges.rubric import RubricScore
from llmcreativity.llm import ScriptedBackend, ScriptedEmbedder
from llmcreativity.stats.paired import cohen_dz, paired_comparisons, prompt_means
from llmcreativity.writing.story_record import StoryRecord


def _record(framework: str, prompt_id: str, agent: str, story: str, model: str = "m") -> dict:
    return to_json(StoryRecord(prompt_id=prompt_id, category="cat", prompt=f"prompt {prompt_id}", framework=framework,
                       agent=agent, persona=agent, round=1, story=story, flags=[], model=model, tokens=100,
                       story_tokens=10, seconds=1.0, n_words=len(story.split()),
                       message_id=f"{framework}/{prompt_id}/r1/revision/{agent}", settings={}))


def _table(values: dict[str, list[float]], measure: str = "x") -> pd.DataFrame:
    """One story per (system, prompt) with the given measure values, prompts p0, p1, ..."""
    return pd.DataFrame([{"system": s, "prompt_id": f"p{i}", measure: v} for s, vs in values.items()
                         for i, v in enumerate(vs)])


def test_load_story_table_adds_ids_and_drops_empty_stories(tmp_path):
    path = tmp_path / "stories.jsonl"
    append_jsonl(path, [_record("single", "p0", "Humanistic", "a tale"), _record("review", "p0", "Futuristic", "  ")])
    with pytest.warns(UserWarning, match="1 of 2 stories are empty"):
        table = load_story_table(path)
    assert table["story_id"].tolist() == ["m::single/p0/r1/revision/Humanistic"]
    assert table["system"].tolist() == ["single"]
    with pytest.warns(UserWarning):
        assert load_story_table(path, system="single-big")["system"].iloc[0] == "single-big"


def test_load_story_table_missing_file_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no stories"):
        load_story_table(tmp_path / "none.jsonl")


def _axis_embedder() -> ScriptedEmbedder:
    """Embeds text "a" as e1 and anything else as e2."""
    return ScriptedEmbedder(lambda t: [1.0, 0.0] if t == "a" else [0.0, 1.0], identity="axis")


def test_novelty_table_by_hand():
    chunks = pd.DataFrame({"chunk_id": ["c0", "c1", "c2"]})
    E = np.array([[1.0, 0.0], [0.6, 0.8], [0.8, 0.6]], dtype=np.float32)
    store = CorpusStore(chunks, E, "k", "axis", None)
    stories = pd.DataFrame({"story_id": ["s0", "s1"], "prompt": ["p", "p"], "story": ["a", "b"]})
    out = novelty_table(stories, store, {"a": 1, "b": 1}, _axis_embedder(), ScriptedBackend(lambda p, i: ""),
                        kl_mode="whole", progress=False)
    # s0 = e1 equals chunk c0: novelty 0. s1 = e2: nearest c1 with cos 0.8, novelty 0.2.
    assert out["novelty"].tolist() == pytest.approx([0.0, 0.2], abs=1e-6)
    assert out["nearest_chunk"].tolist() == ["c0", "c1"]
    # ScriptedBackend scores every token with log p = -1: surprisal 1 nat.
    assert out["surprisal"].tolist() == [1.0, 1.0]
    # p_story = (1+1, 0+1)/3 = (2/3, 1/3) over {a, b}; q = (1/2, 1/2): KL = 2/3 ln(4/3) + 1/3 ln(2/3)
    assert out["lexical_kl"].iloc[0] == pytest.approx(2 / 3 * math.log(4 / 3) + 1 / 3 * math.log(2 / 3))
    assert np.all(np.isfinite(out["volume_gain"]))
    # The default, length-controlled KL: one-token stories are shorter than a window (NaN), and a window of 1
    # token is the whole story here.
    windowed = novelty_table(stories, store, {"a": 1, "b": 1}, _axis_embedder(), ScriptedBackend(lambda p, i: ""),
                             progress=False)
    assert windowed["lexical_kl"].isna().all()
    one = novelty_table(stories, store, {"a": 1, "b": 1}, _axis_embedder(), ScriptedBackend(lambda p, i: ""),
                        kl_window=1, progress=False)
    assert one["lexical_kl"].tolist() == pytest.approx(out["lexical_kl"].tolist())
    # Both KLs are always kept; `lexical_kl` (what A2 is decided on) is the kl_mode one.
    assert out["lexical_kl_whole"].tolist() == out["lexical_kl"].tolist() and out["lexical_kl_windowed"].isna().all()
    assert windowed["lexical_kl_whole"].tolist() == out["lexical_kl"].tolist()
    with pytest.raises(ValueError, match="kl mode 'paper' is not one of"):
        novelty_table(stories, store, {"a": 1, "b": 1}, _axis_embedder(), ScriptedBackend(lambda p, i: ""),
                      kl_mode="paper", progress=False)


def test_reference_table_sets_the_papers_single_agent_beside_this_runs_and_says_what_it_lacks():
    from llmcreativity.evaluation import reference_table

    summary = pd.DataFrame([
        {"system": "single", "measure": "integration", "n": 3, "mean": 2.5, "sd": 0.5},
        {"system": "single", "measure": "judge_mean", "n": 3, "mean": 9.9, "sd": 0.5},  # not the paper's 3.62
        {"system": "single", "measure": "lexical_kl_whole", "n": 6, "mean": 1.25, "sd": float("nan")},
        {"system": "review", "measure": "surprisal", "n": 6, "mean": 9.0, "sd": 1.0},  # another system: not used
    ])
    out = reference_table(summary).set_index("quantity")
    isc = "single agent: judge score, Integration of Scientific Concepts"
    assert out.loc[isc, "paper's figure"] == "3.62 ± 1.14" and out.loc[isc, "this run"] == "2.5 ± 0.5 (n = 3)"
    assert out.loc["single agent: KL Divergence (whole story)", "paper's figure"] == "2.233 ± 0.012"
    assert out.loc["single agent: KL Divergence (whole story)", "this run"] == "1.25 (n = 6)"
    assert out.loc["single agent: Surprisal", "this run"] == "not measured here"
    assert out.loc["single agent: judge score, Speculative Logic", "paper's figure"] == "3.62 ± 1.13"
    assert out.loc["single agent: judge score, Character Depth", "paper's figure"] == "3.41 ± 1.11"
    assert list(out["paper's figure"]) == ["3.62 ± 1.14", "3.62 ± 1.13", "3.41 ± 1.11", "0.476 ± 0.271",
                                           "2.233 ± 0.012", "0.345 ± 0.002", "0.0138 ± 0.0002"]


def test_novelty_table_refuses_another_embedder():
    store = CorpusStore(pd.DataFrame({"chunk_id": ["c"]}), np.eye(2, dtype=np.float32)[:1], "k", "mpnet", None)
    with pytest.raises(ValueError, match="differs from the corpus store"):
        novelty_table(pd.DataFrame({"story_id": ["s"], "prompt": ["p"], "story": ["a"]}), store, {"a": 1},
                      _axis_embedder(), ScriptedBackend(lambda p, i: ""), progress=False)


def _score(story, dim, value, mode="expected", samples=()):
    return RubricScore(story, dim, mode, "j", value, samples=list(samples))


def test_judge_table_means_available_dimensions_and_counts_missing():
    dims = ["integration", "logic", "character", "world", "ethics"]
    scores = [_score("s", d, v) for d, v in zip(dims, [1, 2, 3, 4, None], strict=True)]
    row = judge_table(scores).iloc[0]
    assert row["judge_mean"] == 2.5 and row["judge_missing"] == 1 and math.isnan(row["ethics"])


def test_judge_table_refuses_mixed_modes():
    with pytest.raises(ValueError, match="mix modes"):
        judge_table([_score("s", "logic", 1), _score("s", "logic", 2, mode="sampled")])


def test_mode_comparison_by_hand():
    expected = [_score("a", "logic", 3.0), _score("b", "logic", 2.0)]
    sampled = [_score("a", "logic", 4.0, "sampled", [4, 3, 5]), _score("b", "logic", 2.0, "sampled", [2, None, 2])]
    row = mode_comparison(expected, sampled).iloc[0]
    assert row["stories"] == 2 and row["mean_abs_diff"] == 0.5 and row["missing_repeats"] == 1
    assert row["within_sd"] == pytest.approx((1.0 + 0.0) / 2)


def test_framework_summary_mean_sd_and_ci():
    table = _table({"review": [1.0, 2.0, 3.0], "single": [5.0, 5.0, 5.0]})
    s = framework_summary(table, ["x"], n_resamples=200).set_index("system")
    assert s.loc["review", "mean"] == 2.0 and s.loc["review", "sd"] == 1.0 and s.loc["review", "n"] == 3
    assert 1.0 <= s.loc["review", "ci_low"] <= 2.0 <= s.loc["review", "ci_high"] <= 3.0
    assert s.loc["single", "ci_low"] == s.loc["single", "ci_high"] == 5.0
    assert paper_table(s.reset_index(), ["x"]).loc["review", "x"] == "2.00 ± 1.00"


def test_prompt_means_average_a_systems_stories_per_prompt():
    table = pd.DataFrame({"system": ["review"] * 3, "prompt_id": ["p0", "p0", "p1"], "x": [1.0, 3.0, 5.0]})
    assert prompt_means(table, ["x"])["x"].tolist() == [2.0, 5.0]


def test_cohen_dz_by_hand():
    assert cohen_dz(np.array([1.0, 2.0, 3.0])) == pytest.approx(2.0)  # mean 2, sd 1
    assert math.isnan(cohen_dz(np.array([1.0])))


def test_paired_comparison_by_hand():
    # d = (1, 2, 3): mean 2, sd 1, t = 2 / (1 / sqrt 3) = 2 sqrt 3
    table = _table({"review": [2.0, 4.0, 6.0], "single": [1.0, 2.0, 3.0]})
    row = paired_comparisons(table, ["x"], "review", ["single"], n_resamples=200).iloc[0]
    assert row["n_pairs"] == 3 and row["diff"] == 2.0 and row["dz"] == pytest.approx(2.0)
    assert row["t"] == pytest.approx(2 * math.sqrt(3))
    assert row["p_wilcoxon"] == pytest.approx(0.25)  # exact: all three signs positive, 2 / 2^3
    assert row["p_holm"] == pytest.approx(row["p_t"])  # one test: Holm changes nothing


def test_holm_adjusts_across_comparisons():
    table = _table({"review": [2.0, 4.0, 6.0, 8.0], "single": [1.0, 2.0, 3.0, 4.5], "debate": [1.5, 3.9, 5.0, 7.0]})
    out = paired_comparisons(table, ["x"], "review", ["single", "debate"], n_resamples=100)
    p = sorted(out["p_t"])
    assert sorted(out["p_holm"]) == pytest.approx([2 * p[0], max(2 * p[0], p[1])])


def test_unknown_system_is_an_error():
    with pytest.raises(ValueError, match="have no stories"):
        paired_comparisons(_table({"review": [1.0]}), ["x"], "review", ["teacher"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=3, max_size=8), st.floats(0.1, 3))
def test_shifting_the_reference_up_raises_the_difference(base, shift):
    table = _table({"review": [b + shift for b in base], "single": base})
    row = paired_comparisons(table, ["x"], "review", ["single"], n_resamples=50).iloc[0]
    assert row["diff"] == pytest.approx(shift, abs=1e-9)


def test_judge_vs_human_is_one_for_a_judge_that_copies_the_raters():
    from llmcreativity.data.hanna import load_hanna_human
    from llmcreativity.evaluation.human_agreement import judge_vs_human

    hanna = load_hanna_human()
    means = hanna.mean_scores().iloc[:12]
    judge = pd.DataFrame({"story_id": means.index, "logic": means["Coherence"].to_numpy()})
    row = judge_vs_human(judge, hanna, n_resamples=100).iloc[0]
    assert row["criterion"] == "Coherence" and row["n"] == 12 and row["rho"] == pytest.approx(1.0)


def test_metric_distributions_leave_out_stories_without_a_value():
    import matplotlib

    matplotlib.use("Agg")
    from llmcreativity.evaluation.plots import plot_metric_distributions

    table = pd.DataFrame({"system": ["a", "a", "b", "b"], "lexical_kl": [1.0, 1.2, np.nan, np.nan],
                          "novelty": [np.nan] * 4})
    fig = plot_metric_distributions(table, ["lexical_kl", "novelty"])
    assert [ax.get_title() for ax in fig.axes] == ["lexical_kl", "novelty (no values)"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["a"]
