"""The pre-registration of the published run: each testable claim's minimum sample, derived from the pilot's
variances for a stated precision, and the terms the claim is decided under, fixed before the run is recorded.

For every claim of `claim_table.CLAIMS` that this project can test there is one `Target`: the per-unit quantity the
claim's estimator resamples, the precision its interval must reach (a CI half-width in the statistic's units, or on
Fisher's z scale for a correlation) with the reason tied to the claim's verdict rule, the reader of the pilot's
per-unit values and the sample-size function of `stats.sample_size`. `preregister` reads a pilot's results folder
(the `pilot` profile writes the published choices' outputs on a few items per stage, in the default run's formats),
sizes every part of every claim, and returns a `Preregistration`: per claim the pilot's n, statistic and spread, the
derived minimum (never below the claim table's current `min_n`), the estimator and verdict rule as the claim table
states them (with a hash of each verdict function's source), the story parser, and the claims tested and not
testable here. `write_preregistration` writes `preregistration.json` and `preregistration.md`; the SHA-256 of the
JSON is the registration's hash. `deviations` lists how the present code departs from a committed registration,
for the claims page.

Precision rule (`PrecisionRule`). "pilot distance" (the command's default): the interval's half-width is the
distance from the pilot's estimate to the nearest boundary of the claim's verdict rule (0 for a sign, +-0.3 for
B6's "weak", 50 % for B5's saving, -5 points for its accuracy margin, 80.0 % for B9's human level). If the truth
equals the pilot's estimate, an interval that narrow lies wholly on one side of every boundary, so the rule returns
"supported" or "not supported" instead of "inconclusive". Its weakness: a pilot estimate near a boundary asks for a
huge sample (reported as not reachable here when it exceeds the units that exist). The named alternative,
"smallest effect", sets a fixed half-width instead: 0.8 of the pilot's standard deviation for a mean difference
(Cohen's d_z = 0.8, a large paired effect), z(0.3) for a correlation (B6: an interval centred at 0 fits inside
(-0.3, 0.3)), 20 points for a proportion, an accuracy difference or a saving; it sizes every claim but may leave a
smaller true effect undecided ("inconclusive", never decided wrongly by it). Both are computed; the registration
names which one sets `min_n`. The published run registers "smallest effect": its pilot's estimates lie near the
boundaries, where "pilot distance" asks for thousands of prompts or stories.

A claim that rests on an LLM judge whose agreement with human labels failed in the pilot (its CI not above 0,
`judge_validity`) is registered "judge not validated: compute saved", with no minimum: the claims page would not
show its verdict anyway.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

import numpy as np
import pandas as pd

from .. import output_files as out
from ..claims.claim_spec import ClaimSpec
from ..claims.judge_validity import JudgeValidity, judges_for, read_judge_validity
from ..claims.registration import REGISTRATION_JSON, ClaimTerms, Terms, read_terms
from ..data.hanna import N_STORIES
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
from .claim_table import CLAIMS
from .manifest import MANIFEST_FILE, ManifestEntry, read_manifest_file
from .stages import writer_of

if TYPE_CHECKING:
    from ..data.hanna import HannaHuman
    from ..judges.validation import ValidationArms

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

SCIFI100_PROMPTS = 100
"""Prompts in SciFi-100: the most prompts a claim of the LLM Review paper (A1-A4) can use here."""

Status = Literal["sized", "judge not validated: compute saved", "not estimable from the pilot", "not reachable here",
                 "carried from the first registration"]
"""A claim's registration status: sized, its judge failed in the pilot, the pilot cannot size it, the size it
needs exceeds the units that exist here, or (in a second registration) its first registration's terms hold."""
SIZED: Status = "sized"
JUDGE_NOT_VALIDATED: Status = "judge not validated: compute saved"
NOT_ESTIMABLE: Status = "not estimable from the pilot"
BEYOND: Status = "not reachable here"
CARRIED: Status = "carried from the first registration"

STORY_PARSER = "llmcreativity.writing.parsing.extract_story"
"""The parser that cuts every story out of a writer's reply; its module's source is hashed (its regexes and helpers
decide the story too)."""
RULE_MODULES = ("llmcreativity.verdicts", "llmcreativity.writing.convergence", "llmcreativity.evaluation.claims",
                "llmcreativity.entropy.claims", "llmcreativity.entropy.diversity_agreement",
                "llmcreativity.judges.claims", "llmcreativity.judges.divergent")
"""Modules searched for the functions a claim's estimator text names in backticks (its verdict rule's code)."""
REGISTRATION_MD = "preregistration.md"
SIGNIFICANT = 6
"""Significant digits of every number in the JSON, so that the hash does not hang on the last bits of a float."""


class NotEstimable(Exception):
    """The pilot's outputs cannot give a claim's per-unit values; the message says what is missing."""


def _default(function: Callable[..., Any], parameter: str) -> float:
    """The default value of `function`'s `parameter`: a verdict rule's boundary, read where the rule is."""
    return float(inspect.signature(function).parameters[parameter].default)


# the pilot's files ---------------------------------------------------------------------------------------------


@dataclass
class Pilot:
    """A pilot's results folder and the human labels its claims are scored against."""

    results: Path
    """The pilot's results folder (the stage folders, `judge_validity.jsonl`, `executed/run.json`)."""
    labels: Mapping[str, bool] | None = None
    """MacGyver item id -> valid; None: read from the benchmark in the data folder when first needed."""
    hanna: HannaHuman | None = None
    """HANNA's human ratings; None: read from the data folder when first needed."""

    def path(self, output: OutputFile, stage: str | None = None) -> Path:
        """Where the stage that writes `output` (`stage`, of an output two stages write) put it in this folder;
        NotEstimable when it is not there."""
        name = writer_of(output, stage).name
        path = self.results / name / output.path
        if not path.exists():
            raise NotEstimable(f"{name}/{output.path} is missing ({output.holds})")
        return path

    def judge_arms(self) -> list[ValidationArms]:
        """The judges the pilot's judge-validation stage ran, as settings: those of the parameters its manifest
        records; without that entry, those of every profile of the stage (each a candidate, chosen by the names
        of the runs present)."""
        from ..judges.validation import validation_arms
        from .projection import stage_parameters

        stage = writer_of(out.JUDGE_RUNS)
        ran = _manifest_stages(self.results).get(stage.name)
        given = [ran.parameters] if ran is not None else list(stage.profiles.values())
        return [validation_arms(stage_parameters(stage, values)) for values in given]

    def item_labels(self) -> Mapping[str, bool]:
        """MacGyver's human labels by item id."""
        if self.labels is None:
            from ..data.macgyver import load_benchmark

            try:
                bench = load_benchmark()
            except FileNotFoundError as e:
                raise NotEstimable(f"no MacGyver labels: {e}") from e
            self.labels = dict(zip(bench["item_id"], bench["valid"].astype(bool), strict=True))
        return self.labels

    def hanna_human(self) -> HannaHuman:
        """HANNA's human stories and ratings."""
        if self.hanna is None:
            from ..data.hanna import load_hanna_human

            try:
                self.hanna = load_hanna_human()
            except FileNotFoundError as e:
                raise NotEstimable(f"no HANNA ratings: {e}") from e
        return self.hanna


