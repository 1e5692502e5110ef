"""Divergent versus convergent: a judge's verdict on each semantic-entropy chain's own solution, against its SE;
and an LLM's novelty rating of each solution, against its SE (claim B8).

A chain's judge item has id `chain_item_id(chain)`, the chain's problem as its task and the chosen
steps (`entropy.entropy_tables.solution_text`) as the response; this module is the one place both are made.
Every domain of the per-chain table (its `domain` column) is analysed on its own; correlations
resample problems, not chains (`resample.problem_spearman`); a verdict's n counts problems. The claims' texts
and minimum numbers of problems are their declarations below (B6, B8, B11; B13 and B15, not testable here),
registered in `claims.declarations`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace

import pandas as pd

from ..claims.declarations import min_n, register
from ..claims.sizing import PROBLEMS_WHOLE, RHO_PRECISION, SIGN, Target
from ..claims.spec import PAPER_B, ClaimSpec
from ..claims.verdicts import Verdict, all_of_verdict, barely_varies, not_testable, sign_verdict, weak_verdict
from ..entropy import exploratory_verdicts as ev
from ..entropy.analysis import spearman_with_ci
from ..entropy.entropy_tables import solution_text
from ..llm.backend import Backend
from ..stats.sample_size import design_effect, n_for_correlation
from . import JudgeItem, Judgement, validity_score
from .criteria import PAPER_CRITERIA
from .judgement import Criterion
from .pilot_readers import read_b6, read_b8, read_b11
from .resample import problem_spearman

# Claims B6, B8 and B11, declared beside the code that decides them (`claims.declarations`), with B13 and B15, not
# testable here: B13 beside B8 (the same novelty judge, against people), B15 beside B11 (convergent scores by model).
register(
    ClaimSpec("B6", PAPER_B, "Divergent (semantic entropy) and convergent (judge) scores correlate only weakly.",
              "divergent ~ convergent only weakly",
              "consistently weak correlation, the two dimensions separable: “Spearman 一致偏弱，两维经验上可分离” "
              "(summary, qualitative)", None, "", 5, "problems",
              "convergent",
              estimator="per domain, Spearman rho(chain SE, the judge's p_valid of the chain's own solution), "
                        "bootstrap CI over problems; weak when the CI lies inside (-0.3, 0.3) (`weak_verdict`); "
                        "every domain with human labels must hold (the others are stand-ins, shown)",
              text="Per domain, each chain's {se_column} vs the {judge_name} judge's probability that the chain's own "
                   "solution is valid ({judge_model}; problems resampled): {per_domain}.",
              target=Target("per chain of each domain: (probability-weighted SE, the convergent judge's p_valid)",
                     "Fisher-z half-width <= the distance from z(pilot rho) to the nearer of z(-0.3), "
                     "z(0.3)" + PROBLEMS_WHOLE,
                     "the weak rule needs the interval inside (-0.3, 0.3) (or wholly beyond): around the pilot's rho "
                     "an interval this narrow fits; alternative 'smallest effect': half-width z(0.3), which fits when "
                     "centred at 0", read_b6, (n_for_correlation, design_effect))),
    ClaimSpec("B8", PAPER_B, "Solution-level semantic entropy correlates with an LLM judgement of novelty.",
              "solution SE ~ LLM novelty",
              "positive correlation, “正相关”, with an LLM novelty judge checked on 30 problems against human rankings "
              "(summary, qualitative)",
              None, "", 5, "problems", "entailment",
              estimator="Spearman rho(solution-level SE = the chain's mean step SE, the novelty judge's expected "
                        "1-5 rating), bootstrap CI over problems; supported when the CI lies above 0 "
                        "(`sign_verdict`)",
              text="Over {chains} chains ({domains}; {problems} problems), the chain's mean {se_column} vs "
                   "{judge_model}'s expected 1-5 novelty rating of the chain's own solution.",
              target=Target("per chain: (solution-level SE, the novelty judge's expected rating)",
                     RHO_PRECISION + PROBLEMS_WHOLE, SIGN, read_b8, (n_for_correlation, design_effect))),
    ClaimSpec("B11", PAPER_B, "Convergent scores rise with model scale while divergent ones do not.",
              "convergent rises with scale, divergent not",
              "convergent scores rise with model size, “单调提升”, divergent ones are “不单调” (summary, qualitative)",
              None, "", 5, "problems", "convergent",
              estimator="per domain, Spearman rho(model parameters, p_valid) above 0 and rho(model parameters, SE) "
                        "at or below 0 (`sign_verdict`), bootstrap CI over problems; every part of the domains with "
                        "human labels must hold (the others are stand-ins, shown)",
              text="Spearman rho of model parameters with the {judge_name} judge's p_valid ({judge_model}) and with "
                   "SE, per domain ({model_sizes}; problems resampled).",
              target=Target("per chain of each domain: (model parameters, p_valid) and (model parameters, SE)",
                     RHO_PRECISION + PROBLEMS_WHOLE + ", each part",
                     "every part is a sign (p_valid rises; SE at or below 0): " + SIGN, read_b11,
                     (n_for_correlation, design_effect))),
    ClaimSpec("B13", PAPER_B, "The LLM novelty judge agrees with human novelty rankings.",
              "novelty judge ~ human rankings", "Spearman rho 0.80 on 30 problems", 0.80, "rho", 30, "problems",
              "none", not_testable="no human novelty rankings of solutions here"),
    ClaimSpec("B15", PAPER_B, "Convergent scores rise for newer and reasoning models.",
              "convergent rises for newer/reasoning models",
              "convergent scores rise for newer and reasoning models: "
              "“更大、更新、带推理（R1-70B）的模型收敛分更高” (summary, "
              "qualitative)", None, "", 5, "problems", "convergent",
              not_testable="no newer or reasoning models run here"),
    module=__name__,
)

# B16: a statement of the summary's that B6's data could test but no recorded run decides (`ClaimSpec.later`).
register(
    ClaimSpec("B16", PAPER_B, "Semantic entropy measures breadth, not error: it does not correlate strongly and "
              "negatively with task completion.", "SE not an error signal",
              "were SE mostly an error signal, it “should correlate strongly and negatively with task completion; "
              "there is no such relation” (summary, translated; qualitative)", None, "", 5, "problems", "convergent",
              estimator="per domain with human labels, Spearman rho(chain probability-weighted SE, the convergent "
                        "judge's p_valid of the chain's own solution), bootstrap CI over problems; supported when the "
                        "CI's lower end lies above -0.3",
              later="B6's recorded correlation bears it, but B6 registered a two-sided rule (weak: the CI inside "
                    "(-0.3, 0.3)); this one-sided reading was registered for no run, and choosing it after B6's "
                    "verdicts were seen would be a test chosen after its data"),
    module=__name__,
)


NOVELTY_DIGITS = ("1", "2", "3", "4", "5")
"""The novelty rating's answers, from 1 (a standard solution) to 5 (highly novel)."""

