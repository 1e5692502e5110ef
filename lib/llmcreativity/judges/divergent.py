"""Divergent versus convergent: a judge's verdict on each semantic-entropy chain's own solution, against its SE;
and an LLM's novelty rating of each solution, against its SE (claim B8).

A chain's judge item has id `chain_item_id(chain)`, the chain's problem as its task and the chosen
steps (`entropy.tables.solution_text`) as the response; this module is the one place both are made.
Intervals resample problems (the chains of one problem are not independent) when the chain table
has a `problem_id` column, else chains.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..entropy.analysis import spearman_with_ci
from ..entropy.tables import solution_text
from ..llm.backend import Backend
from ..verdicts import Verdict, not_testable, sign_verdict, weak_verdict
from . import JudgeItem, Judgement, validity_score

NOVELTY_DIGITS = ("1", "2", "3", "4", "5")
"""The novelty rating's answers, from 1 (a standard solution) to 5 (highly novel)."""

NO_STEPS = "(no steps)"
"""The response judged for a chain that chose no step."""


def chain_item_id(chain: str) -> str:
    """The judge-item id of a semantic-entropy chain: "chain-<chain id>"."""
    return f"chain-{chain}"


def chain_items(chains: pd.DataFrame, *, domain: str = "macgyver") -> list[JudgeItem]:
    """A JudgeItem per chain of `domain` in the per-chain table (columns chain, domain, problem, solution_steps)."""
    missing = [c for c in ("chain", "domain", "problem", "solution_steps") if c not in chains.columns]
    if missing:
        raise ValueError(f"the per-chain table lacks columns {missing}: re-run the semantic_entropy stage, which "
                         "stores each chain's problem and chosen steps")
    rows = chains[chains["domain"] == domain]
    return [JudgeItem(chain_item_id(r.chain), str(r.problem), solution_text(r.solution_steps) or NO_STEPS)
            for r in rows.itertuples()]


def divergent_convergent(chains: pd.DataFrame, judgements: Iterable[Judgement], se_column: str, *,
                         domain: str = "macgyver", n_resamples: int = 1000,
                         seed: int = 0) -> tuple[pd.DataFrame, dict[str, float]]:
    """The chains of `domain` with the judge's `verdict`, `p_valid` (`validity_score`) and `solution` text, and
    Spearman's rho(`se_column`, p_valid) with a bootstrap 95 % CI over the chains with a p_valid."""
    judged = {j.item_id: j for j in judgements}
    rows = chains[chains["domain"] == domain]
    ids = rows["chain"].map(chain_item_id)
    both = rows.assign(verdict=ids.map(lambda i: judged[i].verdict),
                       p_valid=ids.map(lambda i: validity_score(judged[i])),
                       solution=rows["solution_steps"].map(solution_text)).dropna(subset=["p_valid"])
    groups = both["problem_id"] if "problem_id" in both.columns else None
    return both, spearman_with_ci(both[se_column], both["p_valid"], groups=groups, n_resamples=n_resamples, seed=seed)


def weak_link_claim(both: pd.DataFrame, stats: dict[str, float], se_column: str, judge_name: str,
                    judge_model: str) -> tuple[str, Verdict]:
    """Claim B6 ("divergent and convergent scores correlate only weakly"): its text and `weak_verdict`."""
    models = ", ".join(sorted(both["model_name"].unique()))
    text = (f"Over {len(both)} MacGyver chains (models {models}), the chain's {se_column} vs the {judge_name} "
            f"judge's probability that the chain's own solution is valid ({judge_model}).")
    return text, weak_verdict(stats["low"], stats["high"], statistic=stats["rho"], n=stats["n"],
                              measure=f"Spearman rho({se_column}, p_valid)")


def novelty_messages(problem: str, solution: str) -> list[dict[str, str]]:
    """The chat prompt that asks for a 1-5 novelty rating of one solution to one problem."""
    user = (f"Problem:\n{problem.strip()}\n\nProposed solution:\n{solution.strip() or NO_STEPS}\n\n"
            "How novel is this solution, compared with what most people would propose for this problem? "
            "Rate it from 1 (a standard, obvious solution) to 5 (a highly original one). Answer with one digit.")
    return [{"role": "system", "content": "You rate the novelty of solutions. Reply with one digit."},
            {"role": "user", "content": user}]


def novelty_scores(chains: pd.DataFrame, lm: Backend) -> pd.DataFrame:
    """The chains with `novelty`: the judge's expected rating E[r] = sum_r r p(r | prompt), r in 1..5, of the chain's
    own solution (`novelty_messages`, p from `lm.answer_probs` renormalized over the five digits)."""
    missing = [c for c in ("problem", "solution_steps") if c not in chains.columns]
    if missing:
        raise ValueError(f"the per-chain table lacks columns {missing}: re-run the semantic_entropy stage")
    scores = [lm.answer_probs(novelty_messages(str(r.problem), solution_text(r.solution_steps)),
                              list(NOVELTY_DIGITS)).expected() for r in chains.itertuples()]
    return chains.assign(novelty=scores)


def novelty_claim(scored: pd.DataFrame, se_column: str, judge_model: str, *, entailment: bool,
                  n_resamples: int = 1000, seed: int = 0) -> tuple[str, Verdict]:
    """Claim B8 ("solution-level SE correlates with an LLM novelty judgement"): its text and verdict.

    Solution-level SE is the chain's mean step SE (`se_column`); the statistic is Spearman's rho(SE, novelty)
    with a 95 % CI over problems, judged by `sign_verdict` (expected sign +1). Clusters from the embedding
    approximation (`entailment=False`) decide nothing: the verdict is then `not_testable`.
    """
    stats = spearman_with_ci(scored[se_column], scored["novelty"], groups=scored["problem_id"],
                             n_resamples=n_resamples, seed=seed)
    domains = ", ".join(sorted(scored["domain"].unique()))
    text = (f"Over {stats['n']} chains ({domains}; {stats['n_groups']} problems), the chain's mean {se_column} vs "
            f"{judge_model}'s expected 1-5 novelty rating of the chain's own solution.")
    measure = f"Spearman rho({se_column}, novelty), CI over {stats['n_groups']} problems"
    if not entailment:
        return text, not_testable("the candidates were clustered with the embedding-similarity approximation, which "
                                  "may be shown but never decides; cluster by entailment", n=stats["n"],
                                  measure=measure)
    return text, sign_verdict(stats["low"], stats["high"], 1, statistic=stats["rho"], n=stats["n"], measure=measure)
