"""A committed registration's terms as the code reads them back: each claim's minimum sample, estimator and verdict
rule, the story parser and the claims tested (`pipeline.preregistration` writes the registration and checks its
deviations; `registry.min_n` reads a registered minimum from here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

REGISTRATION_JSON = "preregistration.json"
"""The registration's file in its folder (`published/preregistration`, `published/preregistration-2`)."""


@dataclass(frozen=True)
class ClaimTerms:
    """What a claim is decided under: its minimum sample, estimator and verdict rule."""

    min_n: int | None
    """The minimum sample (the registered one, or the claim table's now); None when the registration set none."""
    estimator: str
    """The claim table's estimator text."""
    verdict_rule: str
    """The clauses of the estimator text that state the rule."""
    rule_functions: dict[str, str]
    """The functions the estimator names -> the first 16 hex digits of the SHA-256 of their source."""


@dataclass(frozen=True)
class Terms:
    """Everything a deviation is measured against."""

    claims: dict[str, ClaimTerms]
    """Tested claim id -> its terms."""
    parser: dict[str, str]
    """The story parser: `name` and `sha256` of its module's source."""
    tested: tuple[str, ...]
    """The claims this project tests."""
    not_testable: dict[str, str]
    """Claim id -> why it is not testable here."""


def read_terms(registered: Path) -> Terms:
    """The terms a committed registration fixed (`registered`: its JSON file or folder)."""
    file = registered / REGISTRATION_JSON if registered.is_dir() else registered
    data = json.loads(file.read_text(encoding="utf-8"))
    claims = {c["claim_id"]: ClaimTerms(**c["terms"]) for c in data["claims"]}
    return Terms(claims, dict(data["parser"]), tuple(data["tested"]), dict(data["not_testable"]))


def registered_min_n(registered: Path) -> dict[str, int]:
    """Claim id -> the minimum sample a committed registration set (claims it did not size are left out)."""
    return {c: t.min_n for c, t in read_terms(registered).claims.items() if t.min_n is not None}