# the parts of a claim and their sizes -----------------------------------------------------------------------


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


# readers of the pilot's per-unit values, one per claim ----------------------------------------------------


def _story_parts(pilot: Pilot, measures: Sequence[str], others: Sequence[str] | None = None, *,
                 kl: str | None = None) -> list[Part]:
    """Review minus each of `others` (None: the larger Single Agents) per prompt, one part per (measure, other); z
    Bonferroni over them all."""
    from ..evaluation.claims import REFERENCE, with_kl
    from ..stats.paired import prompt_means
    from ..writing import large_single_system

    table = pd.read_parquet(pilot.path(out.STORY_SCORES))
    if kl is not None:
        table = with_kl(table, kl)
    systems = set(table["system"])
    larger = large_single_system("").removesuffix(")")  # "single (" opens every larger Single Agent's name
    chosen = list(others) if others is not None else sorted(s for s in systems if s.startswith(larger))
    absent = [s for s in (REFERENCE, *chosen) if s not in systems]
    if absent or not chosen:
        raise NotEstimable(f"the story table has no stories of {', '.join(absent) or 'a larger Single Agent'}")
    means = prompt_means(table, measures)
    parts: list[Part] = []
    for m in measures:
        wide = means.pivot(index="prompt_id", columns="system", values=m)
        for other in chosen:
            pair = wide[[REFERENCE, other]].dropna()
            parts.append(MeanPart(f"{REFERENCE} - {other}, {m}", (pair[REFERENCE] - pair[other]).to_numpy(float),
                                  tests=len(measures) * len(chosen)))
    return parts


def read_a1(pilot: Pilot) -> list[Part]:
    """A1: per prompt, Review's judge score minus each baseline's, per dimension."""
    from ..evaluation.scores import JUDGE_COLUMNS
    from ..writing import BASELINES

    return _story_parts(pilot, JUDGE_COLUMNS, BASELINES)


def read_a2(pilot: Pilot, kl: str = "whole") -> list[Part]:
    """A2: per prompt, Review's novelty metric minus each baseline's; the lexical KL in mode `kl` (the published
    run's `a2_kl`, the paper's whole-story KL)."""
    from ..evaluation.scores import NOVELTY_COLUMNS
    from ..writing import BASELINES

    return _story_parts(pilot, NOVELTY_COLUMNS, BASELINES, kl=kl)


def read_a3(pilot: Pilot) -> list[Part]:
    """A3: per prompt, Review's mean judge score minus each larger Single Agent's."""
    return _story_parts(pilot, ["judge_mean"])


def read_a4(pilot: Pilot) -> list[Part]:
    """A4: per prompt, Debate's and Discussion's convergence Delta on each measure (above 0), and each one's Delta
    minus Review's (Review converges less; Bonferroni over the four)."""
    from ..writing.convergence import HOMOGENIZATION_MEASURES, INTERACTIVE, convergence

    homog = pd.concat([pd.read_csv(pilot.path(out.HOMOGENIZATION, stage)) for stage in ("baselines", "review")],
                      ignore_index=True)
    delta = convergence(homog)
    missing = [f for f in ("review", *INTERACTIVE) if f not in set(delta["framework"])]
    if missing:
        raise NotEstimable(f"no revised runs of {', '.join(missing)} in the homogenization tables")
    parts: list[Part] = [MeanPart(f"{f} Delta {m}", delta.loc[delta["framework"] == f, m].to_numpy(float))
                         for f in INTERACTIVE for m in HOMOGENIZATION_MEASURES]
    wide = {m: delta.pivot(index="prompt_id", columns="framework", values=m) for m in HOMOGENIZATION_MEASURES}
    family = len(INTERACTIVE) * len(HOMOGENIZATION_MEASURES)
    parts += [MeanPart(f"{f} Delta - review Delta, {m}",
                       (w := wide[m][[f, "review"]].dropna())[f].to_numpy(float) - w["review"].to_numpy(float),
                       tests=family)
              for f in INTERACTIVE for m in HOMOGENIZATION_MEASURES]
    return parts


def read_a5(pilot: Pilot) -> list[Part]:
    """A5: per HANNA story, the rubric judge's mean score (sampled mean) and the human consensus."""
    from ..evaluation.claims import human_consensus
    from ..evaluation.scores import judge_table
    from ..judges.rubric.scores import read_scores

    scores = read_scores(pilot.path(out.RUBRIC_HANNA), mode="sampled")
    if not scores:
        raise NotEstimable("no HANNA story was graded in sampled mode")
    judge = pd.Series([s.judge for s in scores]).value_counts().index[0]  # the judge that graded most
    table = judge_table([s for s in scores if s.judge == judge]).dropna(subset=["judge_mean"])
    ids = table["story_id"].astype(int)
    human = human_consensus(pilot.hanna_human()).reindex(ids)
    return [CorrelationPart("rho(judge mean score, human consensus)", table["judge_mean"].to_numpy(float),
                            human.to_numpy(float))]


def _se_part(pilot: Pilot, output: OutputFile, x: str, label: str) -> list[Part]:
    """rho(x, probability-weighted SE) over the rows of a semantic-entropy table, problems resampled."""
    from ..entropy.claims import PRIMARY

    table = pd.read_parquet(pilot.path(output))
    if x not in table.columns:
        raise NotEstimable(f"the {output.path} table has no column {x!r}")
    return [CorrelationPart(label, table[x].to_numpy(float), table[PRIMARY].to_numpy(float),
                            table["problem_id"].astype(str).to_numpy())]


