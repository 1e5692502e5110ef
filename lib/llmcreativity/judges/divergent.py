"""Divergent versus convergent: a judge's verdict on each semantic-entropy chain's own solution, against its SE.

A chain's judge item has id `chain_item_id(chain)`, the chain's problem as its task and the chosen
steps (`entropy.tables.solution_text`) as the response; this module is the one place both are made.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ..entropy.analysis import spearman_with_ci
from ..entropy.tables import solution_text
from ..verdicts import Verdict, weak_verdict
from . import JudgeItem, Judgement, validity_score

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
    return both, spearman_with_ci(both[se_column], both["p_valid"], n_resamples=n_resamples, seed=seed)


def weak_link_claim(both: pd.DataFrame, stats: dict[str, float], se_column: str, judge_name: str,
                    judge_model: str) -> tuple[str, Verdict]:
    """Claim B6 ("divergent and convergent scores correlate only weakly"): its text and `weak_verdict`."""
    models = ", ".join(sorted(both["model_name"].unique()))
    text = (f"Over {len(both)} MacGyver chains (models {models}), the chain's {se_column} vs the {judge_name} "
            f"judge's probability that the chain's own solution is valid ({judge_model}).")
    return text, weak_verdict(stats["low"], stats["high"], statistic=stats["rho"], n=stats["n"],
                              measure=f"Spearman rho({se_column}, p_valid)")