NO_STEPS = "(no steps)"
"""The response judged for a chain that chose no step."""

PAPER_SCORER = "retrieval"
"""The convergent scorer of the chains that can decide B6 and B11 (judge_validation's `se_judge`): the paper's
retrieval-based multi-agent judge in its full view. The paper profile uses it; any other scorer (the default
profile's p(yes), one scoring pass) is a cheaper stand-in, and its B6 and B11 verdicts are "inconclusive"."""


LABELLED_DOMAINS = frozenset({"macgyver"})
"""The domains whose solutions carry human validity labels here (MacGyver's), on which the convergent judge is
validated. The chains of any other domain (hypogen-astro) are scored by a judge measured on none of that domain's
solutions: their parts of B6 and B11 are stand-ins, shown and marked so, and decide nothing on their own."""


_STAND_IN_MARK = " (a stand-in: no human labels)"
"""What a claim's text says after a domain outside `LABELLED_DOMAINS`."""


def _labels(domain: str) -> str:
    """A B6 or B11 table's word on a domain's human labels: whether its part can decide."""
    return "human" if domain in LABELLED_DOMAINS else "none: a stand-in"


def labelled_verdict(parts: dict[str, Verdict]) -> Verdict:
    """`all_of_verdict` over the parts of the domains with human labels (`LABELLED_DOMAINS`; a part's name starts
    with its domain), its statistic and measure the deciding part's (which names its domain), the others' verdicts
    appended to the reason as stand-ins that decide nothing; "inconclusive" (with the first part's statistic) when no
    part has human labels."""
    labelled = {k: v for k, v in parts.items() if k.split()[0] in LABELLED_DOMAINS}
    stand_ins = {k: v for k, v in parts.items() if k not in labelled}
    if labelled:
        v = all_of_verdict(labelled)
    else:
        lead = next(iter(parts.values()))
        v = Verdict("inconclusive", "no domain's chains have human labels, so no part decides", lead.statistic,
                    lead.ci_low, lead.ci_high, lead.n, lead.measure)
    if not stand_ins:
        return v
    shown = "; ".join(f"{k}: {x.label} ({x.reason})" for k, x in stand_ins.items())
    return replace(v, reason=f"{v.reason}; stand-ins without human labels, deciding nothing: {shown}")