def read_b1(pilot: Pilot) -> list[Part]:
    """B1: per chain, (temperature, SE), problems whole."""
    return _se_part(pilot, out.CHAIN_TABLE, "temperature", "rho(temperature, SE) over chains")


def read_b2(pilot: Pilot) -> list[Part]:
    """B2: per chain, (model parameters, SE), problems whole."""
    return _se_part(pilot, out.CHAIN_TABLE, "params_m", "rho(parameters, SE) over chains")


def read_b3(pilot: Pilot) -> list[Part]:
    """B3: per step, (clusters, SE), problems whole."""
    return _se_part(pilot, out.STEPS, "n_clusters", "rho(clusters, SE) over steps")


def read_b4(pilot: Pilot) -> list[Part]:
    """B4: per step, (mean pairwise cosine, SE), problems whole."""
    return _se_part(pilot, out.STEPS, "mean_cosine", "rho(mean cosine, SE) over steps")


def _judgements(pilot: Pilot) -> pd.DataFrame:
    """One row per (judge, labelled item) of the pilot's judge runs (`judges.judgement_table`), chain runs left
    out."""
    from ..judges.runner import read_judgements
    from ..judges.summary import judgement_table

    runs = pilot.path(out.JUDGE_RUNS)
    found = [j for f in sorted(runs.glob("*.jsonl")) if not f.name.startswith("se-chains-")
             for j in read_judgements(f)]
    if not found:
        raise NotEstimable("the judge runs hold no judgement of a labelled item")
    labels = pilot.item_labels()
    unlabelled = sorted({j.item_id for j in found} - set(labels))
    if unlabelled:
        raise NotEstimable(f"items {unlabelled[:3]} have no MacGyver label")
    return judgement_table(found, labels)


def _reference(judges: set[str], arms: list[ValidationArms]) -> str:
    """The paper's judge: the full-view retrieval judge with early stopping whose twin without it (T > 1, same
    rounds, k, length and criteria mode) also ran, as the judge-validation chapter runs them under `arms`
    (`ValidationArms.reference` and `.twin`, their names derived from the stage's parameters)."""
    stopping = sorted({a.reference.name for a in arms
                       if a.reference.stops_early and {a.reference.name, a.twin.name} <= judges})
    if len(stopping) != 1:
        raise NotEstimable(f"{len(stopping)} full-view retrieval judges with a twin without early stopping ran; "
                           "expected one")
    return stopping[0]


def _correct(per_item: pd.DataFrame, first: str, second: str) -> tuple[np.ndarray, np.ndarray]:
    """Whether each judge was right on the items both judged."""
    a = per_item[per_item["judge"] == first].set_index("item_id")["correct"]
    b = per_item[per_item["judge"] == second].set_index("item_id")["correct"]
    common = a.index.intersection(b.index)
    return a[common].to_numpy(bool), b[common].to_numpy(bool)


def _tokens(per_item: pd.DataFrame, first: str, second: str) -> tuple[np.ndarray, np.ndarray]:
    a = per_item[per_item["judge"] == first].set_index("item_id")["total_tokens"]
    b = per_item[per_item["judge"] == second].set_index("item_id")["total_tokens"]
    common = a.index.intersection(b.index)
    return a[common].to_numpy(float), b[common].to_numpy(float)


def _ran(judges: set[str], arms: list[ValidationArms], kind: str) -> str:
    """The judge of the chapter's `kind` (e.g. "chateval") that ran: its name under `arms` (the first in order when
    several ran)."""
    found = sorted({a.by_kind[kind].name for a in arms} & judges)
    if not found:
        raise NotEstimable(f"no {kind} judge ran in the pilot")
    return found[0]


def read_b5(pilot: Pilot) -> list[Part]:
    """B5: per item, the retrieval judge's and ChatEval's tokens (the saving) and correctness (the accuracy
    margin)."""
    from ..verdicts import efficiency_verdict

    per_item, arms = _judgements(pilot), pilot.judge_arms()
    judges = set(per_item["judge"])
    ref, chateval = _reference(judges, arms), _ran(judges, arms, "chateval")
    return [RatioPart(f"token saving, {ref} vs {chateval}", *_tokens(per_item, ref, chateval),
                      boundary=_default(efficiency_verdict, "min_saving")),
            PairedPart(f"accuracy difference, {ref} - {chateval}", *_correct(per_item, ref, chateval),
                       boundary=-_default(efficiency_verdict, "margin"))]


def read_b9(pilot: Pilot) -> list[Part]:
    """B9: per item, the retrieval judge's correctness minus ChatEval's, one-shot's and CoT's (Bonferroni over the
    three), and its accuracy against the paper's least accurate annotator."""
    from ..judges.claims import PAPER_HUMAN_ACCURACY

    per_item, arms = _judgements(pilot), pilot.judge_arms()
    judges = set(per_item["judge"])
    ref = _reference(judges, arms)
    baselines = [_ran(judges, arms, kind) for kind in ("chateval", "single", "cot")]
    parts: list[Part] = [PairedPart(f"accuracy, {ref} - {b}", *_correct(per_item, ref, b), tests=len(baselines))
                         for b in baselines]
    mine = per_item.loc[per_item["judge"] == ref, "correct"].to_numpy(bool)
    return [*parts, ProportionPart(f"accuracy of {ref}", mine, PAPER_HUMAN_ACCURACY[0])]


def read_b10(pilot: Pilot) -> list[Part]:
    """B10: per item, the retrieval judge's correctness with the stronger model minus with the weaker one."""
    per_item, arms = _judgements(pilot), pilot.judge_arms()
    judges = set(per_item["judge"])
    ref = _reference(judges, arms)
    weak = sorted({a.weak_name for a in arms if a.weak_name and a.reference.name == ref} & judges)
    if not weak:
        raise NotEstimable("the pilot ran the retrieval judge with no weaker base model (weak_convergent_judge)")
    return [PairedPart(f"accuracy, {ref} - {weak[0]}", *_correct(per_item, ref, weak[0]))]


