"""The pilot's per-unit values of A4 (homogenization under interaction): what the pre-registration sizes the claim
from (`claims.sizing.Target.read`, declared with the claim in `writing.convergence`)."""

from __future__ import annotations

import pandas as pd

from .. import output_files as out
from ..claims.sizing import MeanPart, NotEstimable, Part, PilotFolder


def read_a4(pilot: PilotFolder) -> list[Part]:
    """A4: per prompt, Debate's and Discussion's convergence Delta on each measure (above 0), and each one's Delta
    minus Review's (Review converges less; Bonferroni over the four)."""
    from .convergence import HOMOGENIZATION_MEASURES, INTERACTIVE, convergence

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
