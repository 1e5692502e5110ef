"""Where the tests' fixed files lie, for a test module in any folder under tests/ (`from locations import TEST_DATA`).

The test modules sit in folders that mirror the package (tests/llm/, tests/pipeline/, ...); this module stays in
tests/, whose folder pytest puts on sys.path for tests/conftest.py, so these paths hold wherever a test moves.
"""

from __future__ import annotations

from pathlib import Path

TEST_DATA = Path(__file__).parent / "data"
"""tests/data/: the committed fixtures (the smoke record, the tiny stage notebooks, captured records)."""

REPO = Path(__file__).resolve().parents[1]
"""The repository these tests belong to (its notebooks/, scripts/ and lib/)."""
