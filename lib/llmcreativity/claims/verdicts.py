"""Every rule that turns a statistic into a verdict on a claim, and the one `Verdict` type they return.

A verdict is "supported", "not supported" or "inconclusive" (or "not testable here", with the reason);
it comes from a function of the data, never from text, and it is "inconclusive" whenever the interval
spans both readings or the sample is too small. A claim's function returns its `Verdict` with the `facts` of
what the run measured (models, counts, figures), from which the claim's record text is written
(`claims.spec.ClaimSpec.text`); `record_claims` (in `llmcreativity.pipeline.claim_records`) stores it in
the claims ledger.

The rules:

- `sign_verdict`: a correlation has the claimed sign (or, for expected = 0, does not grow);
- `weak_verdict`: a correlation is weak, |rho| < bound;
- `barely_varies`: a variable is too nearly constant for a correlation with it to say anything (its claims
  are then "inconclusive", not "weak");
- `efficiency_verdict`: a judge saves tokens without losing accuracy (non-inferiority);
- `beats_every_baseline`: a reference system beats every baseline on every measure (paired, Holm).
- `human_level_verdict`: an accuracy is at least the lowest of a human range (the paper's annotators');
- `all_of_verdict`: a claim made of parts (per domain, per framework) holds only when each part holds;
- `not_testable`: this run cannot test the claim, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, get_args

import numpy as np
import pandas as pd

from ..stats.bootstrap import ConfidenceInterval

Label = Literal["supported", "not supported", "inconclusive", "not testable here"]
"""The verdicts a claim can get; "not testable here" when this run cannot test it (no data, or the setup
cannot, e.g. the "large" model is not larger than the writer), with the reason."""
LABELS: tuple[str, ...] = get_args(Label)
"""`Label`'s values, in order."""


@dataclass(frozen=True)
class Verdict:
    """What the data says about one claim: the label, why, and the statistic it rests on."""

    label: Label
    """"supported", "not supported" or "inconclusive"."""
    reason: str
    """One plain clause on why (lower case, no final full stop)."""
    statistic: float | None = None
    """The point estimate the verdict rests on (difference, correlation, saving...); None if undefined."""
    ci_low: float | None = None
    """Lower end of its 95 % CI; None if undefined."""
    ci_high: float | None = None
    """Upper end of its 95 % CI; None if undefined."""
    n: int = 0
    """Sample size the statistic was computed from."""
    measure: str = ""
    """What the statistic is, e.g. "Spearman rho(temperature, per-chain discrete SE)"."""
    facts: Mapping[str, Any] = field(default_factory=dict)
    """What the run measured, by name (models, counts, figures), for the slots of the claim's record text
    (`claims.spec.ClaimSpec.text`); empty when the verdict is no claim's."""

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"verdict label {self.label!r} is not one of {LABELS}")


class _Evidence(TypedDict):
    """The numbers a verdict rests on: `Verdict`'s fields after the label and the reason."""

    statistic: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    measure: str


def not_testable(reason: str, *, n: int = 0, measure: str = "") -> Verdict:
    """The verdict on a claim this run cannot test, with the reason (e.g. "no human labels here").

    >>> not_testable("no HypoGen human ratings here").label
    'not testable here'
    """
    if not reason.strip():
        raise ValueError("not_testable needs a reason: say why this run cannot test the claim")
    return Verdict("not testable here", reason.strip(), n=int(n), measure=measure)


def _finite(x: float | None) -> float | None:
    """x as a float, or None when it is None or not finite."""
    return None if x is None or not np.isfinite(x) else float(x)


def _interval(low: float, high: float) -> str:
    return f"[{low:.3g}, {high:.3g}]"


