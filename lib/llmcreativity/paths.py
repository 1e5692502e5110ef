"""Where the project reads data and writes caches and results; each can be moved by an environment variable
(`context`: `LLMCREATIVITY_DATA`, `LLMCREATIVITY_PAPERS`, `LLMCREATIVITY_CACHE`, `LLMCREATIVITY_RESULTS`).

A run's profile (`default`, `paper`, `smoke`, ...) reaches the kernel through its context (`context.kernel_context`).
Scratch profiles (`SCRATCH_PROFILES`) write under their own folder, `results/<profile>/`, so that a
smoke run can never overwrite or be read as the real run's outputs; notebooks never need to know.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .context import kernel_context

if TYPE_CHECKING:
    import pandas as pd

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The project's root (the folder holding `lib/`)."""

PUBLISHED_RECORD = "published/run"
"""The record the book is built from, relative to the project root: `make book` replays it into `results/replay/`
first, and every chapter's re-analysis exercise runs one stage again against it (`llmcreativity run --replay
published/run --stage S -p NAME VALUE`; `tests/notebooks/test_notebook_shape.py` holds the exercises to this name)."""
PUBLISHED_REGISTRATION = "published/preregistration"
"""The published run's registration, relative to the project root: written by `llmcreativity preregister` from the
pilot and committed before the first recording sitting; the claims page gives its hash and deviations."""
DECISIVE_RECORD = "published/decisive"
"""The record of the claims' re-decision (profile `decisive`), recorded by `llmcreativity reproduce --profile
decisive` beside the published run's; `make book` replays it once it holds every stage, else the published run's."""
DECISIVE_REGISTRATION = "published/preregistration-2"
"""The second registration: sized from the `decisive-pilot` profile's results, committed before the re-decision's
first sitting, listing its deviations from the first (`pipeline.stages.DECISIVE_DEVIATIONS`)."""
RECORDS: dict[str, tuple[str, str]] = {"published": (PUBLISHED_RECORD, PUBLISHED_REGISTRATION),
                                       "decisive": (DECISIVE_RECORD, DECISIVE_REGISTRATION)}
"""Recorded profile -> (its record folder, its registration folder), relative to the project root."""


def registration_folder(profile: str) -> Path | None:
    """The registration a recorded profile's verdicts are decided under (`RECORDS`), None for any other profile (its
    claims are decided at their declarations' minimums). The runner hands it to each stage (`context.registration`).

    >>> registration_folder("decisive").relative_to(REPO_ROOT).as_posix(), registration_folder("smoke")
    ('published/preregistration-2', None)
    """
    return REPO_ROOT / RECORDS[profile][1] if profile in RECORDS else None

SCRATCH_PROFILES = frozenset({"smoke", "pilot", "decisive-pilot"})
"""Profiles whose numbers are not the book's evidence: their outputs live in `results/<profile>/` (smoke tests the code
path; pilot times the published run's choices on a few items and measures the gating judges, see
`pipeline.stages`)."""
UNRECORDED_PROFILES = frozenset({"smoke"})
"""Scratch profiles that record no claims and no judge agreement at all (smoke: its numbers mean nothing). The pilot
records both in its own folder, where the pre-registration reads them (`pipeline.preregistration`)."""


def data_dir() -> Path:
    """Public datasets: $LLMCREATIVITY_DATA, else `../shared/data` beside the project."""
    return kernel_context().data or REPO_ROOT.parent / "shared" / "data"


def papers_dir() -> Path:
    """The papers' summaries (`pipeline.excerpts.SUMMARIES`): $LLMCREATIVITY_PAPERS, else `../shared/papers` beside the
    project, next to the data folder's default."""
    return kernel_context().papers or REPO_ROOT.parent / "shared" / "papers"


def cache_dir() -> Path:
    """Materialized models and the call cache: $LLMCREATIVITY_CACHE, else ~/.cache/llmcreativity."""
    return kernel_context().cache or Path.home() / ".cache" / "llmcreativity"


def current_profile() -> str:
    """The profile this process runs under: $LLMCREATIVITY_PROFILE, else "interactive" (a notebook opened by hand)."""
    return kernel_context().profile or "interactive"


def records_claims(profile: str | None = None) -> bool:
    """True when `profile` (default: the current one) records claims and judge agreement (into `results_dir`)."""
    return (current_profile() if profile is None else profile) not in UNRECORDED_PROFILES


def is_scratch(profile: str | None = None) -> bool:
    """True for a profile whose numbers are no evidence (smoke): it writes apart and records no claims."""
    return (current_profile() if profile is None else profile) in SCRATCH_PROFILES


def results_root() -> Path:
    """The results folder of every profile: $LLMCREATIVITY_RESULTS, else `results/` in the project."""
    return kernel_context().results or REPO_ROOT / "results"


def results_dir(profile: str | None = None) -> Path:
    """Stage outputs and executed notebooks of `profile` (default: the current one).

    `results_root()` for real profiles; `results_root()/<profile>` for a scratch profile such as smoke.
    """
    profile = current_profile() if profile is None else profile
    return results_root() / profile if profile in SCRATCH_PROFILES else results_root()


def stage_dir(stage: str, profile: str | None = None) -> Path:
    """The folder holding `stage`'s output files under `profile` (created on first use)."""
    path = results_dir(profile) / stage
    path.mkdir(parents=True, exist_ok=True)
    return path


def require_file(path: str | Path, what: str, fix: str) -> Path:
    """Return `path` as a Path, or raise FileNotFoundError naming `what` and how to fix it."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{what} not found at {p}: {fix}")
    return p


def read_data_table(path: str | Path, what: str, fix: str, columns: Iterable[str], expected: str) -> pd.DataFrame:
    """The table in the data file `path` (an .xlsx sheet, read with openpyxl, or a CSV), checked for `columns`:
    a missing file raises FileNotFoundError naming `what` and `fix` (`require_file`), a missing column ValueError
    naming the file and `expected` (`require_columns`)."""
    import pandas as pd

    p = require_file(path, what, fix)
    df = pd.read_excel(p, engine="openpyxl") if p.suffix == ".xlsx" else pd.read_csv(p)
    require_columns(df, columns, p, expected)
    return df


def require_columns(df: pd.DataFrame, columns: Iterable[str], path: Path, expected: str) -> None:
    """Raise ValueError naming the file `path` and the `columns` its table `df` lacks (`expected`: what the file
    should be)."""
    missing = set(columns) - set(df.columns)
    if missing:
        raise ValueError(f"{path}: columns {sorted(missing)} are missing; expected {expected}")