def _judged_chains(pilot: Pilot) -> dict[str, pd.DataFrame]:
    """Domain -> the semantic-entropy chains with the convergent judge's p_valid (`judges.divergent.judged_chains`),
    from the paper's judge's chain run where there is one."""
    from ..judges.divergent import PAPER_SCORER, judged_chains
    from ..judges.runner import read_judgements

    chains = pd.read_parquet(pilot.path(out.CHAIN_TABLE))
    runs = pilot.path(out.JUDGE_RUNS)
    judged = {}
    for domain in sorted(chains["domain"].unique()):
        files = sorted(runs.glob(f"se-chains-{domain}-*.jsonl"))
        paper = [f for f in files if f.name.startswith(f"se-chains-{domain}-{PAPER_SCORER}")]
        if not files:
            raise NotEstimable(f"no judge run over the {domain} chains")
        try:
            judged[domain] = judged_chains(chains, read_judgements((paper or files)[0]), domain=domain)
        except KeyError as e:
            raise NotEstimable(str(e.args[0])) from e
    return judged


def _chain_part(label: str, chains: pd.DataFrame, x: str, y: str, boundaries: tuple[float, ...],
                flat: Sequence[str]) -> CorrelationPart:
    from ..verdicts import barely_varies

    why = "; ".join(f"{c} barely varies: {w}" for c in flat if (w := barely_varies(chains[c])))
    return CorrelationPart(label, chains[x].to_numpy(float), chains[y].to_numpy(float),
                           chains["problem_id"].astype(str).to_numpy(), boundaries, flat=why)


def read_b6(pilot: Pilot) -> list[Part]:
    """B6: per chain of each domain, (SE, p_valid), problems whole; the rule's bounds are `weak_verdict`'s."""
    from ..entropy.claims import PRIMARY
    from ..verdicts import weak_verdict

    bound = _default(weak_verdict, "bound")
    return [_chain_part(f"{domain}: rho(SE, p_valid)", c, PRIMARY, "p_valid", (-bound, bound), (PRIMARY, "p_valid"))
            for domain, c in _judged_chains(pilot).items()]


def read_b11(pilot: Pilot) -> list[Part]:
    """B11: per chain of each domain, (parameters, p_valid) and (parameters, SE), problems whole."""
    from ..entropy.claims import PRIMARY

    return [_chain_part(f"{domain}: rho(parameters, {y})", c, "params_m", y, (0.0,), (y,))
            for domain, c in _judged_chains(pilot).items() for y in ("p_valid", PRIMARY)]


def read_b7(pilot: Pilot) -> list[Part]:
    """B7: per disjoint set of ideas, SE's and each baseline's diversity against the coders' bucket entropy."""
    raise NotEstimable("the entailment_validation stage writes no per-set table (B7 resamples sets of ideas: the "
                       "rows of `set_diversity`); write it to size B7")


def read_b8(pilot: Pilot) -> list[Part]:
    """B8: per chain, (solution-level SE, the novelty judge's rating), problems whole."""
    from ..entropy.claims import PRIMARY

    chains = pd.read_parquet(pilot.path(out.CHAIN_TABLE))
    if "novelty" not in chains.columns:
        raise NotEstimable("the semantic_entropy stage does not store the chains' novelty ratings "
                           "(`novelty_scores`), B8's second variable")
    return [_chain_part("rho(solution SE, novelty)", chains, PRIMARY, "novelty", (0.0,), ())]


# the targets -------------------------------------------------------------------------------------------------

SIGN = "the rule needs the interval on one side of 0: one this narrow around the pilot's estimate excludes 0"


@dataclass(frozen=True)
class Target:
    """How one claim's minimum sample is derived from the pilot."""

    claim_id: str
    """The claim (a key of `CLAIMS`)."""
    quantity: str
    """The per-unit quantity the claim's estimator resamples."""
    target: str
    """The precision its interval must reach under "pilot distance", in the statistic's units."""
    reason: str
    """Why that target, tied to the claim's verdict rule."""
    read: Callable[[Pilot], list[Part]]
    """Reads the pilot's per-unit values, one `Part` per comparison the rule needs; NotEstimable when it cannot."""
    sample_size: tuple[Callable[..., object], ...]
    """The `stats.sample_size` functions its parts are sized with."""
    available: int | None = None
    """The units that exist here (SciFi-100's prompts, HANNA's stories); None when no limit binds."""


_MEAN = "half-width <= |pilot mean difference| per comparison (z Bonferroni over the family)"
_RHO = "Fisher-z half-width <= |z(pilot rho)|"
_CHAINS = " with the pilot's design effect (problems resampled whole)"

