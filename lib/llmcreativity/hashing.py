"""Content hashes of files, used for model verification, run manifests and provenance."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_file(path: str | Path, block_size: int = 1 << 22) -> str:
    """Hex SHA-256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(block_size), b""):
            h.update(block)
    return h.hexdigest()