def sign_verdict(low: float, high: float, expected: int, *, statistic: float | None = None, n: int = 0,
                 measure: str = "") -> Verdict:
    """Verdict on a claimed sign of a correlation from its CI [low, high].

    - expected = +1 or -1: "supported" when the CI lies strictly on the expected side of 0,
      "not supported" when it lies strictly on the other side, "inconclusive" when it contains 0;
    - expected = 0 (a claim of *no growth*): "supported" when high <= 0, "not supported" when low > 0.
    An undefined (non-finite) interval is "inconclusive".

    >>> sign_verdict(0.1, 0.5, +1).label
    'supported'
    >>> sign_verdict(-0.2, 0.5, +1).label
    'inconclusive'
    """
    if expected not in (-1, 0, 1):
        raise ValueError(f"expected={expected!r}: use +1 (positive), -1 (negative) or 0 (does not grow)")
    stat = _Evidence(statistic=_finite(statistic), ci_low=_finite(low), ci_high=_finite(high), n=int(n),
                     measure=measure)
    if not (np.isfinite(low) and np.isfinite(high)):
        return Verdict("inconclusive", "the interval is undefined", **stat)
    ci = _interval(low, high)
    if expected == 0:
        if high <= 0:
            return Verdict("supported", f"the CI {ci} lies at or below 0", **stat)
        if low > 0:
            return Verdict("not supported", f"the CI {ci} lies above 0", **stat)
        return Verdict("inconclusive", f"the CI {ci} contains positive values and 0", **stat)
    side = "above" if expected > 0 else "below"
    if (low > 0 and expected > 0) or (high < 0 and expected < 0):
        return Verdict("supported", f"the CI {ci} lies {side} 0", **stat)
    if (low > 0 and expected < 0) or (high < 0 and expected > 0):
        return Verdict("not supported", f"the CI {ci} lies on the other side of 0", **stat)
    return Verdict("inconclusive", f"the CI {ci} contains 0", **stat)


def weak_verdict(low: float, high: float, bound: float = 0.3, *, statistic: float | None = None, n: int = 0,
                 measure: str = "") -> Verdict:
    """Verdict on "the correlation is weak" (|rho| < `bound`) from its CI [low, high].

    "supported" when the CI lies inside (-bound, bound), "not supported" when it lies wholly at or
    beyond +bound or -bound, else (or when undefined) "inconclusive".

    >>> weak_verdict(-0.1, 0.2).label
    'supported'
    >>> weak_verdict(0.35, 0.8).label
    'not supported'
    """
    stat = _Evidence(statistic=_finite(statistic), ci_low=_finite(low), ci_high=_finite(high), n=int(n),
                     measure=measure)
    if not (np.isfinite(low) and np.isfinite(high)):
        return Verdict("inconclusive", "the interval is undefined", **stat)
    ci = _interval(low, high)
    if -bound < low and high < bound:
        return Verdict("supported", f"the CI {ci} lies inside (-{bound:g}, {bound:g})", **stat)
    if low >= bound or high <= -bound:
        return Verdict("not supported", f"the CI {ci} lies beyond {bound:g} in size", **stat)
    return Verdict("inconclusive", f"the CI {ci} reaches beyond {bound:g} in size", **stat)


MIN_DISTINCT = 3
"""A variable with fewer distinct values than this barely varies (`barely_varies`): e.g. a small model's stated
confidence, the same 0.9 for almost every solution."""
MIN_SD = 0.02
"""A variable whose standard deviation is below this barely varies (`barely_varies`); on the scale of the
scores it guards (p_valid in [0, 1], SE in nats), 0.02 is a fiftieth of p_valid's range."""


