"""Where the project reads data and writes caches and results; each can be moved by an environment variable."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The project's root (the folder holding `lib/`)."""


def data_dir() -> Path:
    """Public datasets: $LLMCREATIVITY_DATA, else `../shared/data` beside the project."""
    return Path(os.environ.get("LLMCREATIVITY_DATA", REPO_ROOT.parent / "shared" / "data"))


def cache_dir() -> Path:
    """Materialized models and the call cache: $LLMCREATIVITY_CACHE, else ~/.cache/llmcreativity."""
    return Path(os.environ.get("LLMCREATIVITY_CACHE", Path.home() / ".cache" / "llmcreativity"))


def results_dir() -> Path:
    """Stage outputs and executed notebooks: $LLMCREATIVITY_RESULTS, else `results/` in the project."""
    return Path(os.environ.get("LLMCREATIVITY_RESULTS", REPO_ROOT / "results"))


def require_file(path: str | Path, what: str, fix: str) -> Path:
    """Return `path` as a Path, or raise FileNotFoundError naming `what` and how to fix it."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{what} not found at {p}: {fix}")
    return p