def scorer_note(scorer: str, judge_name: str) -> str:
    """One sentence on where the chains' convergent score comes from: the paper's judge, or a named stand-in."""
    if scorer == PAPER_SCORER:
        return (f"The convergent score of every chain comes from the paper's judge, the retrieval-based multi-agent "
                f"panel in its full view ({judge_name}).")
    return (f"The convergent score of every chain comes from {judge_name} (se_judge={scorer!r}), a cheaper stand-in "
            f"for the paper's multi-agent judge (se_judge={PAPER_SCORER!r}, as in the paper profile): B6 and B11 "
            "are shown but not decided by it.")


def _stand_in(verdict: Verdict, scorer: str, judge_name: str) -> Verdict:
    """`verdict` unless the scorer is a stand-in: then "inconclusive", keeping the statistic, saying why."""
    if scorer == PAPER_SCORER or verdict.label == "not testable here":
        return verdict
    return replace(verdict, label="inconclusive",
                   reason=f"the convergent score comes from {judge_name} (se_judge={scorer!r}), a stand-in for the "
                          f"paper's multi-agent judge (se_judge={PAPER_SCORER!r}); it would read: {verdict.label} "
                          f"({verdict.reason})")


def chain_item_id(chain: str) -> str:
    """The judge-item id of a semantic-entropy chain: "chain-<chain id>"."""
    return f"chain-{chain}"


def domain_criteria(domain: str, macgyver: tuple[Criterion, ...]) -> tuple[Criterion, ...]:
    """The criteria a chain of `domain` is judged on: `macgyver` (the set validated against MacGyver's labels) for
    MacGyver chains, the paper's four convergent criteria (`PAPER_CRITERIA`) for every other domain."""
    return macgyver if domain == "macgyver" else PAPER_CRITERIA


def chain_items(chains: pd.DataFrame, *, domain: str = "macgyver") -> list[JudgeItem]:
    """A JudgeItem per chain of `domain` in the per-chain table (columns chain, domain, problem, solution_steps)."""
    missing = [c for c in ("chain", "domain", "problem", "solution_steps") if c not in chains.columns]
    if missing:
        raise ValueError(f"the per-chain table lacks columns {missing}: re-run the semantic_entropy stage, which "
                         "stores each chain's problem and chosen steps")
    rows = chains[chains["domain"] == domain]
    return [JudgeItem(chain_item_id(r.chain), str(r.problem), solution_text(r.solution_steps) or NO_STEPS)
            for r in rows.itertuples()]


def judged_chains(chains: pd.DataFrame, judgements: Iterable[Judgement], *, domain: str = "macgyver") -> pd.DataFrame:
    """The chains of `domain` with the judge's `verdict`, `p_valid` (`validity_score`) and `solution` text (chains
    without a p_valid are dropped)."""
    judged = {j.item_id: j for j in judgements}
    rows = chains[chains["domain"] == domain]
    ids = rows["chain"].map(chain_item_id)
    absent = sorted(set(ids) - set(judged))
    if absent:
        raise KeyError(f"chains {absent[:3]} of {domain} have no judgement: judge chain_items(chains, domain=...)")
    return rows.assign(verdict=ids.map(lambda i: judged[i].verdict),
                       p_valid=ids.map(lambda i: validity_score(judged[i])),
                       solution=rows["solution_steps"].map(solution_text)).dropna(subset=["p_valid"])


def _small(n_problems: int, min_problems: int, measure: str, stats: dict[str, float]) -> Verdict | None:
    """"inconclusive: sample too small" below `min_problems` problems, else None."""
    if n_problems >= min_problems:
        return None
    return Verdict("inconclusive", f"sample too small: {n_problems} problem(s) (< {min_problems})",
                   stats["rho"] if pd.notna(stats["rho"]) else None, None, None, int(stats["n_groups"]), measure)


def _flat(both: pd.DataFrame, columns: Iterable[str], measure: str, stats: dict[str, float]) -> Verdict | None:
    """"inconclusive: <column> barely varies" when one of `columns` does (`verdicts.barely_varies`), else None: a
    correlation with a nearly constant score is near 0 for want of variation, not evidence of a weak link."""
    flat = [f"{c} barely varies: {why}" for c in columns if (why := barely_varies(both[c]))]
    if not flat:
        return None
    return Verdict("inconclusive", "; ".join(flat), stats["rho"] if pd.notna(stats["rho"]) else None,
                   None, None, int(stats["n_groups"]), measure)