def barely_varies(values: Sequence[float] | pd.Series, *, min_distinct: int = MIN_DISTINCT,
                  min_sd: float = MIN_SD) -> str:
    """Why a variable is too nearly constant to correlate with ("" when it varies enough): fewer than
    `min_distinct` distinct finite values, or a standard deviation (ddof = 0) below `min_sd`.

    A correlation with such a variable is near 0 because nothing varies, which a claim of a *weak*
    correlation would otherwise count as support.

    >>> barely_varies([0.9, 0.9, 0.9, 0.8])
    '2 distinct values (fewer than 3)'
    >>> barely_varies([0.1, 0.5, 0.9])
    ''
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    distinct = len(np.unique(x))
    if distinct < min_distinct:
        return f"{distinct} distinct value{'s' if distinct != 1 else ''} (fewer than {min_distinct})"
    sd = float(np.std(x))
    if sd < min_sd:
        return f"standard deviation {sd:.3g} (below {min_sd:g})"
    return ""


def efficiency_verdict(saving: ConfidenceInterval, accuracy_diff: ConfidenceInterval, n: int, *, min_items: int = 30,
                       min_saving: float = 0.5, margin: float = 0.05,
                       measure: str = "token saving 1 - t_judge / t_baseline") -> Verdict:
    """Verdict on "the judge matches or beats the baseline's accuracy with far fewer tokens".

    With `saving` = 1 - sum t_judge / sum t_baseline and `accuracy_diff` = acc_judge - acc_baseline
    (both with bootstrap CIs over the same `n` items):
    - "not supported" when the saving's CI lies below `min_saving`;
    - "inconclusive" with fewer than `min_items` items (the accuracy part cannot be tested);
    - "not supported" when the accuracy difference's CI lies below -`margin` (the judge is worse);
    - "supported" when the saving's CI lies at or above `min_saving` and the accuracy difference's
      CI at or above -`margin` (non-inferiority); else "inconclusive".
    The statistic is the saving.
    """
    stat = _Evidence(statistic=_finite(saving.estimate), ci_low=_finite(saving.low), ci_high=_finite(saving.high),
                     n=int(n), measure=measure)
    if saving.high < min_saving:
        return Verdict("not supported", f"the token saving's CI lies below {min_saving:.0%}", **stat)
    if n < min_items:
        return Verdict("inconclusive", f"{n} items (< {min_items}) cannot test the accuracy part", **stat)
    if accuracy_diff.high < -margin:
        return Verdict("not supported", f"its accuracy is lower by more than {margin:.0%}", **stat)
    if saving.low >= min_saving and accuracy_diff.low >= -margin:
        return Verdict("supported", f"the saving's CI lies above {min_saving:.0%} and accuracy is within "
                       f"{margin:.0%} or better", **stat)
    return Verdict("inconclusive", "the intervals span both readings", **stat)


def human_level_verdict(correct: int, n: int, human_low: float, human_high: float, *,
                        measure: str = "accuracy against the labels, Wilson 95 % CI") -> Verdict:
    """Verdict on "the judge is as accurate as humans" from `correct` right answers out of `n` items, against a
    human range [`human_low`, `human_high`] (e.g. the paper's annotators' accuracies).

    The accuracy `correct / n` gets a Wilson 95 % interval; "supported" when it lies at or above `human_low` (not
    below the least accurate human), "not supported" when it lies below `human_low`, else "inconclusive".

    >>> human_level_verdict(38, 40, 0.80, 0.847).label
    'supported'
    >>> human_level_verdict(20, 40, 0.80, 0.847).label
    'not supported'
    """
    from statsmodels.stats.proportion import proportion_confint

    if not 0 <= correct <= n or n < 1:
        raise ValueError(f"correct={correct!r}, n={n!r}: need 0 <= correct <= n and n >= 1")
    if not 0 <= human_low <= human_high <= 1:
        raise ValueError(f"human range [{human_low!r}, {human_high!r}]: need 0 <= low <= high <= 1")
    low, high = (float(x) for x in proportion_confint(correct, n, alpha=0.05, method="wilson"))
    stat = _Evidence(statistic=correct / n, ci_low=low, ci_high=high, n=int(n), measure=measure)
    humans = f"{human_low:.1%}, the least accurate human of the range {human_low:.1%}-{human_high:.1%}"
    if low >= human_low:
        return Verdict("supported", f"the accuracy's CI {_interval(low, high)} lies at or above {humans}", **stat)
    if high < human_low:
        return Verdict("not supported", f"the accuracy's CI {_interval(low, high)} lies below {humans}", **stat)
    return Verdict("inconclusive", f"the accuracy's CI {_interval(low, high)} reaches below {humans}", **stat)


def beats_every_baseline(comparisons: pd.DataFrame, *, min_pairs: int = 5) -> Verdict:
    """Verdict on "the reference beats every baseline on every measure" from `paired_comparisons` rows.

    - supported: every comparison has a positive difference that is significant after Holm;
    - not supported: some comparison is significantly negative, or (with at least `min_pairs`
      prompts everywhere) some difference is not significantly positive;
    - inconclusive: otherwise, in particular when any comparison has fewer than `min_pairs` prompts
      (the sample is too small to decide).
    The statistic is the comparison with the smallest standardized difference (d_z, or the raw
    difference when d_z is undefined): the claim is only as strong as its weakest comparison.
    """
    if comparisons.empty:
        raise ValueError("comparisons is empty: run paired_comparisons on at least one measure and baseline")
    key = comparisons["dz"].where(comparisons["dz"].notna(), comparisons["diff"])
    weakest = comparisons.iloc[int(np.argmin(key.fillna(-np.inf).to_numpy()))]
    stat = _Evidence(statistic=_finite(weakest["diff"]), ci_low=_finite(weakest["ci_low"]),
                     ci_high=_finite(weakest["ci_high"]), n=int(weakest["n_pairs"]),
                     measure=f"mean paired difference (reference - {weakest['baseline']}) on {weakest['measure']}, "
                             f"the weakest of {len(comparisons)} comparisons")
    small = int(comparisons["n_pairs"].min())
    sig = comparisons["significant"].fillna(False).astype(bool)
    neg_sig = sig & (comparisons["diff"] < 0)
    pos_sig = sig & (comparisons["diff"] > 0)
    if neg_sig.any():
        r = comparisons[neg_sig].iloc[0]
        return Verdict("not supported", f"the reference is significantly worse than {r['baseline']} on {r['measure']} "
                       "(Holm-adjusted)", **stat)
    if pos_sig.all():
        return Verdict("supported", f"all {len(comparisons)} comparisons favour the reference significantly "
                       "(Holm-adjusted)", **stat)
    if small < min_pairs:
        return Verdict("inconclusive", f"the sample is too small to decide: as few as {small} prompt(s) per "
                       f"comparison (at least {min_pairs} needed)", **stat)
    worse = int((comparisons["diff"] <= 0).sum())
    return Verdict("not supported", f"{int((~pos_sig).sum())} of {len(comparisons)} comparisons are not significantly "
                   f"in the reference's favour ({worse} point the other way)", **stat)


def all_of_verdict(parts: dict[str, Verdict], *, primary: str | None = None, measure: str = "") -> Verdict:
    """Verdict on a claim that holds only when each of its named parts holds (per domain; "A and B converge,
    C does not"; "rises" and "does not rise").

    - "not supported" when some part is not supported;
    - "supported" when every part is supported;
    - "not testable here" when every part is;
    - "inconclusive" otherwise.
    The statistic, CI and n are those of the deciding part: the first not-supported part, else `primary`
    (the first part when None).

    >>> ok = Verdict("supported", "x", 0.1, 0.0, 0.2, 9)
    >>> all_of_verdict({"a": ok, "b": Verdict("inconclusive", "y")}).label
    'inconclusive'
    """
    if not parts:
        raise ValueError("all_of_verdict needs at least one part: pass {name: Verdict}")
    if primary is not None and primary not in parts:
        raise ValueError(f"primary={primary!r} is not one of the parts {sorted(parts)}")
    labels = {name: v.label for name, v in parts.items()}
    failed = [name for name, label in labels.items() if label == "not supported"]
    lead = parts[failed[0] if failed else (primary or next(iter(parts)))]
    reason = "; ".join(f"{name}: {v.label} ({v.reason})" for name, v in parts.items())
    if failed:
        label: Label = "not supported"
    elif all(v == "supported" for v in labels.values()):
        label = "supported"
    elif all(v == "not testable here" for v in labels.values()):
        label = "not testable here"
    else:
        label = "inconclusive"
    return Verdict(label, reason, lead.statistic, lead.ci_low, lead.ci_high, lead.n, measure or lead.measure)
