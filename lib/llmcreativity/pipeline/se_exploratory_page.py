"""The claims page's exploratory block beneath each SE claim's registered verdict.

For B1-B4, B6 and B8 the page shows, after the registered verdict: one sentence on the equivalence judge's validated
domain (read from the committed choice of the judge laboratory and its job's labels, `judgelab`), and, where the
semantic_entropy stage of the same run wrote them, the claim's verdicts under the SE statistics it is not registered
on (`exploratory_verdicts`, marked "exploratory, not registered"), the median effective number of samples behind
SE_P's weights per temperature (`weight_concentration`), and a line saying the statistics disagree in sign, only
when they do. Everything is read from the stage's output files (`output_files.SE_EXPLORATORY`,
`output_files.SE_WEIGHTS`), and for B1 how much of SE's rise with temperature comes with incoherent candidates
(`coherence.coherence_line`, from `output_files.SE_COHERENT`); nothing here is recorded or decides a verdict.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from ..entropy.coherence import coherence_line
from ..entropy.entropy_claims import ALL_DOMAINS
from ..entropy.exploratory_verdicts import established, sign_disagreement

SE_CLAIM_IDS = ("B1", "B2", "B3", "B4", "B6", "B8")
"""The claims that rest on semantic entropy, beneath whose verdicts the block stands."""
EXPLORATORY_MARK = "Exploratory, not registered (decides nothing)"
"""How the block's verdicts are introduced, so no reader takes them for the registered one."""


def judge_domain_sentence(choice: Path | None = None) -> str:
    """One sentence: the data the equivalence judge was confirmed on (the job's labels, `judgelab.jobs.JOBS`, and
    the objects of the committed choice, `judgelab.choice.choice_path`), and that it is not validated on solution
    steps; "" when no choice is committed."""
    from ..judgelab.choice import choice_path
    from ..judgelab.jobs import job_spec

    path = choice_path("entailment") if choice is None else choice
    if not path.exists():
        return ""
    data = json.loads(path.read_text(encoding="utf-8"))
    fitted = ", ".join(data.get("development", {}).get("objects", []))
    tested = ", ".join(data.get("settings", {}).get("test_objects", []))
    objects = f" (fitted on {fitted}; confirmed on {tested})" if fitted and tested else ""
    return (f"The equivalence judge that clusters the candidates ({data.get('protocol', 'the laboratory choice')}) "
            f"was confirmed on {job_spec('entailment').labels}, ideas for alternative uses of everyday "
            f"objects{objects}; it is not validated on solution steps, which this claim's candidates are.")


def _read(path: Path) -> pd.DataFrame | None:
    return pd.read_csv(path) if path.exists() else None


def _claim_rows(exploratory: pd.DataFrame, claim_id: str, run_id: str) -> pd.DataFrame:
    """The exploratory rows of `claim_id` over all domains, of the run `run_id`."""
    return exploratory[(exploratory["claim"] == claim_id) & (exploratory["domain"] == ALL_DOMAINS)
                       & (exploratory["run_id"].astype(str) == str(run_id))]


def _ci(r: pd.Series) -> str:
    if not (math.isfinite(r["low"]) and math.isfinite(r["high"])):
        return f"rho {r['rho']:+.2f}"
    return f"rho {r['rho']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]"


def median_n_eff(weights: pd.DataFrame) -> str:
    """"T 0.3: 3.1, T 1.5: 1.0": the median effective number of samples behind SE_P's weights per temperature.

    >>> median_n_eff(pd.DataFrame({"temperature": [0.3, 0.3, 1.5], "n_eff_probability": [3.0, 3.2, 1.0]}))
    'T 0.3: 3.1, T 1.5: 1.0'
    """
    med = weights.groupby("temperature")["n_eff_probability"].median()
    return ", ".join(f"T {t:g}: {v:.1f}" for t, v in med.items())


def exploratory_items(claim_id: str, run_id: str, exploratory: pd.DataFrame | None,
                      weights: pd.DataFrame | None, judge_sentence: str) -> list[str]:
    """The block's items for `claim_id` (none for a claim that does not rest on SE): `judge_sentence`, then, from the
    rows of `exploratory` (the stage's exploratory verdicts) of the same `run_id`, over all domains: the claim under
    each statistic it is not registered on, the median effective number of samples per temperature (`weights`, the
    stage's weight diagnostic), and the sign disagreement line when the statistics disagree (with why they can,
    when SE_P's weight sits on fewer than 2 effective samples)."""
    if claim_id not in SE_CLAIM_IDS:
        return []
    items = [judge_sentence] if judge_sentence else []
    mine = pd.DataFrame() if exploratory is None else _claim_rows(exploratory, claim_id, run_id)
    w = None if weights is None else weights[weights["run_id"].astype(str) == str(run_id)]
    if mine.empty and (w is None or w.empty):
        return items
    others = mine[~mine["registered"].astype(bool)] if not mine.empty else mine
    if not others.empty:
        items.append(f"{EXPLORATORY_MARK}: " + "; ".join(f"under {r['statistic']}: {_ci(r)} over {int(r['n_groups'])} "
                                                        f"problems, would read *{r['verdict']}*"
                                                        for _, r in others.iterrows()) + ".")
    if w is not None and not w.empty:
        items.append("Exploratory: median effective number of samples behind SE_P's weights, (sum w)^2 / sum w^2 of "
                     f"a step's normalized weights, per temperature: {median_n_eff(w)}.")
    if not mine.empty and (line := sign_disagreement(mine)):
        if w is not None and not w.empty:
            med = w.groupby("temperature")["n_eff_probability"].median()
            if (low := med[med < 2]).size:
                line += (f" Why they can differ: at T {', '.join(f'{t:g}' for t in low.index)} the median step's SE_P "
                         "weight sits on fewer than 2 effective samples, so SE_P measures about one sample's cluster, "
                         "while SE_D and SE_LN count every sample.")
        items.append(line)
    return items