def weak_link_table(judged: dict[str, pd.DataFrame], se_column: str, *, n_resamples: int = 1000,
                    seed: int = 0) -> tuple[pd.DataFrame, dict[str, Verdict]]:
    """Per domain (`judged`: domain -> `judged_chains`): Spearman rho(se_column, p_valid), problems resampled, and
    `weak_verdict`; "inconclusive" below B6's minimum number of problems (`ClaimSpec.min_n`), or when SE or p_valid
    barely varies (`verdicts.barely_varies`: a degenerate score would make any correlation look weak)."""
    min_problems = min_n("B6")
    rows, verdicts = [], {}
    for domain, both in judged.items():
        s = problem_spearman(both, se_column, "p_valid", n_resamples=n_resamples, seed=seed)
        measure = f"Spearman rho({se_column}, p_valid), {domain}"
        v = (_small(s["n_groups"], min_problems, measure, s) or _flat(both, (se_column, "p_valid"), measure, s)
             or weak_verdict(s["low"], s["high"], statistic=s["rho"], n=s["n_groups"], measure=measure))
        verdicts[domain] = v
        rows.append({"domain": domain, "labels": _labels(domain), "chains": s["n"], "problems": s["n_groups"],
                     "rho": s["rho"], "low": s["low"], "high": s["high"], "verdict": v.label})
    return pd.DataFrame(rows), verdicts


def weak_link_claim(table: pd.DataFrame, verdicts: dict[str, Verdict], se_column: str, judge_name: str,
                    judge_model: str, *, scorer: str) -> Verdict:
    """Claim B6 ("divergent and convergent scores correlate only weakly") over the domains with human labels
    (`labelled_verdict`; the others shown as stand-ins);
    "inconclusive" when `scorer` (judge_validation's `se_judge`) is not the paper's judge (`PAPER_SCORER`). Facts of
    its text: `se_column`, `judge_name`, `judge_model` and each domain's rho with its CI (`per_domain`)."""
    per = "; ".join(f"{r.domain}{_STAND_IN_MARK if r.domain not in LABELLED_DOMAINS else ''}: "
                    f"rho {r.rho:.2f} [{r.low:.2f}, {r.high:.2f}] over {r.chains} chains of {r.problems} problems"
                    for r in table.itertuples())
    v = _stand_in(labelled_verdict(verdicts), scorer, judge_name)
    return replace(v, facts={"se_column": se_column, "judge_name": judge_name, "judge_model": judge_model,
                             "per_domain": per})


def scale_table(judged: dict[str, pd.DataFrame], se_column: str, *, n_resamples: int = 1000,
                seed: int = 0) -> tuple[pd.DataFrame, dict[str, Verdict]]:
    """Claim B11's parts per domain: rho(params_m, p_valid) should be > 0 (`sign_verdict` +1) and rho(params_m,
    se_column) should not be (`sign_verdict` 0), problems resampled; "not testable here" with one model size,
    "inconclusive" below B11's minimum number of problems (`ClaimSpec.min_n`) or when the score barely varies (a flat
    SE would "not rise" vacuously)."""
    min_problems = min_n("B11")
    rows, verdicts = [], {}
    for domain, both in judged.items():
        for score, expected, part in (("p_valid", +1, "convergent"), (se_column, 0, "divergent")):
            s = problem_spearman(both, "params_m", score, n_resamples=n_resamples, seed=seed)
            measure = f"Spearman rho(model parameters, {score}), {domain}"
            if both["params_m"].nunique() < 2:
                v = not_testable(f"the {domain} chains come from one model size", n=s["n_groups"], measure=measure)
            else:
                v = (_small(s["n_groups"], min_problems, measure, s) or _flat(both, (score,), measure, s)
                     or sign_verdict(s["low"], s["high"], expected, statistic=s["rho"], n=s["n_groups"],
                                     measure=measure))
            verdicts[f"{domain} {part}"] = v
            rows.append({"domain": domain, "labels": _labels(domain), "score": score,
                         "claimed": "rises" if expected else "does not rise",
                         "models": both["params_m"].nunique(), "chains": s["n"], "problems": s["n_groups"],
                         "rho": s["rho"], "low": s["low"], "high": s["high"], "verdict": v.label})
    return pd.DataFrame(rows), verdicts


