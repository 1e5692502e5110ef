"""A persistent cache of backend calls in SQLite (WAL mode).

Each answered call is one row committed on its own, so a run killed at any point (even
`kill -9`) restarts with every answered call intact and none duplicated. Each row carries a
SHA-256 of its payload; a row whose payload does not match is deleted and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    checksum TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now'))
)
"""


def cache_key(*parts: Any) -> str:
    """SHA-256 of the canonical JSON of `parts` (model identity, method, prompt, config, sample index)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _checksum(payload: str) -> str:
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """Key -> JSON payload store; safe for threads of one process and for several processes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self.corrupt_rows = 0
        """Rows found corrupted (and deleted) since this object was made."""
        with self._conn() as conn:
            conn.execute(SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> Any | None:
        """The stored value, or None on a miss or a corrupted row (which is deleted)."""
        row = self._conn().execute("SELECT payload, checksum FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        payload, checksum = row
        try:
            if _checksum(payload) != checksum:
                raise ValueError("checksum mismatch")
            return json.loads(payload)
        except ValueError:
            self.corrupt_rows += 1
            self._conn().execute("DELETE FROM calls WHERE key = ?", (key,))
            return None

    def put(self, key: str, value: Any) -> None:
        """Store `value` under `key` in one committed transaction."""
        payload = json.dumps(value, ensure_ascii=False)
        self._conn().execute(
            "INSERT OR REPLACE INTO calls (key, payload, checksum) VALUES (?, ?, ?)",
            (key, payload, _checksum(payload)),
        )

    def put_many(self, items: list[tuple[str, Any]]) -> None:
        """Store every (key, value) pair in one transaction (importing a record); all or none are stored."""
        rows = []
        for key, value in items:
            payload = json.dumps(value, ensure_ascii=False)
            rows.append((key, payload, _checksum(payload)))
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            conn.executemany("INSERT OR REPLACE INTO calls (key, payload, checksum) VALUES (?, ?, ?)", rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def __len__(self) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None
