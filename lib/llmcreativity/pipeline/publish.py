"""The publish check: a book is built only from stages that all ran to the end on their current source."""

from __future__ import annotations

from ..hashing import sha256_file
from ..paths import REPO_ROOT
from .manifest import executed_notebook, read_manifest
from .order import ordered_stages
from .stages import Stage


def unexecuted_stages(stages: list[Stage] | None = None, profile: str = "default") -> list[str]:
    """Reasons the executed notebooks of `profile` cannot be published as a complete book (empty when they can)."""
    manifest = read_manifest(profile).stages
    reasons = []
    for s in ordered_stages(stages):
        entry = manifest.get(s.name)
        fix = f"run `llmcreativity run --stage {s.name}{'' if profile == 'default' else ' --profile ' + profile}`"
        if entry is not None and entry.status != "ok":
            reasons.append(f"stage {s.name!r} is {entry.status} ({entry.error}); fix it and {fix}")
        elif entry is None or not executed_notebook(s, profile).exists():
            reasons.append(f"stage {s.name!r} has not been executed; {fix}")
        elif entry.source_sha256 != sha256_file(REPO_ROOT / s.notebook):
            reasons.append(f"stage {s.name!r}: {s.notebook} changed after it was executed; {fix}")
    return reasons
