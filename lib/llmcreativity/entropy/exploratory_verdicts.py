"""Exploratory verdicts on the SE claims: each claim decided again under the SE statistics it is not registered on.

The registered statistic of B1-B4 and B8 is the probability-weighted SE (`entropy_claims.PRIMARY`). Here every claim
is also decided under the discrete SE, the length-normalized SE and the probability-weighted SE over distinct
sequences, by the same rule (`claims.verdicts.sign_verdict`) on the same kind of interval (Spearman's rho with a
cluster bootstrap over problems, the stage's resamples and seed). B1-B4 read their rows from the stage's correlation
table (`entropy_claims.se_correlations`, which already holds every SE column), so they cost no bootstrap; B8 costs one
per statistic over the rated chains.

These rows are *exploratory, not registered*: they are written to their own output file, never through
`record_claims`, and decide nothing. `sign_disagreement` says when the statistics point in opposite directions, and
`verdict_reading` turns that into the chapter's words on what an "inconclusive" verdict means in this run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ..claims.verdicts import not_testable, sign_verdict
from .analysis import spearman_with_ci
from .entropy_claims import ALL_DOMAINS, PRIMARY, ROBUSTNESS, SE_CLAIMS

STATISTIC_NAMES: dict[str, str] = {
    "se_probability": "SE_P",
    "se_discrete": "SE_D",
    "se_length_normalized": "SE_LN",
    "se_probability_distinct": "SE_P (distinct sequences)",
}
"""SE column -> its short name on the page; the first is the registered statistic."""
STATISTICS: tuple[str, ...] = (PRIMARY, *ROBUSTNESS)
"""The SE columns every claim is decided under, the registered one first."""
COLUMNS = ["claim", "domain", "statistic", "column", "registered", "x", "expected", "rho", "low", "high", "n",
           "n_groups", "verdict"]
"""Columns of the exploratory verdict table (`output_files.SE_EXPLORATORY`), besides `run_id`."""
_NOT_ENTAILMENT = ("the candidates were clustered with the embedding-similarity approximation, which may be shown "
                   "but never decides")


def _row(claim: str, domain: str, column: str, x: str, expected: int, stats: dict[str, float],
         entailment: bool) -> dict[str, object]:
    if entailment:
        label = sign_verdict(stats["low"], stats["high"], expected, statistic=stats["rho"],
                             n=int(stats["n_groups"])).label
    else:
        label = not_testable(_NOT_ENTAILMENT).label
    return {"claim": claim, "domain": domain, "statistic": STATISTIC_NAMES[column], "column": column,
            "registered": column == PRIMARY, "x": x, "expected": expected, "rho": stats["rho"], "low": stats["low"],
            "high": stats["high"], "n": int(stats["n"]), "n_groups": int(stats["n_groups"]), "verdict": label}


def correlation_verdicts(correlations: pd.DataFrame, *, entailment: bool) -> pd.DataFrame:
    """B1-B4 under every SE statistic (`STATISTICS`) and every domain of `correlations` (the table of
    `entropy_claims.se_correlations`): one row each, `COLUMNS`, its verdict by the claim's registered rule."""
    rows = []
    for domain in correlations["domain"].unique():
        here = correlations[correlations["domain"] == domain]
        by_pair = {(r["x"], r["y"]): r for r in here.to_dict("records")}
        for claim, (x, _), expected, _measure in SE_CLAIMS:
            for column in STATISTICS:
                r = by_pair.get((x, column))
                if r is not None:
                    rows.append(_row(claim, domain, column, x, expected, r, entailment))
    return pd.DataFrame(rows, columns=COLUMNS)


def novelty_verdicts(scored: pd.DataFrame, *, entailment: bool, n_resamples: int = 1000,
                     seed: int = 0) -> pd.DataFrame:
    """B8 under every SE statistic: Spearman rho(the chain's mean SE, its novelty rating) with a CI over problems
    (`analysis.spearman_with_ci`, as `judges.divergent.novelty_claim`), over all domains; `COLUMNS`."""
    rows = [_row("B8", ALL_DOMAINS, column, "novelty", 1,
                 spearman_with_ci(scored[column], scored["novelty"], groups=scored["problem_id"],
                                  n_resamples=n_resamples, seed=seed), entailment)
            for column in STATISTICS if column in scored.columns]
    return pd.DataFrame(rows, columns=COLUMNS)


