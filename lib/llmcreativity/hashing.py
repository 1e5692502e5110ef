"""Content hashes of files, used for model verification, run manifests and provenance."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


def sha256_file(path: str | Path, block_size: int = 1 << 22) -> str:
    """Hex SHA-256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(block_size), b""):
            h.update(block)
    return h.hexdigest()


def remembered_sha256(path: str | Path, store: Path) -> str:
    """`sha256_file(path)`, read once and then remembered in the folder `store` while the file stays the same.

    The digest is kept in `store/<hash of the resolved path>.json` with the file's size, modification time and
    inode; a file replaced or rewritten (any of the three changed) is hashed again. The record is written to a
    temporary file and renamed into place, so a killed process or a concurrent one never leaves half a record.
    """
    path = Path(path).resolve()
    st = path.stat()
    stamp = {"path": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}
    record = store / f"{hashlib.sha256(str(path).encode()).hexdigest()[:32]}.json"
    try:
        known = json.loads(record.read_text())
        recorded = known.get("sha256")
        if {k: known.get(k) for k in stamp} == stamp and isinstance(recorded, str):
            return recorded
    except (OSError, ValueError):
        pass  # no record yet, or an unreadable one: hash again
    digest = sha256_file(path)
    store.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=store, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({**stamp, "sha256": digest}, f)
    os.replace(tmp, record)
    return digest