TARGETS: dict[str, Target] = {t.claim_id: t for t in [
    Target("A1", "per prompt: Review's judge score minus each baseline's, per dimension (5 x 4 comparisons)",
           _MEAN, "every comparison must be significantly positive after Holm: " + SIGN, read_a1, (n_for_mean,),
           SCIFI100_PROMPTS),
    Target("A2", "per prompt: Review's novelty metric minus each baseline's (4 metrics x 4 baselines; whole-story "
           "KL)", _MEAN, "every comparison must be significantly positive after Holm: " + SIGN, read_a2,
           (n_for_mean,), SCIFI100_PROMPTS),
    Target("A3", "per prompt: Review's mean judge score minus the larger Single Agent's", _MEAN, SIGN, read_a3,
           (n_for_mean,), SCIFI100_PROMPTS),
    Target("A4", "per prompt: Debate's and Discussion's convergence Delta (cosine, Self-BLEU), and each one's Delta "
           "minus Review's", "each part: half-width <= |its pilot mean| (the paired parts: z Bonferroni over 4)",
           "every part is a sign (Delta above 0; Review's Delta below each): " + SIGN, read_a4, (n_for_mean,),
           SCIFI100_PROMPTS),
    Target("A5", "per HANNA story: (the judge's mean score, the human consensus)", _RHO, SIGN, read_a5,
           (n_for_correlation,), N_STORIES),
    Target("B1", "per chain: (temperature, probability-weighted SE)", _RHO + _CHAINS, SIGN, read_b1,
           (n_for_correlation, design_effect)),
    Target("B2", "per chain: (model parameters, probability-weighted SE)", _RHO + _CHAINS,
           "'does not grow' is decided by the side of 0 the interval lies on: " + SIGN, read_b2,
           (n_for_correlation, design_effect)),
    Target("B3", "per step: (number of clusters, probability-weighted SE)", _RHO + _CHAINS, SIGN, read_b3,
           (n_for_correlation, design_effect)),
    Target("B4", "per step: (mean pairwise cosine, probability-weighted SE)", _RHO + _CHAINS, SIGN, read_b4,
           (n_for_correlation, design_effect)),
    Target("B5", "per item: the retrieval judge's and ChatEval's tokens; whether each judged right",
           "saving: half-width <= |pilot saving - 50 %|; accuracy difference: <= |pilot difference + 5 points|",
           "the saving's interval must clear 50 % and the accuracy difference's clear -5 points "
           "(`efficiency_verdict`)", read_b5, (n_for_ratio, n_for_paired_proportions)),
    Target("B6", "per chain of each domain: (probability-weighted SE, the convergent judge's p_valid)",
           "Fisher-z half-width <= the distance from z(pilot rho) to the nearer of z(-0.3), z(0.3)" + _CHAINS,
           "the weak rule needs the interval inside (-0.3, 0.3) (or wholly beyond): around the pilot's rho an "
           "interval this narrow fits; alternative 'smallest effect': half-width z(0.3), which fits when centred "
           "at 0", read_b6, (n_for_correlation, design_effect)),
    Target("B7", "per disjoint set of MuseScorer ideas: SE's and each baseline's measure against the coders' "
           "bucket entropy", "half-width <= |pilot difference of the rhos| (z Bonferroni over 4)",
           "every difference must be significantly positive after Holm: " + SIGN, read_b7, (n_for_mean,)),
    Target("B8", "per chain: (solution-level SE, the novelty judge's expected rating)", _RHO + _CHAINS, SIGN,
           read_b8, (n_for_correlation, design_effect)),
    Target("B9", "per item: whether the retrieval judge and each of ChatEval, one-shot and CoT judged right",
           "each accuracy difference: half-width <= |pilot difference| (z Bonferroni over 3); accuracy: <= |pilot "
           "accuracy - 80.0 %|", "both parts must hold: each difference significant after Holm, and the Wilson "
           "interval clear of the annotators' 80.0 %", read_b9, (n_for_paired_proportions, n_for_proportion)),
    Target("B10", "per item: whether the retrieval judge judged right with the stronger and with the weaker model",
           "half-width <= |pilot accuracy difference|", SIGN, read_b10, (n_for_paired_proportions,)),
    Target("B11", "per chain of each domain: (model parameters, p_valid) and (model parameters, SE)",
           _RHO + _CHAINS + ", each part", "every part is a sign (p_valid rises; SE at or below 0): " + SIGN,
           read_b11, (n_for_correlation, design_effect)),
]}
"""Claim id -> its target, for every claim of `CLAIMS` this project can test."""


# the registration --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimRegistration:
    """One claim's registered minimum sample and the pilot figures it comes from."""

    claim_id: str
    """The claim."""
    unit: str
    """What n counts (the claim table's unit)."""
    status: Status
    """Sized, judge not validated, not estimable from the pilot, or not reachable here."""
    note: str
    """Why it is not sized, or its deciding part."""
    quantity: str
    """Its target's per-unit quantity."""
    target: str
    """Its target's precision."""
    reason: str
    """Why that precision."""
    pilot_n: int | None
    """Units the pilot had for the deciding part (the one needing the most)."""
    statistic: float | None
    """The deciding part's pilot estimate."""
    spread: str
    """The deciding part's spread (sd, design effect, discordant share)."""
    half_width: float | None
    """The deciding part's target half-width."""
    table_min_n: int
    """The claim table's min_n when registered: the floor."""
    derived_n: int | None
    """The largest size any part needs under the registered rule; None when not sized."""
    min_n: int | None
    """The registered minimum: max(derived_n, table_min_n); None when not sized."""
    alternative_n: int | None
    """The largest size under the other precision rule (shown, not registered)."""
    available: int | None
    """The units that exist here; None when no limit binds."""
    judge: str
    """The claim table's judge kind."""
    terms: ClaimTerms
    """Its registered minimum (None when not sized), estimator and verdict rule."""
    parts: tuple[PartSize, ...] = ()
    """Every part, sized; empty when its judge was not validated or its values could not be read."""
    gate_judge: dict[str, Any] | None = None
    """The validity record of the confirmed judge a gated claim is sized under (judge, split, n, CI, chance, ceiling,
    the choice's commit and hash); None when the claim is not gated or was registered without one."""


@dataclass(frozen=True)
class Preregistration:
    """The registration of the published run."""

    options: dict[str, Any]
    """The precision rule, its alternative, the confidence and whether the judge gate was applied."""
    pilot: dict[str, Any]
    """The pilot's folder name and the run id of each stage in its manifest."""
    claims: tuple[ClaimRegistration, ...]
    """Every claim of `TARGETS`, in the claim table's order."""
    terms: Terms
    """The parser, the tested and the not-testable claims (per-claim terms live with each claim)."""
    after: dict[str, Any] | None = None
    """A second registration's link to the first: its folder and hash, and every deviation from it with its reason
    (`second_registration`); None for a first registration."""

    def to_json(self) -> dict[str, Any]:
        """The registration as plain JSON values, every number to `SIGNIFICANT` digits."""
        body = {"options": self.options, "pilot": self.pilot, "parser": self.terms.parser,
                "tested": list(self.terms.tested), "not_testable": self.terms.not_testable,
                "claims": [asdict(c) for c in self.claims]}
        if self.after is not None:
            body["after"] = self.after
        rounded: dict[str, Any] = _rounded(body)
        return rounded


def _rounded(value: Any) -> Any:
    """`value` with every float to `SIGNIFICANT` digits (NaN and inf as None), tuples as lists."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _source_hash(obj: Any) -> str:
    return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()[:16]


def story_parser() -> dict[str, str]:
    """The story parser's name and the SHA-256 (16 hex digits) of its module's source."""
    module, _, name = STORY_PARSER.rpartition(".")
    getattr(import_module(module), name)  # it must exist
    return {"name": STORY_PARSER, "sha256": _source_hash(import_module(module))}


def rule_clauses(estimator: str) -> str:
    """The clauses of an estimator text that state its verdict rule: those with "when", "must hold" or a named
    function, joined by "; " (the whole text when none does).

    >>> rule_clauses("Spearman rho, bootstrap CI; supported when the CI lies above 0 (`sign_verdict`)")
    'supported when the CI lies above 0 (`sign_verdict`)'
    """
    clauses = [c.strip() for c in estimator.split(";")]
    rule = [c for c in clauses if re.search(r"\bwhen\b|must hold|`\w+`", c)]
    return "; ".join(rule) or estimator.strip()


def rule_functions(estimator: str) -> dict[str, str]:
    """The functions (of `RULE_MODULES`) an estimator text names in backticks -> their source hash."""
    found = {}
    for name in re.findall(r"`(\w+)`", estimator):
        for module in RULE_MODULES:
            obj = getattr(import_module(module), name, None)
            if callable(obj):
                found[name] = _source_hash(obj)
                break
    return found


def claim_terms(spec: ClaimSpec, min_n: int | None = None) -> ClaimTerms:
    """A claim's terms as the claim table states them now (`min_n` overrides its minimum)."""
    return ClaimTerms(spec.min_n if min_n is None else min_n, spec.estimator, rule_clauses(spec.estimator),
                      rule_functions(spec.estimator))


