"""The pilot's per-unit values of the convergent judges' claims (B5, B9, B10) and of the claims that set semantic
entropy beside a judge (B6, B8, B11): what the pre-registration sizes each claim from (`claims.sizing.Target.read`,
declared with the claims in `judges.labelled_claims` and `judges.divergent`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import output_files as out
from ..claims.sizing import (
    CorrelationPart,
    NotEstimable,
    PairedPart,
    Part,
    PilotFolder,
    ProportionPart,
    RatioPart,
    rule_default,
)
from .validation import ValidationArms, validation_arms


def _arms(pilot: PilotFolder) -> list[ValidationArms]:
    """The judges the pilot's judge-validation stage ran, as settings (`validation_arms`): those of the parameters it
    ran with, else of each of its profiles (each a candidate, chosen by the names of the runs present)."""
    return [validation_arms(params) for params in pilot.ran_parameters(out.JUDGE_RUNS)]


def _judgements(pilot: PilotFolder) -> pd.DataFrame:
    """One row per (judge, labelled item) of the pilot's judge runs (`judges.judgement_table`), chain runs left
    out."""
    from .judging_run import read_judgements
    from .performance import judgement_table

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

def read_b5(pilot: PilotFolder) -> list[Part]:
    """B5: per item, the retrieval judge's and ChatEval's tokens (the saving) and correctness (the accuracy
    margin)."""
    from ..claims.verdicts import efficiency_verdict

    per_item, arms = _judgements(pilot), _arms(pilot)
    judges = set(per_item["judge"])
    ref, chateval = _reference(judges, arms), _ran(judges, arms, "chateval")
    return [RatioPart(f"token saving, {ref} vs {chateval}", *_tokens(per_item, ref, chateval),
                      boundary=rule_default(efficiency_verdict, "min_saving")),
            PairedPart(f"accuracy difference, {ref} - {chateval}", *_correct(per_item, ref, chateval),
                       boundary=-rule_default(efficiency_verdict, "margin"))]

def read_b9(pilot: PilotFolder) -> list[Part]:
    """B9: per item, the retrieval judge's correctness minus ChatEval's, one-shot's and CoT's (Bonferroni over the
    three), and its accuracy against the paper's least accurate annotator."""
    from .labelled_claims import PAPER_HUMAN_ACCURACY

    per_item, arms = _judgements(pilot), _arms(pilot)
    judges = set(per_item["judge"])
    ref = _reference(judges, arms)
    baselines = [_ran(judges, arms, kind) for kind in ("chateval", "single", "cot")]
    parts: list[Part] = [PairedPart(f"accuracy, {ref} - {b}", *_correct(per_item, ref, b), tests=len(baselines))
                         for b in baselines]
    mine = per_item.loc[per_item["judge"] == ref, "correct"].to_numpy(bool)
    return [*parts, ProportionPart(f"accuracy of {ref}", mine, PAPER_HUMAN_ACCURACY[0])]

def read_b10(pilot: PilotFolder) -> list[Part]:
    """B10: per item, the retrieval judge's correctness with the stronger model minus with the weaker one."""
    per_item, arms = _judgements(pilot), _arms(pilot)
    judges = set(per_item["judge"])
    ref = _reference(judges, arms)
    weak = sorted({a.weak_name for a in arms if a.weak_name and a.reference.name == ref} & judges)
    if not weak:
        raise NotEstimable("the pilot ran the retrieval judge with no weaker base model (weak_convergent_judge)")
    return [PairedPart(f"accuracy, {ref} - {weak[0]}", *_correct(per_item, ref, weak[0]))]

def _judged_chains(pilot: PilotFolder) -> dict[str, pd.DataFrame]:
    """Domain -> the semantic-entropy chains with the convergent judge's p_valid (`judges.divergent.judged_chains`),
    from the paper's judge's chain run where there is one."""
    from .divergent import PAPER_SCORER, judged_chains
    from .judging_run import read_judgements

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
    from ..claims.verdicts import barely_varies

    why = "; ".join(f"{c} barely varies: {w}" for c in flat if (w := barely_varies(chains[c])))
    return CorrelationPart(label, chains[x].to_numpy(float), chains[y].to_numpy(float),
                           chains["problem_id"].astype(str).to_numpy(), boundaries, flat=why)

def read_b6(pilot: PilotFolder) -> list[Part]:
    """B6: per chain of each domain, (SE, p_valid), problems whole; the rule's bounds are `weak_verdict`'s."""
    from ..claims.verdicts import weak_verdict
    from ..entropy.entropy_claims import PRIMARY

    bound = rule_default(weak_verdict, "bound")
    return [_chain_part(f"{domain}: rho(SE, p_valid)", c, PRIMARY, "p_valid", (-bound, bound), (PRIMARY, "p_valid"))
            for domain, c in _judged_chains(pilot).items()]

def read_b11(pilot: PilotFolder) -> list[Part]:
    """B11: per chain of each domain, (parameters, p_valid) and (parameters, SE), problems whole."""
    from ..entropy.entropy_claims import PRIMARY

    return [_chain_part(f"{domain}: rho(parameters, {y})", c, "params_m", y, (0.0,), (y,))
            for domain, c in _judged_chains(pilot).items() for y in ("p_valid", PRIMARY)]

def read_b8(pilot: PilotFolder) -> list[Part]:
    """B8: per chain, (solution-level SE, the novelty judge's rating), problems whole."""
    from ..entropy.entropy_claims import PRIMARY

    chains = pd.read_parquet(pilot.path(out.NOVELTY))
    return [_chain_part("rho(solution SE, novelty)", chains, PRIMARY, "novelty", (0.0,), ())]
