"""Fixed inputs of every claim function and of the comparison statistics, shared by the tests that check their
texts, verdicts and numbers against the ones the code gave before they moved (`data/json_records/`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from llmcreativity.data.hanna import CRITERIA, HannaHuman
from llmcreativity.evaluation import JUDGE_COLUMNS, NOVELTY_COLUMNS
from llmcreativity.judges import CriterionVerdict, JudgeCall, Judgement, judgement_table
from llmcreativity.writing import BASELINES

LARGE = "single (big)"
"""The bigger Single Agent's system in the story tables."""


def story_table(n_prompts: int = 6, review_high: bool = True, seed: int = 0) -> pd.DataFrame:
    """Stories of every baseline, Review and the bigger Single Agent with judge and novelty scores, Review ahead
    (or behind) plus noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for system in [*BASELINES, "review", LARGE]:
        high = (system == "review") == review_high
        for i in range(n_prompts):
            value = (4.0 if high else 2.0) + 0.1 * i
            scores = {c: value + rng.normal(0, 0.3) for c in [*JUDGE_COLUMNS, *NOVELTY_COLUMNS]}
            rows.append({"system": system, "prompt_id": f"p{i}", "story_id": f"{system}-p{i}",
                         "judge_mean": float(np.mean([scores[c] for c in JUDGE_COLUMNS])), **scores})
    return pd.DataFrame(rows)


def hanna(n: int = 12, seed: int = 0) -> tuple[HannaHuman, np.ndarray]:
    """HANNA-like human ratings of `n` stories around a hidden quality, and that quality."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(1, 5, size=n)
    ratings = [{"story_id": i, "criterion": c, "rater": r, "score": float(np.clip(round(q + rng.normal(0, 0.3)), 1, 5))}
               for i, q in enumerate(quality) for c in CRITERIA.values() for r in (1, 2, 3)]
    stories = pd.DataFrame({"story_id": range(n), "prompt": "p", "story": "s"})
    return HannaHuman(stories, pd.DataFrame(ratings)), quality


def homogenization(deltas: dict[str, float], n_prompts: int = 8, seed: int = 0) -> pd.DataFrame:
    """H at round 0 and round 1 per framework and prompt; round 1 = round 0 + delta + noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for f, d in deltas.items():
        for i in range(n_prompts):
            base = 0.4 + 0.05 * rng.standard_normal()
            for r in (0, 1):
                h = base + (d + 0.01 * rng.standard_normal()) * r
                rows.append({"framework": f, "prompt_id": f"p{i}", "round": r, "n_stories": 3, "cosine": h,
                             "self_bleu": h / 2})
    return pd.DataFrame(rows)


def se_correlations(low: float = 0.2, high: float = 0.6) -> pd.DataFrame:
    """A correlation table of the semantic-entropy chapter with the four claims' rows, over all domains."""
    pairs = [("temperature", "se_probability"), ("params_m", "se_probability"), ("n_clusters", "se_probability"),
             ("mean_cosine", "se_probability")]
    return pd.DataFrame([{"x": x, "y": y, "rho": (low + high) / 2, "p": 0.01, "low": low, "high": high, "n": 33 + k,
                          "n_groups": 10, "unit": "chain", "domain": "all"} for k, (x, y) in enumerate(pairs)])


def judgement(item: str, judge: str, verdict: bool | None, tokens: int = 10, confidence: float = 0.9) -> Judgement:
    """One judgement of one call of `tokens` tokens."""
    call = JudgeCall("valid", "a", 1, "judge", [{"role": "user", "content": "x"}], "r", tokens - 1, 1, 0.5, False)
    return Judgement(item, judge, verdict, [CriterionVerdict("valid", verdict, confidence, "a", 1, False, 0)], [call])


def per_item(n: int, correct_share: dict[str, float], tokens: dict[str, int] | None = None) -> pd.DataFrame:
    """Judges R (always right) and the others, right on the first share x n items, on n balanced items."""
    labels = {f"i{i}": i % 2 == 0 for i in range(n)}
    spent = tokens or {}
    js = [judgement(i, "R", y, spent.get("R", 10)) for i, y in labels.items()]
    for name, share in correct_share.items():
        js += [judgement(i, name, y if k < share * n else not y, spent.get(name, 10))
               for k, (i, y) in enumerate(labels.items())]
    return judgement_table(js, labels)


def domain_chains(domain: str, n_problems: int, rho_sign: int, models: tuple[int, ...] = (135, 270)) -> pd.DataFrame:
    """Chains of `domain`: per problem one chain per model; p_valid rises with SE (rho_sign=+1) or falls, with noise."""
    rng = np.random.default_rng(n_problems)
    rows = []
    for p in range(n_problems):
        for m, params in enumerate(models):
            se = p + 0.5 * m
            rows.append({"chain": f"{domain}-{p}-{m}", "domain": domain, "problem_id": f"{domain}{p}",
                         "params_m": params, "se_probability": se + rng.normal(0, 0.1),
                         "p_valid": 0.5 + rho_sign * 0.04 * se + rng.normal(0, 0.05), "model_name": f"m{params}",
                         "novelty": 2 + 0.2 * se + rng.normal(0, 0.3)})
    return pd.DataFrame(rows)


def diversity_sets(n: int = 12, seed: int = 0) -> pd.DataFrame:
    """A B7 set table: human diversity, SE close to it, the surface measures further off."""
    rng = np.random.default_rng(seed)
    human = rng.uniform(0.5, 2.0, n)
    return pd.DataFrame({"set": range(n), "ideas": 5, "human": human, "SE": human + rng.normal(0, 0.1, n),
                         "clusters": 3, "1 - mean cosine": human + rng.normal(0, 0.5, n),
                         "Distinct-1": rng.uniform(0, 1, n), "Distinct-2": human + rng.normal(0, 1.0, n),
                         "1 - Self-BLEU": np.full(n, 0.5), "judge_calls": 10})


def partitions(n: int = 30, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """A judge's cluster labels of `n` ideas and two coders' buckets, partly agreeing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 6, n)
    judge = [f"j{t if rng.uniform() < 0.7 else rng.integers(0, 6)}" for t in truth]
    return judge, [[f"a{t}" for t in truth], [f"k{t // 2}" for t in truth]]