def current_terms() -> Terms:
    """The terms of the present code: the claim table and the story parser."""
    tested = tuple(c for c, s in CLAIMS.items() if not s.not_testable)
    return Terms({c: claim_terms(CLAIMS[c]) for c in tested}, story_parser(), tested,
                 {c: s.not_testable for c, s in CLAIMS.items() if s.not_testable})


def _manifest_stages(results: Path) -> dict[str, ManifestEntry]:
    """Stage name -> its entry in the results folder's manifest (`executed/run.json`); empty without one."""
    return read_manifest_file(results / "executed" / MANIFEST_FILE).stages


def _manifest_runs(results: Path) -> dict[str, dict[str, str]]:
    stages = _manifest_stages(results)
    return {name: {"run_id": e.run_id, "status": e.status} for name, e in sorted(stages.items())}


def _gate(spec: ClaimSpec, validity: list[JudgeValidity] | None, judge: str) -> str:
    """Why the claim's judge fails its validation in the pilot ("" when it passes, is not gated, or no agreement
    was recorded at all)."""
    if spec.judge == "none" or not spec.gated or validity is None:
        return ""
    records = judges_for(spec.judge, judge, validity)
    if not records:
        return f"the pilot recorded no agreement of the {spec.judge} judge with human labels"
    failing = [v for v in records if not v.validated]
    if not failing:
        return ""
    more = f" (and {len(failing) - 1} more of {len(records)} {spec.judge} judges)" if len(failing) > 1 else ""
    return f"its CI reaches chance: {failing[0].describe()}{more}"


GATE_FIELDS = ("judge", "kind", "split", "n", "statistic", "estimate", "low", "high", "chance", "ceiling", "baseline",
               "baseline_low", "baseline_high", "choice_commit", "choice_sha256", "stage", "run_id")
"""The fields of a confirmed judge's validity record a registration names beside the claims it gates."""


def _gate_record(spec: ClaimSpec, validity: list[JudgeValidity] | None, judge: str) -> dict[str, Any] | None:
    """The validity record of the passing judge a gated claim is sized under (its `GATE_FIELDS`); None when the
    claim is not gated, no judge is named, or the judge does not pass."""
    if spec.judge == "none" or not spec.gated or validity is None or not judge:
        return None
    records = [v for v in judges_for(spec.judge, judge, validity) if v.validated]
    if len(records) != 1:
        return None
    return {k: getattr(records[0], k) for k in GATE_FIELDS if hasattr(records[0], k)}


def _register(target: Target, pilot: Pilot, rule: PrecisionRule, confidence: float, gate: str) -> ClaimRegistration:
    """One claim's registration: gated, not estimable, beyond the units here, or sized."""
    spec = CLAIMS[target.claim_id]
    blank = ClaimRegistration(spec.claim_id, spec.unit, NOT_ESTIMABLE, "", target.quantity, target.target,
                              target.reason, None, None, "", None, spec.min_n, None, None, None, target.available,
                              spec.judge, claim_terms(spec))
    if gate:
        return replace(blank, status=JUDGE_NOT_VALIDATED, note=gate)
    try:
        parts = target.read(pilot)
    except NotEstimable as e:
        return replace(blank, note=str(e))
    sized = tuple(p.size(rule, confidence) for p in parts)
    other = [p.size(next(r for r in PRECISION_RULES if r != rule), confidence).needed for p in parts]
    failed = [p for p in sized if p.needed is None]
    deciding = failed[0] if failed else max(sized, key=lambda p: p.needed or 0)
    known = [n for n in other if n is not None]
    figures = replace(blank, pilot_n=deciding.pilot_n, statistic=deciding.statistic, spread=deciding.spread,
                      half_width=deciding.half_width, parts=sized,
                      alternative_n=max(known) if known and len(known) == len(other) else None)
    if failed:
        more = f" ({len(failed) - 1} more of {len(sized)} parts cannot be sized)" if len(failed) > 1 else ""
        return replace(figures, note=f"{failed[0].part}: {failed[0].why_not}{more}")
    derived = max(p.needed or 0 for p in sized)
    if target.available is not None and derived > target.available:
        return replace(figures, status=BEYOND, derived_n=derived,
                       note=f"needs {derived} {spec.unit} ({deciding.part}); {target.available} exist here")
    return replace(figures, status=SIZED, derived_n=derived, min_n=max(derived, spec.min_n),
                   note=f"deciding part: {deciding.part}")


def preregister(results: Path, *, rule: PrecisionRule = "pilot distance", confidence: float = 0.95,
                gate: bool = True, gate_judges: Mapping[str, str] | None = None,
                labels: Mapping[str, bool] | None = None, hanna: HannaHuman | None = None,
                after: Path | None = None) -> Preregistration:
    """The registration derived from the pilot's results folder `results`.

    Every claim of `TARGETS` is read and sized under `rule` at `confidence` (the other rule's size is shown
    beside it). With `gate`, a gated claim whose judge failed its validation in the pilot (`judge_validity.jsonl`;
    `gate_judges` names the judge of each kind, by default every recorded judge of that kind, as the claims page
    does for a claim that names none) is "judge not validated: compute saved"; a claim sized under a named judge
    that passes carries that judge's validity record. `labels` (MacGyver item id -> valid) and `hanna` replace the
    data folder's human labels. `after` (a committed registration's folder) makes this a second registration: it
    links the first by hash and lists every deviation from it with its reason (`second_registration`).
    """
    if rule not in PRECISION_RULES:
        raise ValueError(f"rule={rule!r}: choose one of {PRECISION_RULES}")
    if not results.is_dir():
        raise FileNotFoundError(f"{results} is not a results folder: give the pilot's (results/pilot)")
    pilot = Pilot(results, labels, hanna)
    validity_file = results / "judge_validity.jsonl"
    validity = read_judge_validity(validity_file) if gate and validity_file.exists() else None
    names = dict(gate_judges or {})
    sized = (replace(_register(TARGETS[c], pilot, rule, confidence,
                               _gate(CLAIMS[c], validity, names.get(CLAIMS[c].judge, "")) if gate else ""),
                     gate_judge=_gate_record(CLAIMS[c], validity, names.get(CLAIMS[c].judge, "")) if gate else None)
             for c in CLAIMS if c in TARGETS)
    claims = tuple(replace(c, terms=replace(c.terms, min_n=c.min_n)) for c in sized)  # the registered minimum
    now = current_terms()
    terms = Terms({c.claim_id: c.terms for c in claims}, now.parser, now.tested, now.not_testable)
    gate_note = ("off" if not gate else "on, no judge agreement recorded in the pilot (not applied)"
                 if validity is None else "on")
    options = {"precision_rule": rule, "alternative_rule": next(r for r in PRECISION_RULES if r != rule),
               "confidence": confidence, "judge_gate": gate_note, "gate_judges": names,
               "smallest_effect": {"d_z": SMALLEST_EFFECT_SD, "rho": SMALLEST_EFFECT_RHO,
                                   "share": SMALLEST_EFFECT_SHARE}}
    link = None if after is None else second_registration(after)
    if after is not None:
        claims = _carried(claims, after)
    return Preregistration(options, {"results": results.name, "stage_runs": _manifest_runs(results)}, claims, terms,
                           link)


