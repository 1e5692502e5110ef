"""How a claim's minimum sample is sized from a pilot: the parts of a claim (`Part`: a mean, a correlation, a
difference of two paired statistics, a ratio, a paired or a single proportion) that size themselves under a precision
rule, the size of each (`PartSize`), and a claim's `Target` (its per-unit quantity, precision, reason, pilot reader
and sample-size functions).

This is the claims' shared vocabulary for sizing, below every domain: it reads no results folder and no domain (a
`Target`'s reader gets the pilot folder it is handed, `pipeline.pilot.Pilot`), so a claim's target may be declared
wherever its claim is.

Precision rule (`PrecisionRule`). "pilot distance" (the command's default): the interval's half-width is the
distance from the pilot's estimate to the nearest boundary of the claim's verdict rule (0 for a sign, +-0.3 for
B6's "weak", 50 % for B5's saving, -5 points for its accuracy margin, 80.0 % for B9's human level). If the truth
equals the pilot's estimate, an interval that narrow lies wholly on one side of every boundary, so the rule returns
"supported" or "not supported" instead of "inconclusive". Its weakness: a pilot estimate near a boundary asks for a
huge sample (reported as not reachable here when it exceeds the units that exist). The named alternative,
"smallest effect", sets a fixed half-width instead: 0.8 of the pilot's standard deviation for a mean difference
(Cohen's d_z = 0.8, a large paired effect), z(0.3) for a correlation (B6: an interval centred at 0 fits inside
(-0.3, 0.3)), 0.3 itself for a difference of two correlations (B7), 20 points for a proportion, an accuracy
difference or a saving; it sizes every claim but may leave a smaller true effect undecided ("inconclusive", never
decided wrongly by it). Both are computed; the registration names which one sets `min_n`. The published run registers
"smallest effect": its pilot's estimates lie near the boundaries, where "pilot distance" asks for thousands of prompts
or stories.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

import numpy as np

from ..output_files import OutputFile
from ..stats.agreement import spearman
from ..stats.sample_size import (
    NotReachable,
    SampleSize,
    correlation_half_width,
    design_effect,
    fisher_z,
    n_for_correlation,
    n_for_mean,
    n_for_paired_proportions,
    n_for_proportion,
    n_for_ratio,
)

PrecisionRule = Literal["pilot distance", "smallest effect"]
"""How a part's target half-width is set (see the module docstring)."""
PRECISION_RULES: tuple[PrecisionRule, ...] = get_args(PrecisionRule)
"""Every `PrecisionRule`; the first is the registered default."""

SMALLEST_EFFECT_SD = 0.8
""""smallest effect" for a mean difference: a half-width of 0.8 pilot standard deviations (Cohen's d_z = 0.8, a
large paired effect). The LLM Review paper reports Review's advantage as consistent over every baseline and
metric, a large effect; sizing for a medium one (d_z = 0.5) asks A2 for 35 prompts, about 6 hours of writing alone
on this machine (the pilot: about 8 minutes a prompt for the baselines with one revision round, 2.6 for Review),
beyond the published run's 5 hours. A true effect between medium and large may so be left undecided
("inconclusive"), never decided wrongly by it."""
SMALLEST_EFFECT_RHO = 0.3
""""smallest effect" for a correlation: a half-width of z(0.3) on Fisher's scale, B6's bound."""
SMALLEST_EFFECT_SHARE = 0.20
""""smallest effect" for a proportion, a paired accuracy difference or a token saving: 20 points (the papers' B10
drop is 29 points, B9's margins over one-shot and CoT 20 and 17). At 10 points the pilot asked B9 and B10 for 94
to 140 MacGyver items, at about 3 minutes an item on this machine 5 to 7 hours of judging alone."""

class NotEstimable(Exception):
    """The pilot's outputs cannot give a claim's per-unit values; the message says what is missing."""


def rule_default(function: Callable[..., Any], parameter: str) -> float:
    """The default value of `function`'s `parameter`: a verdict rule's boundary, read where the rule is."""
    return float(inspect.signature(function).parameters[parameter].default)