def weak_link_rows(results: Path, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame | None:
    """B6 under every SE statistic (`judges.divergent.weak_link_verdicts`) from the results folder: the
    semantic_entropy stage's chain table and the judge-validation stage's judgements of its chains, one file
    `se-chains-<domain>-<judge>.jsonl` per domain; None when either is missing or a domain has no single file."""
    from .. import output_files as out
    from ..judges.divergent import judged_chains, weak_link_verdicts
    from ..judges.judging_run import read_judgements

    table = results / "semantic_entropy" / out.CHAIN_TABLE.path
    runs = results / "judge_validation" / out.JUDGE_RUNS.path
    if not table.exists() or not runs.is_dir():
        return None
    chains = pd.read_parquet(table)
    judged = {}
    for domain in sorted(chains["domain"].unique()):
        files = sorted(runs.glob(f"se-chains-{domain}-*.jsonl"))
        if len(files) != 1:
            return None
        try:
            judged[str(domain)] = judged_chains(chains, read_judgements(files[0]), domain=str(domain))
        except KeyError:  # a chain without a judgement: the stage judged another table
            return None
    return weak_link_verdicts(judged, n_resamples=n_resamples, seed=seed)


def ledger_items(claim_id: str, stage: str, run_id: str, judge: str, results: Path | None = None) -> list[str]:
    """The block beneath a recorded verdict of `claim_id` (its `stage`, `run_id` and `judge`, as the claims record
    holds them), read from the semantic_entropy stage's folder under `results` (default `paths.results_dir()`).

    A verdict of the semantic_entropy stage gets the rows of its own run; B6, decided by the judge-validation stage
    from the semantic_entropy stage's chains, gets that stage's weight diagnostic (its exploratory rows under other SE
    statistics are not computed). The judge's domain is said when the chains were clustered by the laboratory's
    confirmed equivalence judge (the claim's judge, or for B6 the judge the exploratory rows name)."""
    from .. import output_files as out
    from ..paths import results_dir

    if claim_id not in SE_CLAIM_IDS or stage not in ("semantic_entropy", "judge_validation"):
        return []
    folder = (results_dir() if results is None else results) / "semantic_entropy"
    exploratory, weights = _read(folder / out.SE_EXPLORATORY.path), _read(folder / out.SE_WEIGHTS.path)
    if stage == "judge_validation":
        se_run = "" if exploratory is None or exploratory.empty else str(exploratory["run_id"].iloc[0])
        judge = "" if exploratory is None or exploratory.empty else str(exploratory["judge"].iloc[0])
        b6 = weak_link_rows(results_dir() if results is None else results)
        items = exploratory_items(claim_id, run_id, None if b6 is None else b6.assign(run_id=run_id),
                                  None if weights is None else weights.assign(run_id=run_id),
                                  judge_domain_sentence() if "[lab" in judge else "")
        if b6 is not None:
            return items + ["B6's exploratory rows are computed as this page is built, from the judge-validation "
                            "stage's judgements of the chains and the semantic_entropy stage's chain table, by B6's "
                            "weak rule before its gate on a stand-in scorer (1,000 resamples of problems, seed 0)."]
        return items + (["Its verdicts under the other SE statistics are not computed: the judge-validation stage's "
                         "judgements of the chains were not found one file per domain."] if se_run else [])
    items = exploratory_items(claim_id, run_id, exploratory, weights,
                              judge_domain_sentence() if "[lab" in judge else "")
    same_run = exploratory is not None and "run_id" in exploratory and bool((exploratory["run_id"] == run_id).any())
    coherent = _read(folder / out.SE_COHERENT.path) if claim_id == "B1" and same_run else None
    if coherent is not None and (line := coherence_line(coherent)):
        items.append(line)  # how much of SE's rise with temperature comes with incoherent candidates
    return items


def statistics_disagree(claim_id: str, stage: str, run_id: str, results: Path | None = None) -> bool:
    """Whether the SE statistics disagree in sign on `claim_id` in the semantic_entropy stage's exploratory rows of
    `run_id` (over all domains), with at least one interval excluding 0: then an "inconclusive" registered verdict
    is not a sample too small to decide, and the page's summary says so (`ledger.findings_markdown`)."""
    from .. import output_files as out
    from ..paths import results_dir

    if claim_id not in SE_CLAIM_IDS or stage != "semantic_entropy":
        return False
    table = _read((results_dir() if results is None else results) / "semantic_entropy" / out.SE_EXPLORATORY.path)
    if table is None or table.empty:
        return False
    mine = _claim_rows(table, claim_id, run_id)
    return not mine.empty and bool(sign_disagreement(mine)) and established(mine)
