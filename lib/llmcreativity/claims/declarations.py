"""The claims each domain declares, gathered at import: a domain module registers the claims it computes, beside the
code that computes them (`register`), and reads its own claims' minimum samples here (`min_n`).

A claim is registered once its declaring module is imported; the pipeline imports every such module and reads the
complete table in page order (`pipeline.claim_table.CLAIMS`, the mapping `registered` returns). Registering an id
twice is refused, so each claim's words, figure and minimum stand in one declaration.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..context import kernel_context
from .registration import REGISTRATION_JSON, registered_min_n
from .spec import ClaimSpec

_SPECS: dict[str, ClaimSpec] = {}
"""Claim id -> its spec, in page order (`page_order`); the one mapping every reader shares."""
_LATER: dict[str, ClaimSpec] = {}
"""Claim id -> its spec, for the claims declared for a later registration (`ClaimSpec.later`), in page order: kept
out of `_SPECS`, so no reader of the recorded runs' claims (the page's counts and verdict tables, the registrations'
terms, the recorded texts) meets them."""
_MODULES: dict[str, str] = {}
"""Claim id -> the module that declared it."""


def page_order(claim_id: str) -> tuple[str, int]:
    """The sort key of the claims page: the paper's letter, then the claim's number ("B2" before "B10")."""
    letters = claim_id.rstrip("0123456789")
    digits = claim_id[len(letters):]
    return letters, int(digits) if digits else 0


def register(*specs: ClaimSpec, module: str) -> None:
    """Declare `specs` as computed by `module` (the caller's `__name__`); a spec declared for a later registration
    (`ClaimSpec.later`) goes to `later`, not to `registered`. An id already declared, by any module, or twice among
    `specs`, raises `ValueError` naming both declarations; nothing is registered then."""
    ids = [s.claim_id for s in specs]
    for claim_id in ids:
        if claim_id in _SPECS or claim_id in _LATER or ids.count(claim_id) > 1:
            first = _MODULES.get(claim_id, module)
            raise ValueError(f"claim {claim_id!r} is declared twice: by {first} and by {module}; "
                             "each claim has one declaration, beside the code that computes it")
    for table, mine in ((_SPECS, [s for s in specs if not s.later]), (_LATER, [s for s in specs if s.later])):
        merged = {**table, **{s.claim_id: s for s in mine}}
        table.clear()
        table.update(sorted(merged.items(), key=lambda item: page_order(item[0])))
    _MODULES.update({claim_id: module for claim_id in ids})


def registered() -> dict[str, ClaimSpec]:
    """Every claim registered so far, in page order: the live mapping itself (a test that replaces a spec in it
    replaces it for every reader). Complete only once every declaring module is imported
    (`pipeline.claim_table`)."""
    return _SPECS


def later() -> dict[str, ClaimSpec]:
    """Every claim declared for a later registration (`ClaimSpec.later`) so far, in page order: the live mapping,
    apart from `registered`'s."""
    return _LATER


def declaring_module(claim_id: str) -> str:
    """The module that declared `claim_id`; `KeyError` when none has (yet)."""
    return _MODULES[claim_id]


def declaration(claim_id: str) -> ClaimSpec:
    """The spec of a registered claim; a clear `KeyError` for one no imported module declared."""
    if claim_id not in _SPECS:
        raise KeyError(f"claim {claim_id!r} is not declared: import the module that declares it (every one: "
                       f"`pipeline.claim_table`); declared: {', '.join(_SPECS) or 'none'}")
    return _SPECS[claim_id]


def min_n(claim_id: str, registration: Path | None = None) -> int:
    """The minimum sample `claim_id` is decided at under `registration` (a registration folder; default: the one the
    runner put in the run's context, `context.registration`): the minimum that registration set where it sized the
    claim, else the declaration's `ClaimSpec.min_n` (the first registration's, which the declaration carries), as
    for a run under no registration. A domain asks only for the claims it declares, registered once its module is
    imported."""
    table = declaration(claim_id).min_n
    folder = kernel_context().registration if registration is None else registration
    if folder is None:
        return table
    file = folder / REGISTRATION_JSON
    if not file.exists():
        raise FileNotFoundError(f"the registration {folder} has no {REGISTRATION_JSON}: a run's verdicts are decided "
                                "under a committed registration; restore the folder from git, or run without it")
    return _registered_minimums(str(file), file.stat().st_mtime_ns).get(claim_id, table)


@lru_cache(maxsize=4)
def _registered_minimums(file: str, mtime_ns: int) -> dict[str, int]:
    """A registration's minimums, read once per version of its file (`mtime_ns` keys the cache): the ledger asks
    `min_n` several times a row."""
    return registered_min_n(Path(file))