@dataclass(frozen=True)
class PartSize:
    """One part of a claim (one comparison, one domain's correlation...) sized from the pilot."""

    part: str
    """What the part is, e.g. "review - teacher, integration"."""
    pilot_n: int
    """Units (of the claim's `unit`) the pilot has for it."""
    statistic: float | None
    """The pilot's estimate (mean difference, rho, saving, accuracy...); None when undefined."""
    spread: str
    """The pilot's spread it is sized from: "sd 0.41", "design effect 2.1 (4.0 points per unit)", ..."""
    boundary: str
    """The verdict rule's boundary the interval must clear, in the statistic's units: "0", "+-0.3", "0.5"..."""
    half_width: float | None
    """The target half-width (Fisher-z units for a correlation); None when undefined."""
    needed: int | None
    """Units it needs; None when it cannot be sized (`why_not`)."""
    why_not: str = ""
    """Why it cannot be sized; empty when it can."""


def _size(part: str, pilot_n: int, statistic: float | None, spread: str, boundary: str, half_width: float | None,
          needed: SampleSize) -> PartSize:
    if isinstance(needed, NotReachable):
        return PartSize(part, pilot_n, statistic, spread, boundary, half_width, None, needed.reason)
    return PartSize(part, pilot_n, statistic, spread, boundary, half_width, needed)


def _unsized(part: str, pilot_n: int, why: str, statistic: float | None = None) -> PartSize:
    return PartSize(part, pilot_n, statistic, "", "", None, None, why)


class Part(Protocol):
    """The pilot's per-unit values of one part of a claim, which know how to size themselves."""

    @property
    def label(self) -> str:
        """What the part is."""
        ...

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        """The units this part needs under `rule` at `confidence`."""
        ...


@dataclass(frozen=True)
class MeanPart:
    """Per-unit values whose mean is tested against `boundary` (paired differences, convergence Deltas)."""

    label: str
    """What the part is."""
    values: np.ndarray
    """One value per unit (NaN left out)."""
    boundary: float = 0.0
    """The value the mean's interval must clear."""
    tests: int = 1
    """The family's size: z is Bonferroni over it."""

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        d = self.values[np.isfinite(self.values)]
        if len(d) < 2:
            return _unsized(self.label, len(d), f"{len(d)} unit(s): no variance",
                            float(d.mean()) if len(d) else None)
        mean, sd = float(d.mean()), float(d.std(ddof=1))
        h = abs(mean - self.boundary) if rule == "pilot distance" else SMALLEST_EFFECT_SD * sd
        family = f", z for {self.tests} tests" if self.tests > 1 else ""
        return _size(self.label, len(d), mean, f"sd {sd:.3g}{family}", f"{self.boundary:g}", h,
                     n_for_mean(sd, h, confidence=confidence, tests=self.tests))


@dataclass(frozen=True)
class CorrelationPart:
    """Pairs (x, y) whose Spearman rho is tested against `boundaries`; with `groups`, units are groups resampled
    whole (problems), and the pilot's design effect enters."""

    label: str
    """What the part is."""
    x: np.ndarray
    """One value per point."""
    y: np.ndarray
    """The paired value per point (pairs with a NaN are left out)."""
    groups: np.ndarray | None = None
    """The unit (problem) of each point; None: every point is a unit."""
    boundaries: tuple[float, ...] = (0.0,)
    """The values of rho the interval must clear."""
    tests: int = 1
    """The family's size: z is Bonferroni over it."""
    flat: str = ""
    """Why a side barely varies (`verdicts.barely_varies`): the rule then says "inconclusive" at any n."""

    @cached_property
    def _points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(x, y, groups) of the pairs with both sides finite."""
        keep = np.isfinite(self.x) & np.isfinite(self.y)
        return self.x[keep], self.y[keep], None if self.groups is None else self.groups[keep]

    @cached_property
    def _design_effect(self) -> float | NotReachable:
        """The pilot's design effect (1 for independent points), computed once for both rules."""
        x, y, groups = self._points
        return 1.0 if groups is None else design_effect(x, y, groups)

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        x, y, groups = self._points
        units = len(x) if groups is None else len(set(groups.tolist()))
        if len(x) < 3:
            return _unsized(self.label, units, f"{len(x)} point(s): a rank correlation needs 3")
        rho = spearman(x, y)[0]
        if self.flat:
            return _unsized(self.label, units, self.flat, rho if math.isfinite(rho) else None)
        if not math.isfinite(rho):
            return _unsized(self.label, units, "a side is constant: the correlation is undefined")
        deff = self._design_effect
        if isinstance(deff, NotReachable):
            return _unsized(self.label, units, f"design effect: {deff.reason}", rho)
        spread = (f"iid, {len(x)} points" if groups is None
                  else f"design effect {deff:.2f} ({len(x) / units:.1f} points per unit)")
        h = (correlation_half_width(rho, self.boundaries) if rule == "pilot distance"
             else fisher_z(SMALLEST_EFFECT_RHO))
        symmetric = len(self.boundaries) == 2 and self.boundaries[0] == -self.boundaries[1]
        bounds = f"+-{abs(self.boundaries[0]):g}" if symmetric else ", ".join(f"{b:g}" for b in self.boundaries)
        return _size(self.label, units, rho, spread, bounds, h,
                     n_for_correlation(rho, h, design_effect=deff, points_per_unit=len(x) / units,
                                       confidence=confidence, tests=self.tests))