def scale_claim(table: pd.DataFrame, verdicts: dict[str, Verdict], judge_name: str,
                judge_model: str, *, scorer: str) -> Verdict:
    """Claim B11 ("convergent scores rise with model scale while divergent ones do not"): `labelled_verdict` over
    both parts of the domains with human labels (the first convergent part's statistic unless a part fails; the
    other domains' parts shown as stand-ins); "inconclusive" when
    `scorer` is not the paper's judge (`PAPER_SCORER`). Facts of its text: `judge_name`, `judge_model` and the model
    sizes per domain (`model_sizes`)."""
    models = ", ".join(f"{d}{_STAND_IN_MARK if d not in LABELLED_DOMAINS else ''}: {m} model sizes"
                       for d, m in table.groupby("domain")["models"].first().items())
    v = _stand_in(labelled_verdict(verdicts), scorer, judge_name)
    return replace(v, facts={"judge_name": judge_name, "judge_model": judge_model, "model_sizes": models})


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


def novelty_table(scored: pd.DataFrame) -> pd.DataFrame:
    """What the semantic_entropy stage keeps of B8 (`output_files.NOVELTY`): each chain's keys and mean SEs with its
    `novelty` rating, the problem text and solution left to the chain table (`novelty_scores`' input)."""
    if "novelty" not in scored.columns:
        raise ValueError("the chains carry no `novelty` column: rate them with novelty_scores first")
    return scored.drop(columns=[c for c in ("problem", "solution_steps") if c in scored.columns])


def novelty_claim(scored: pd.DataFrame, se_column: str, judge_model: str, *, entailment: bool,
                  n_resamples: int = 1000, seed: int = 0) -> Verdict:
    """Claim B8 ("solution-level SE correlates with an LLM novelty judgement"): its verdict, with the facts of its
    text (chains, domains, problems, `se_column`, `judge_model`).

    Solution-level SE is the chain's mean step SE (`se_column`); the statistic is Spearman's rho(SE, novelty)
    with a 95 % CI over problems, judged by `sign_verdict` (expected sign +1). Clusters from the embedding
    approximation (`entailment=False`) decide nothing: the verdict is then `not_testable`.
    """
    stats = spearman_with_ci(scored[se_column], scored["novelty"], groups=scored["problem_id"],
                             n_resamples=n_resamples, seed=seed)
    facts = {"chains": stats["n"], "domains": ", ".join(sorted(scored["domain"].unique())),
             "problems": stats["n_groups"], "se_column": se_column, "judge_model": judge_model}
    measure = f"Spearman rho({se_column}, novelty), CI over {stats['n_groups']} problems"
    if not entailment:
        return replace(not_testable("the candidates were clustered with the embedding-similarity approximation, "
                                    "which may be shown but never decides; cluster by entailment",
                                    n=stats["n_groups"], measure=measure), facts=facts)
    return replace(sign_verdict(stats["low"], stats["high"], 1, statistic=stats["rho"], n=stats["n_groups"],
                                measure=measure), facts=facts)


def weak_link_verdicts(judged: dict[str, pd.DataFrame], *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """B6 under every SE statistic: per domain (`judged`: domain -> `judged_chains`), rho(the chain's
    mean SE, the judge's p_valid) with a CI over problems and B6's rule (`weak_link_table`, which
    also says "inconclusive" for too few problems or a score that barely varies); and per statistic an "all" row,
    the verdict over the domains with human labels (`labelled_verdict`) with its deciding part's
    rho. This is the weak rule's own label, before the registered claim's gate on a stand-in convergent scorer
    (`weak_link_claim`). `expected` is 0 (a weak link has no sign); `exploratory_verdicts.COLUMNS`."""
    rows: list[dict[str, object]] = []
    for column in ev.STATISTICS:
        if not all(column in frame.columns for frame in judged.values()):
            continue
        table, parts = weak_link_table(judged, column, n_resamples=n_resamples, seed=seed)
        for r in table.to_dict("records"):
            rows.append({"claim": "B6", "domain": r["domain"], "statistic": ev.STATISTIC_NAMES[column],
                         "column": column, "registered": column == ev.PRIMARY, "x": "p_valid", "expected": 0,
                         "rho": r["rho"], "low": r["low"], "high": r["high"], "n": int(r["chains"]),
                         "n_groups": int(r["problems"]), "verdict": r["verdict"]})
        overall = labelled_verdict(parts)
        rows.append({"claim": "B6", "domain": ev.ALL_DOMAINS, "statistic": ev.STATISTIC_NAMES[column], "column": column,
                     "registered": column == ev.PRIMARY, "x": "p_valid", "expected": 0,
                     "rho": math.nan if overall.statistic is None else overall.statistic,
                     "low": math.nan if overall.ci_low is None else overall.ci_low,
                     "high": math.nan if overall.ci_high is None else overall.ci_high, "n": overall.n,
                     "n_groups": overall.n, "verdict": overall.label})
    return pd.DataFrame(rows, columns=ev.COLUMNS)
