"""A pilot's results folder and the reader of each testable claim's per-unit values in it, with the claim's `Target`
(`TARGETS`): what the pre-registration (`preregistration`) sizes every claim from.

The readers know each stage's output files and columns, so they sit above the domains; the parts they return and
the targets' type are the claims' sizing vocabulary (`claims.sizing`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import output_files as out
from ..claims.sizing import (
    SIGN,
    CorrelationPart,
    MeanPart,
    NotEstimable,
    PairedPart,
    Part,
    ProportionPart,
    RatioPart,
    Target,
    rule_default,
)
from ..data.hanna import N_STORIES
from ..output_files import OutputFile
from ..stats.sample_size import (
    design_effect,
    n_for_correlation,
    n_for_mean,
    n_for_paired_proportions,
    n_for_proportion,
    n_for_ratio,
)
from .manifest import MANIFEST_FILE, ManifestEntry, read_manifest_file
from .stages import writer_of

if TYPE_CHECKING:
    from ..data.hanna import HannaHuman
    from ..judges.validation import ValidationArms

SCIFI100_PROMPTS = 100
"""Prompts in SciFi-100: the most prompts a claim of the LLM Review paper (A1-A4) can use here."""

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
        ran = manifest_stages(self.results).get(stage.name)
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


def manifest_stages(results: Path) -> dict[str, ManifestEntry]:
    """Stage name -> its entry in the results folder's manifest (`executed/run.json`); empty without one."""
    return read_manifest_file(results / "executed" / MANIFEST_FILE).stages


def manifest_runs(results: Path) -> dict[str, dict[str, str]]:
    """Stage name -> the run id and status of its entry in the results folder's manifest, in name order."""
    stages = manifest_stages(results)
    return {name: {"run_id": e.run_id, "status": e.status} for name, e in sorted(stages.items())}


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
                      boundary=rule_default(efficiency_verdict, "min_saving")),
            PairedPart(f"accuracy difference, {ref} - {chateval}", *_correct(per_item, ref, chateval),
                       boundary=-rule_default(efficiency_verdict, "margin"))]


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

    bound = rule_default(weak_verdict, "bound")
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