@dataclass(frozen=True)
class DifferencePart:
    """A difference of one statistic over two paired samples of the same units (SE's and a baseline's rank
    correlation with the same human scores, over the same sets), tested against `boundary`.

    Its spread is the paired bootstrap's: the resampled differences' standard deviation at the pilot's n units
    (the resamples the claim's own interval draws, `stats.bootstrap_draws` with one seed for both sides), scaled to
    one unit as sd * sqrt(n), so the units needed follow `n_for_mean`'s n = (z sd / h)^2. Under "smallest effect" the
    half-width is `SMALLEST_EFFECT_RHO` on the statistic's own scale (a difference of two correlations of 0.3)."""

    label: str
    """What the part is."""
    reference: tuple[np.ndarray, ...]
    """The first side's columns, one value per unit each (the statistic's arguments)."""
    other: tuple[np.ndarray, ...]
    """The second side's columns on the same units."""
    statistic: Callable[..., float]
    """The statistic of each side (e.g. Spearman's rho of its two columns)."""
    boundary: float = 0.0
    """The difference the interval must clear."""
    tests: int = 1
    """The family's size: z is Bonferroni over it."""
    n_resamples: int = 2000
    """Bootstrap resamples for the spread."""
    seed: int = 0
    """The resamples' seed (both sides draw the same rows)."""

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        from ..stats.bootstrap import bootstrap_draws

        n = len(self.reference[0])
        if n < 3:
            return _unsized(self.label, n, f"{n} unit(s): the statistic needs 3")
        diff = float(self.statistic(*self.reference) - self.statistic(*self.other))
        if not math.isfinite(diff):
            return _unsized(self.label, n, "the difference is undefined on the pilot's units")
        draws = (bootstrap_draws(self.reference, self.statistic, n_resamples=self.n_resamples, seed=self.seed)
                 - bootstrap_draws(self.other, self.statistic, n_resamples=self.n_resamples, seed=self.seed))
        draws = draws[np.isfinite(draws)]
        if len(draws) < 2:
            return _unsized(self.label, n, "fewer than 2 resamples define the difference", diff)
        sd = float(draws.std(ddof=1)) * math.sqrt(n)
        h = abs(diff - self.boundary) if rule == "pilot distance" else SMALLEST_EFFECT_RHO
        family = f", z for {self.tests} tests" if self.tests > 1 else ""
        return _size(self.label, n, diff, f"bootstrap se {sd / math.sqrt(n):.3g} at {n} units{family}",
                     f"{self.boundary:g}", h, n_for_mean(sd, h, confidence=confidence, tests=self.tests))


@dataclass(frozen=True)
class RatioPart:
    """Per-unit (a_i, b_i) whose saving 1 - sum a / sum b is tested against `boundary`."""

    label: str
    """What the part is."""
    numerator: np.ndarray
    """a_i per unit (the judge's tokens)."""
    denominator: np.ndarray
    """b_i per unit (the baseline's tokens)."""
    boundary: float
    """The saving the interval must clear."""

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        a, b = self.numerator, self.denominator
        if len(a) < 2:
            return _unsized(self.label, len(a), f"{len(a)} unit(s): no variance")
        saving = float(1 - a.sum() / b.sum())
        h = abs(saving - self.boundary) if rule == "pilot distance" else SMALLEST_EFFECT_SHARE
        residual = a - a.sum() / b.sum() * b
        spread = f"residual sd / mean denominator {residual.std(ddof=1) / b.mean():.3g}"
        return _size(self.label, len(a), saving, spread, f"{self.boundary:g}", h,
                     n_for_ratio(a, b, h, confidence=confidence))


