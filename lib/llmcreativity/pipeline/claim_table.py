"""The claim table: every claim of both papers, in page order (A1-A5, B1-B15), as the domains declare them.

Each claim is declared beside the code that decides it (`claims.declarations.register`) and registered when its module
is imported. This module imports every declaring module (`DECLARING_MODULES`), so that `CLAIMS` is complete: the
claims page (`ledger`), the pre-registration (`preregistration`), the recorded verdicts' texts (`claims`), the
excerpts and the book read the table here. A domain reads only its own claims (`claims.declarations.min_n`).
"""

from __future__ import annotations

from types import ModuleType

from ..claims.declarations import later, registered
from ..claims.spec import ClaimSpec
from ..entropy import diversity_agreement
from ..entropy import entropy_claims as entropy_claims
from ..evaluation import review_claims as evaluation_claims
from ..judges import divergent
from ..judges import labelled_claims as judges_claims
from ..writing import convergence

DECLARING_MODULES: tuple[ModuleType, ...] = (evaluation_claims, convergence, entropy_claims, diversity_agreement,
                                             judges_claims, divergent)
"""The modules that declare claims, each registering the claims it decides when imported (importing them here is
what completes `CLAIMS`)."""

CLAIMS: dict[str, ClaimSpec] = registered()
"""Claim id -> its spec, in page order: the registry's own mapping (`claims.declarations.registered`), complete."""

LATER: dict[str, ClaimSpec] = later()
"""Claim id -> its spec, for the claims declared for a later registration (`ClaimSpec.later`), in page order: shown on
the claims page in their own group (`ledger.later_markdown`), never in `CLAIMS`."""
