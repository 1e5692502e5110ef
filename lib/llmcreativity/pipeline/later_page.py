"""The claims page's group of claims declared for a later registration (`ClaimSpec.later`, `claim_table.LATER`).

Statements of the papers that this project could test but no stage of the recorded runs decides: no registration
sized them before those runs' sittings. They stand on the page in a group of their own, after every verdict: no
verdict table, forest plot, finding or count of the page (`ledger.sample_summary`) holds them, and no registration's
terms do (`preregistration.current_terms` reads `CLAIMS` alone).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..claims.spec import ClaimSpec
from .claim_table import LATER
from .excerpts import figure_source

LATER_HEADING = "## Claims for a later registration"
"""The heading of the group."""


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def later_markdown(specs: Mapping[str, ClaimSpec] = LATER) -> str:
    """The group: a sentence on what it is, then each claim in full (the paper's figure and where it was checked, the
    estimator a later registration would state, why it waits), in no table: the page's tables are its verdicts'; ""
    when no claim is declared for a later registration."""
    if not specs:
        return ""
    out = [LATER_HEADING, "",
           "Statements of the papers that this project could test, declared here and decided by no stage of the "
           "recorded runs: no registration sized them before those runs' sittings, so deciding them on their data "
           "now would choose a test after seeing its data. They have no verdict and are counted nowhere above; each "
           "waits for a registration stated before a later run's sittings."]
    for c, s in specs.items():
        items = [f"The paper: {s.paper_figure}."]
        if checked := figure_source(c):
            items.append(f"The paper's words: {checked}.")
        if s.estimator:
            items.append(f"Estimator a later registration would state: {s.estimator}.")
        items.append(f"Why it waits: {s.later}.")
        out += ["", f"**{c}** ({s.paper}, for a later registration). {s.claim}", "",
                *(f"- {_cell(x)}" for x in items)]
    return "\n".join(out)
