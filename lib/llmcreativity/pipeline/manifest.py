"""The run manifest `results_dir(profile)/executed/run.json`: one entry per stage, updated under a file lock.

Each entry holds the stage's status (`running`, `ok`, `failed`), profile, parameters, the SHA-256
of its notebook source, its time, the output files it wrote with their hashes, and what it did: its
models' usage per identity (`usage`, from its kernel's usage file) and its items (`items`, `items_unit`;
see `run_report`). The executed notebooks lie beside it, `executed/<stage>.ipynb`.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from ..paths import results_dir
from .stages import Stage


def executed_dir(profile: str = "default") -> Path:
    """Where the executed notebooks and the run manifest of `profile` live."""
    return results_dir(profile) / "executed"


def executed_notebook(stage: Stage, profile: str = "default") -> Path:
    """Path of a stage's executed notebook under `profile`."""
    return executed_dir(profile) / f"{stage.name}.ipynb"


def manifest_path(profile: str = "default") -> Path:
    """The run manifest of `profile`."""
    return executed_dir(profile) / "run.json"


def read_manifest(profile: str = "default") -> dict[str, Any]:
    """The run manifest of `profile`, or an empty one when nothing has run."""
    path = manifest_path(profile)
    return json.loads(path.read_text()) if path.exists() else {"stages": {}}


def update_manifest(stage: str, entry: dict[str, Any], profile: str = "default") -> None:
    """Set one stage's entry, re-reading the manifest under a file lock so concurrent runs keep each other's entries."""
    path = manifest_path(profile)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = read_manifest(profile)
        manifest["stages"][stage] = entry
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True, default=str))
        os.replace(tmp, path)