@dataclass(frozen=True)
class PairedPart:
    """Per-unit paired successes (judge 1 right, judge 2 right) whose difference is tested against `boundary`."""

    label: str
    """What the part is."""
    first: np.ndarray
    """Whether the first judge was right, per unit."""
    second: np.ndarray
    """Whether the second judge was right on the same units."""
    boundary: float = 0.0
    """The difference the interval must clear."""
    tests: int = 1
    """The family's size: z is Bonferroni over it."""

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        d = self.first.astype(float) - self.second.astype(float)
        if len(d) < 2:
            return _unsized(self.label, len(d), f"{len(d)} unit(s): no variance")
        delta, discordant = float(d.mean()), float((d != 0).mean())
        h = abs(delta - self.boundary) if rule == "pilot distance" else SMALLEST_EFFECT_SHARE
        family = f", z for {self.tests} tests" if self.tests > 1 else ""
        return _size(self.label, len(d), delta, f"discordant share {discordant:.2f}{family}", f"{self.boundary:g}",
                     h, n_for_paired_proportions(discordant, delta, h, confidence=confidence, tests=self.tests))


@dataclass(frozen=True)
class ProportionPart:
    """Per-unit successes whose share is tested against `boundary`."""

    label: str
    """What the part is."""
    successes: np.ndarray
    """Whether each unit is a success (the judge was right)."""
    boundary: float
    """The share the interval must clear."""

    def size(self, rule: PrecisionRule, confidence: float) -> PartSize:
        c = self.successes.astype(float)
        if len(c) < 2:
            return _unsized(self.label, len(c), f"{len(c)} unit(s): no variance")
        p = float(c.mean())
        h = abs(p - self.boundary) if rule == "pilot distance" else SMALLEST_EFFECT_SHARE
        return _size(self.label, len(c), p, f"share {p:.2f}", f"{self.boundary:g}", h,
                     n_for_proportion(p, h, confidence=confidence))


SIGN = "the rule needs the interval on one side of 0: one this narrow around the pilot's estimate excludes 0"
"""A target's reason for a claim decided by a sign."""
MEAN_PRECISION = "half-width <= |pilot mean difference| per comparison (z Bonferroni over the family)"
"""The precision of a claim decided by mean differences, under "pilot distance"."""
RHO_PRECISION = "Fisher-z half-width <= |z(pilot rho)|"
"""The precision of a claim decided by a correlation's sign."""
PROBLEMS_WHOLE = " with the pilot's design effect (problems resampled whole)"
"""Appended to the precision of a claim whose units (chains, steps) are resampled by problem."""


class PilotFolder(Protocol):
    """What a claim's pilot reader (`Target.read`) may ask of the pilot's results folder (`pipeline.pilot.Pilot`)."""

    def path(self, output: OutputFile, stage: str | None = None) -> Path:
        """Where the stage that writes `output` (`stage`, of an output two stages write) put it; NotEstimable when
        it is not there."""
        ...

    def ran_parameters(self, output: OutputFile) -> list[dict[str, Any]]:
        """The parameters the stage that writes `output` ran with (every one its notebook declares): those its
        manifest entry records, else each of its profiles' (each a candidate)."""
        ...

    def item_labels(self) -> Mapping[str, bool]:
        """MacGyver's human labels by item id."""
        ...

    def hanna_human(self) -> Any:
        """HANNA's human stories and ratings (`data.hanna.HannaHuman`)."""
        ...


@dataclass(frozen=True)
class Target:
    """How one claim's minimum sample is derived from the pilot: declared with the claim (`ClaimSpec.target`)."""

    quantity: str
    """The per-unit quantity the claim's estimator resamples."""
    target: str
    """The precision its interval must reach under "pilot distance", in the statistic's units."""
    reason: str
    """Why that target, tied to the claim's verdict rule."""
    read: Callable[[PilotFolder], list[Part]]
    """Reads the pilot's per-unit values, one `Part` per comparison the rule needs; NotEstimable when it cannot."""
    sample_size: tuple[Callable[..., object], ...]
    """The `stats.sample_size` functions its parts are sized with."""
    available: int | None = None
    """The units that exist here (SciFi-100's prompts, HANNA's stories); None when no limit binds."""