def sign_disagreement(rows: pd.DataFrame) -> str:
    """One sentence when the statistics of one claim (rows of one claim and domain) disagree in sign: some rho above
    0 and some below; "" when they agree (or fewer than two are defined). The statistics whose interval excludes 0
    are named.

    >>> t = pd.DataFrame({"statistic": ["SE_P", "SE_D"], "rho": [-0.27, 0.87], "low": [-0.56, 0.8],
    ...                   "high": [0.0, 0.9]})
    >>> sign_disagreement(t)
    'The statistics disagree in sign: rho -0.27 under SE_P, but +0.87 under SE_D (interval above 0).'
    >>> sign_disagreement(t.assign(rho=[0.1, 0.87]))
    ''
    >>> sign_disagreement(t.assign(low=[-0.5, -0.1]))[-55:]
    'No interval excludes 0, so neither sign is established.'
    """
    defined = rows[rows["rho"].map(lambda v: v is not None and math.isfinite(v) and v != 0)]
    if not ((defined["rho"] > 0).any() and (defined["rho"] < 0).any()):
        return ""
    first = defined.iloc[0]

    def one(r: pd.Series) -> str:
        side = (" (interval above 0)" if r["low"] > 0 else " (interval below 0)" if r["high"] < 0 else "")
        return f"{r['rho']:+.2f} under {r['statistic']}{side}"

    agree = [one(r) for _, r in defined.iloc[1:].iterrows() if (r["rho"] > 0) == (first["rho"] > 0)]
    other = [one(r) for _, r in defined.iloc[1:].iterrows() if (r["rho"] > 0) != (first["rho"] > 0)]
    lead = f"rho {one(first)}"
    lead = lead if not agree else f"{lead} and {', '.join(agree)}"
    line = f"The statistics disagree in sign: {lead}, but {', '.join(other)}."
    return line if established(defined) else f"{line} No interval excludes 0, so neither sign is established."


def established(rows: pd.DataFrame) -> bool:
    """True when some row's interval excludes 0 (its sign is established at 95 %)."""
    return bool(((rows["low"] > 0) | (rows["high"] < 0)).any())


def disagreements(table: pd.DataFrame, domain: str = ALL_DOMAINS, *, only_established: bool = False) -> dict[str, str]:
    """Claim -> `sign_disagreement` of its rows on `domain`, for the claims whose statistics disagree; with
    `only_established`, only those where some interval excludes 0 (`established`)."""
    out = {}
    for claim, rows in table[table["domain"] == domain].groupby("claim", sort=True):
        if (line := sign_disagreement(rows)) and (established(rows) or not only_established):
            out[str(claim)] = line
    return out


def verdict_reading(table: pd.DataFrame, registered: Sequence[tuple[str, str]], domain: str = ALL_DOMAINS) -> str:
    """What an inconclusive registered verdict means in this run, claim by claim (`registered`: (claim, its recorded
    verdict label)): where the statistics disagree in sign the run is not simply too small, since the registered
    statistic and the others point in opposite directions and some interval excludes 0 (`established`); otherwise
    the intervals are wide and more problems could narrow them. "" when no registered verdict is inconclusive."""
    split = disagreements(table, domain, only_established=True)
    unsure = [c for c, label in registered if label == "inconclusive"]
    parts = []
    if apart := [c for c in unsure if c in split]:
        parts.append(f"For {', '.join(apart)} the registered verdict is inconclusive while the SE statistics "
                     "point in opposite directions (the exploratory rows of the table): the statistics measure "
                     "different things here, and more problems alone would not settle which to read; it is not a run "
                     "too small to decide.")
    if same := [c for c in unsure if c not in split]:
        parts.append(f"For {', '.join(same)} no SE statistic's interval lies on the other side of 0 from the "
                     "rest: the intervals are wide, and more problems could narrow them.")
    return " ".join(parts)


def cluster_link_sentence(correlations: pd.DataFrame, domain: str = ALL_DOMAINS) -> str:
    """How closely each SE follows the number of clusters on this run (B3's relation), from the correlation table's
    rows (n_clusters, SE column) of `domain`: rho with its CI over problems per statistic, then which follow the
    count closely (the lower end of the interval above 0.9) and which do not.

    >>> c = pd.DataFrame({"x": ["n_clusters"] * 2, "y": ["se_discrete", "se_probability"], "rho": [0.97, 0.21],
    ...                   "low": [0.95, 0.03], "high": [0.98, 0.37], "domain": ["all", "all"]})
    >>> print(cluster_link_sentence(c))  # doctest: +NORMALIZE_WHITESPACE
    Spearman rho of the number of clusters with each SE, over steps (CI over problems): SE_P +0.21 [+0.03, +0.37];
    SE_D +0.97 [+0.95, +0.98]. Following the count closely (interval above 0.9): SE_D. Not: SE_P, which weighs the
    clusters by their samples' probabilities, so one heavy sample can hold it near 0 however many clusters there are.
    """
    rows = correlations[(correlations["domain"] == domain) & (correlations["x"] == "n_clusters")]
    by_y = {r["y"]: r for r in rows.to_dict("records")}
    shown = [(STATISTIC_NAMES[c], by_y[c]) for c in STATISTICS if c in by_y]
    if not shown:
        return ""
    listed = "; ".join(f"{name} {r['rho']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]" for name, r in shown)
    close = [name for name, r in shown if r["low"] > 0.9]
    weighted = [name for name, r in shown if not r["low"] > 0.9 and name != "SE_D"]
    out = f"Spearman rho of the number of clusters with each SE, over steps (CI over problems): {listed}."
    out += f" Following the count closely (interval above 0.9): {', '.join(close) or 'none'}."
    if weighted:
        out += (f" Not: {', '.join(weighted)}, which weigh{'s' if len(weighted) == 1 else ''} the clusters by their "
                f"samples' probabilities, so one heavy sample can hold {'it' if len(weighted) == 1 else 'them'} near 0 "
                "however many clusters there are.")
    if "SE_D" not in close and "SE_D" in [n for n, _ in shown]:
        out += " SE_D falls short of it too, as unequal cluster sizes allow."
    return out