def _carried(claims: tuple[ClaimRegistration, ...], after: Path) -> tuple[ClaimRegistration, ...]:
    """A second registration's claims: those it re-decides (`stages.DECISIVE_CLAIMS`) as sized now, every other one
    with the first registration's minimum and terms (its stage asks the published run's calls again)."""
    from .stages import DECISIVE_CLAIMS

    first = read_terms(after).claims
    out = []
    for c in claims:
        if c.claim_id in DECISIVE_CLAIMS or c.claim_id not in first:
            out.append(c)
            continue
        was = first[c.claim_id]
        out.append(replace(c, status=CARRIED, min_n=was.min_n, derived_n=None, alternative_n=None, parts=(),
                           note="its stage asks the published run's calls again: the first registration's terms "
                                f"hold (minimum {was.min_n if was.min_n is not None else 'none registered'})",
                           terms=was))
    return tuple(out)


NO_JUDGE_NO_SIZE = ("A claim whose judge is not confirmed has no minimum n: it is reported \"judge not validated\" and "
                    "its compute is saved. \"At its minimum n\" applies to the claims decided under confirmed judges "
                    "and to the judge-free ones.")
"""The sentence a second registration and the claims page state once."""


def second_registration(after: Path) -> dict[str, Any]:
    """A second registration's link to the committed first one in `after`: its folder and hash, the deviations the
    code finds (`deviations` of the present claim table and rules; the new minimums are this registration's own), the
    re-decision's stated deviations with their
    reasons (`stages.DECISIVE_DEVIATIONS`), the items seen before this sizing (`stages.DECISIVE_SEEN`) and the
    sentence on unconfirmed judges."""
    from .stages import DECISIVE_CHANGES, DECISIVE_DEVIATIONS, DECISIVE_SEEN

    if not (after / REGISTRATION_JSON).exists():
        raise FileNotFoundError(f"--after {after}: no {REGISTRATION_JSON} there; give the committed first "
                                "registration's folder (published/preregistration)")
    return {"folder": after.name, "sha256": registration_hash(after), "found": deviations(after),
            "stated": dict(DECISIVE_DEVIATIONS), "changes": {k: dict(v) for k, v in DECISIVE_CHANGES.items()},
            "seen": list(DECISIVE_SEEN), "unconfirmed": NO_JUDGE_NO_SIZE}


# writing and comparing ---------------------------------------------------------------------------------------


