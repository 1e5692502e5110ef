"""Claim B7: SE against surface measures as predictors of human set diversity (MuseScorer buckets)."""

import numpy as np
import pandas as pd
import pytest

from entropy_helpers import FirstWordJudge
from llmcreativity.claims.verdicts import beats_every_baseline
from llmcreativity.entropy.diversity_agreement import (
    BASELINES,
    agreement_comparisons,
    disjoint_sets,
    human_diversity,
    set_diversity,
)
from llmcreativity.llm import ScriptedEmbedder


def ideas(n=120, seed=0):
    """Ideas whose first word is their bucket (both coders agree); the rest is filler from 40 words."""
    rng = np.random.default_rng(seed)
    bucket = rng.choice(12, size=n, p=np.r_[[0.4, 0.2], np.full(10, 0.04)])
    words = ["hat", "door", "fish", "kite", "pan", "cup", "rope", "lamp", "bell", "nail", "coin", "box"]
    text = [f"{words[b]} " + " ".join(f"w{rng.integers(40)}" for _ in range(rng.integers(2, 6))) for b in bucket]
    return pd.DataFrame({"id": range(n), "round_id": 1, "idea_content": text, "ali": bucket, "krish": bucket})


def test_disjoint_sets_share_no_idea_and_refuse_too_many():
    sets = disjoint_sets(ideas(), 1, 6, 5, seed=1)
    assert [len(s) for s in sets] == [5] * 6
    assert len({i for s in sets for i in s["id"]}) == 30
    with pytest.raises(ValueError, match="lower n_sets or set_size"):
        disjoint_sets(ideas(), 1, 30, 5)


def test_human_diversity_is_the_mean_entropy_of_the_coders_buckets():
    s = pd.DataFrame({"ali": [1, 1, 2, 3], "krish": [1, 1, 1, 1]})
    assert human_diversity(s) == pytest.approx(0.5 * -(0.5 * np.log(0.5) + 2 * 0.25 * np.log(0.25)))


def test_se_from_bucket_faithful_clusters_beats_every_surface_measure():
    sets = disjoint_sets(ideas(), 1, 20, 5, seed=2)
    table = set_diversity(sets, FirstWordJudge(), ScriptedEmbedder())
    assert len(table) == 20 and table["SE"].to_numpy() == pytest.approx(table["human"].to_numpy())
    assert (table["round"] == 1).all()  # each set's MuseScorer round, kept in the stage's per-set table
    comparisons = agreement_comparisons(table, n_resamples=300)
    assert list(comparisons["baseline"]) == list(BASELINES)
    assert comparisons["reference_rho"].to_numpy() == pytest.approx(np.ones(4)) and (comparisons["diff"] > 0).all()
    verdict = beats_every_baseline(comparisons)
    assert verdict.label == "supported" and verdict.n == 20


def test_a_judge_that_splits_every_set_apart_does_not_beat_the_baselines():
    class NeverEntails:
        identity = "never"
        calls = 0

        def entails(self, pairs, context=None):
            return [False] * len(pairs)

    table = set_diversity(disjoint_sets(ideas(), 1, 20, 5, seed=3), NeverEntails(), ScriptedEmbedder())
    # one cluster per idea: SE says nothing about the set
    assert table["SE"].to_numpy() == pytest.approx(np.full(20, np.log(5)))
    verdict = beats_every_baseline(agreement_comparisons(table, n_resamples=100))
    assert verdict.label == "not supported" and verdict.n == 20


def test_b7_under_the_laboratory_judge_reads_only_the_objects_it_was_never_fitted_or_chosen_on():
    """The committed equivalence choice held out button and key (rounds 2 and 3); B7's sets come from those rounds
    only, each set within one round, none sharing an idea."""
    import json

    import pandas as pd

    from llmcreativity.data.musescorer import ROUND_OBJECTS
    from llmcreativity.entropy.diversity_agreement import b7_sets_of, unseen_rounds
    from llmcreativity.judgelab.choice import choice_path

    held_out = json.loads(choice_path("entailment").read_text())["settings"]["test_objects"]
    rounds = unseen_rounds()
    assert sorted(ROUND_OBJECTS[r] for r in rounds) == sorted(held_out) and len(rounds) == 2
    ideas = pd.DataFrame({"round_id": [r for r in range(1, 6) for _ in range(12)],
                          "idea_content": [f"idea {i}" for i in range(60)]})
    sets = b7_sets_of(ideas, rounds, 2, 5, seed=1)
    assert len(sets) == 4 and all(s["round_id"].nunique() == 1 for s in sets)
    assert {int(s["round_id"].iloc[0]) for s in sets} == set(rounds)
    drawn = [t for s in sets for t in s["idea_content"]]
    assert len(drawn) == len(set(drawn)) == 20
