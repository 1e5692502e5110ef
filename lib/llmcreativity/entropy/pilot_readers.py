"""The pilot's per-unit values of the semantic-entropy claims (B1-B4, B7): what the pre-registration sizes each claim
from (`claims.sizing.Target.read`, declared with the claims in `entropy.entropy_claims` and
`entropy.diversity_agreement`)."""

from __future__ import annotations

import pandas as pd

from .. import output_files as out
from ..claims.sizing import CorrelationPart, DifferencePart, NotEstimable, Part, PilotFolder
from ..output_files import OutputFile


def _se_part(pilot: PilotFolder, output: OutputFile, x: str, label: str) -> list[Part]:
    """rho(x, probability-weighted SE) over the rows of a semantic-entropy table, problems resampled."""
    from .entropy_claims import PRIMARY

    table = pd.read_parquet(pilot.path(output))
    if x not in table.columns:
        raise NotEstimable(f"the {output.path} table has no column {x!r}")
    return [CorrelationPart(label, table[x].to_numpy(float), table[PRIMARY].to_numpy(float),
                            table["problem_id"].astype(str).to_numpy())]

def read_b1(pilot: PilotFolder) -> list[Part]:
    """B1: per chain, (temperature, SE), problems whole."""
    return _se_part(pilot, out.CHAIN_TABLE, "temperature", "rho(temperature, SE) over chains")

def read_b2(pilot: PilotFolder) -> list[Part]:
    """B2: per chain, (model parameters, SE), problems whole."""
    return _se_part(pilot, out.CHAIN_TABLE, "params_m", "rho(parameters, SE) over chains")

def read_b3(pilot: PilotFolder) -> list[Part]:
    """B3: per step, (clusters, SE), problems whole."""
    return _se_part(pilot, out.STEPS, "n_clusters", "rho(clusters, SE) over steps")

def read_b4(pilot: PilotFolder) -> list[Part]:
    """B4: per step, (mean pairwise cosine, SE), problems whole."""
    return _se_part(pilot, out.STEPS, "mean_cosine", "rho(mean cosine, SE) over steps")

def read_b7(pilot: PilotFolder) -> list[Part]:
    """B7: per disjoint set of ideas, SE's and each baseline's diversity against the coders' bucket entropy: one
    part per baseline, rho(SE, human) - rho(baseline, human) over the same sets, z Bonferroni over the baselines
    (the verdict's Holm family)."""
    from .diversity_agreement import BASELINES, REFERENCE, rank_agreement

    table = pd.read_parquet(pilot.path(out.B7_SETS))
    human = table["human"].to_numpy(float)
    return [DifferencePart(f"rho(SE, human) - rho({b}, human) over sets", (table[REFERENCE].to_numpy(float), human),
                           (table[b].to_numpy(float), human), rank_agreement, tests=len(BASELINES))
            for b in BASELINES]