def registration_json(registration: Preregistration) -> str:
    """The JSON text written to `preregistration.json` (sorted keys, one level per line)."""
    return json.dumps(registration.to_json(), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def registration_hash(path: Path) -> str:
    """The registration's hash: the SHA-256 of `preregistration.json` (`path` is the file or its folder)."""
    file = path / REGISTRATION_JSON if path.is_dir() else path
    return hashlib.sha256(file.read_bytes()).hexdigest()


def write_preregistration(registration: Preregistration, folder: Path) -> str:
    """Write `preregistration.json` and `preregistration.md` into `folder` (created); return the hash."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / REGISTRATION_JSON).write_text(registration_json(registration), encoding="utf-8")
    digest = registration_hash(folder)
    (folder / REGISTRATION_MD).write_text(registration_markdown(registration, digest), encoding="utf-8")
    return digest


def _num(x: float | int | None, digits: int = 3) -> str:
    return "" if x is None else str(x) if isinstance(x, int) else f"{x:.{digits}g}"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _gate_text(v: dict[str, Any]) -> str:
    """One confirmed judge's validity record in a line."""
    ceiling = f", human ceiling {_num(v.get('ceiling'))}" if v.get("ceiling") is not None else ""
    commit, digest = str(v.get("choice_commit", ""))[:7], str(v.get("choice_sha256", ""))[:12]
    return (f"{v['judge']}: {v.get('statistic', '')} {_num(v.get('estimate'))} [{_num(v.get('low'))}, "
            f"{_num(v.get('high'))}], n = {v.get('n')}, chance {_num(v.get('chance'))}{ceiling}; "
            f"{v.get('split', '')}; choice commit {commit}, choice SHA-256 {digest}")


def _effects(options: dict[str, Any]) -> str:
    e = options.get("smallest_effect", {"d_z": SMALLEST_EFFECT_SD, "rho": SMALLEST_EFFECT_RHO,
                                        "share": SMALLEST_EFFECT_SHARE})
    return (f"{e['d_z']:g} standard deviations (d_z), a correlation's z({e['rho']:g}) on Fisher's scale, a share's "
            f"{e['share'] * 100:g} points")


def registration_markdown(registration: Preregistration, digest: str) -> str:
    """The registration as a page: the hash, the options, the claims table, the targets, each claim's parts and
    its estimator and rule."""
    o, t = registration.options, registration.terms
    runs = ", ".join(f"{s} {r['run_id']}" for s, r in registration.pilot["stage_runs"].items()) or "no manifest"
    second = registration.after
    lines = [
        "# Second pre-registration: the claims re-decided" if second else "# Pre-registration of the published run",
        "", f"Registration hash (SHA-256 of `{REGISTRATION_JSON}`): `{digest}`", "",
        *_second_lines(second),
        f"- Pilot: results folder `{registration.pilot['results']}`; runs: {runs}.",
        f"- Precision rule: {o['precision_rule']} (alternative shown: {o['alternative_rule']}); "
        f"{o['confidence'] * 100:g} % intervals; judge gate {o['judge_gate']}.",
        f"- Smallest effects (rule 'smallest effect'): a mean difference's half-width {_effects(o)}.",
        f"- Story parser: `{t.parser['name']}` (module SHA-256 {t.parser['sha256']}).",
        f"- Claims tested ({len(t.tested)}): {', '.join(t.tested)}.",
        f"- Not testable here ({len(t.not_testable)}): "
        + "; ".join(f"{c} ({why})" for c, why in t.not_testable.items()) + ".", "",
        "| claim | unit | status | pilot n | statistic | spread | target half-width | min_n now | derived | "
        "registered min_n | alternative | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in registration.claims:
        lines.append(f"| {c.claim_id} | {c.unit} | {c.status} | {_num(c.pilot_n)} | {_num(c.statistic)} | "
                     f"{_cell(c.spread)} | {_num(c.half_width)} | {c.table_min_n} | {_num(c.derived_n)} | "
                     f"{_num(c.min_n)} | {_num(c.alternative_n)} | {_cell(c.note)} |")
    gated = [c for c in registration.claims if c.gate_judge]
    if gated:
        lines += ["", "**Confirmed judges of the gated claims sized here** (their validity records):", ""]
        lines += [f"- {c.claim_id}: {_gate_text(c.gate_judge)}" for c in gated if c.gate_judge]
    lines += ["", "Correlations' half-widths are on Fisher's z scale. A claim's figures are those of its deciding "
              "part, the one that needs the most units (or the first that cannot be sized).", "",
              "## Targets", "", "| claim | per-unit quantity | target | reason | size functions |",
              "|---|---|---|---|---|"]
    lines += [f"| {c.claim_id} | {_cell(c.quantity)} | {_cell(c.target)} | {_cell(c.reason)} | "
              f"{', '.join(f.__name__ for f in TARGETS[c.claim_id].sample_size)} |" for c in registration.claims]
    lines += ["", "## Parts", ""]
    for c in registration.claims:
        if not c.parts:
            continue
        lines += [f"**{c.claim_id}**", "", "| part | pilot n | statistic | spread | boundary | half-width | needed |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {_cell(p.part)} | {p.pilot_n} | {_num(p.statistic)} | {_cell(p.spread)} | {p.boundary} | "
                  f"{_num(p.half_width)} | {_num(p.needed) or _cell(p.why_not)} |" for p in c.parts]
        lines.append("")
    lines += ["## Estimators and verdict rules", ""]
    for c in registration.claims:
        functions = ", ".join(f"`{n}` {h}" for n, h in c.terms.rule_functions.items())
        lines += [f"- **{c.claim_id}**: {c.terms.estimator}. Rule: {c.terms.verdict_rule}"
                  + (f" (source hashes: {functions})" if functions else "") + "."]
    return "\n".join(lines) + "\n"


def _second_lines(second: dict[str, Any] | None) -> list[str]:
    """A second registration's lines: the first's hash, the deviations and the items seen before its sizing."""
    if not second:
        return []
    lines = [f"After the first registration `{second['folder']}` (SHA-256 `{second['sha256']}`). "
             + second["unconfirmed"], "", "**Deviations from the first registration, with their reasons:**", ""]
    lines += [f"- *{name}*: {why}" for name, why in second["stated"].items()]
    lines += [f"- (found in the code) {d}" for d in second["found"]]
    changes = "; ".join(f"{stage}: " + ", ".join(f"{k} = {v!r}" for k, v in c.items())
                        for stage, c in second["changes"].items())
    lines += ["", f"The changed generating choices: {changes}.", "", "**Seen before this sizing (declared):**", ""]
    lines += [f"- {item}" for item in second["seen"]]
    return [*lines, ""]


def registration_markdown_line(registered: Path, current: Terms | None = None) -> str:
    """The claims page's sentence on a committed registration: its folder, its hash and every deviation from it
    (`deviations`), or that there is none."""
    found = deviations(registered, current)
    return (f"Pre-registered in `{registered.name}` (SHA-256 of its JSON `{registration_hash(registered)}`), "
            "committed before the first recording sitting. Deviations since: "
            + ("; ".join(found) + "." if found else "none."))


def deviations(registered: Path, current: Terms | None = None) -> list[str]:
    """Every way `current` (default: the present code, `current_terms`) departs from the committed registration
    `registered`, one sentence each, for the claims page: the story parser, the claims tested, and per claim its
    minimum sample, estimator, verdict rule and the source of the rule's functions. A claim moved to "not testable
    here" is flagged: the not-testable set may only grow for data that do not exist here."""
    was, now = read_terms(registered), current or current_terms()
    found = []
    if was.parser != now.parser:
        found.append(f"story parser: registered {was.parser['name']} ({was.parser['sha256']}), now "
                     f"{now.parser['name']} ({now.parser['sha256']})")
    for c in was.tested:
        if c not in now.tested:
            found.append(f"{c}: registered as tested, now not testable here ({now.not_testable.get(c, 'no reason')}); "
                         "allowed only where the data do not exist here")
    found += [f"{c}: now tested, registered as not testable here ({why})" for c, why in was.not_testable.items()
              if c in now.tested]
    for c, old in was.claims.items():
        new = now.claims.get(c)
        if new is None:
            continue
        if old.min_n is not None and new.min_n != old.min_n:
            found.append(f"{c}: minimum sample {new.min_n} in the claim table, {old.min_n} registered")
        if new.estimator != old.estimator:
            found.append(f"{c}: estimator changed; registered: {old.estimator!r}; now: {new.estimator!r}")
        if new.verdict_rule != old.verdict_rule:
            found.append(f"{c}: verdict rule changed; registered: {old.verdict_rule!r}; now: {new.verdict_rule!r}")
        changed = sorted(n for n in old.rule_functions.keys() | new.rule_functions.keys()
                         if old.rule_functions.get(n) != new.rule_functions.get(n))
        if changed:
            found.append(f"{c}: the code of {', '.join(f'`{n}`' for n in changed)} changed since registration")
    return found
