"""SciFi-100: the LLM Review paper's science-fiction writing prompts.

The file is a JSON object mapping each of 10 writing categories to a list of prompts.
A prompt's id is the category's slug plus its index in the list (``strong-voice-03``),
so ids stay stable across runs and across files built in the same format.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..paths import data_dir, require_file

SCIFI100_RELATIVE = Path("scifi100") / "scientific_writing.json"
"""Where the paper's file lies under the data folder."""
SCIFI100_PROMPTS = 100
"""Prompts in SciFi-100: the most prompts a claim of the LLM Review paper (A1-A4) can use here."""


@dataclass(frozen=True)
class PromptItem:
    """One writing prompt."""

    prompt_id: str
    """Stable id: ``<category slug>-<index, two digits>``."""
    category: str
    """The writing dimension the prompt exercises (a key of the dataset file)."""
    index: int
    """Position of the prompt in its category's list, from 0."""
    text: str
    """The prompt shown to writers."""


def category_slug(category: str) -> str:
    """Lower-case ASCII slug of a category name: "Show, Don’t Tell" -> "show-don-t-tell"."""
    slug = re.sub(r"[^a-z0-9]+", "-", category.lower()).strip("-")
    if not slug:
        raise ValueError(f"category {category!r} has no letters or digits to build a prompt id from")
    return slug


def default_scifi100_path() -> Path:
    """The paper's SciFi-100 file under `llmcreativity.paths.data_dir()`."""
    return data_dir() / SCIFI100_RELATIVE


def validate_dataset(data: object, source: str) -> dict[str, list[str]]:
    """Check that `data` is a non-empty object of category -> non-empty list of non-empty strings."""
    fix = "the file must be a JSON object mapping each category name to a list of prompt strings"
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{source}: expected a non-empty JSON object; {fix}")
    slugs: dict[str, str] = {}
    for category, prompts in data.items():
        if not isinstance(prompts, list) or not prompts:
            raise ValueError(f"{source}: category {category!r} holds {type(prompts).__name__}, not a non-empty list; "
                             f"{fix}")
        bad = [i for i, p in enumerate(prompts) if not isinstance(p, str) or not p.strip()]
        if bad:
            raise ValueError(f"{source}: category {category!r} has empty or non-string prompts at {bad}; {fix}")
        slug = category_slug(category)
        if slug in slugs:
            raise ValueError(f"{source}: categories {slugs[slug]!r} and {category!r} give the same id {slug!r}; rename "
                             "one")
        slugs[slug] = category
    return data


def load_scifi(path: str | Path | None = None) -> list[PromptItem]:
    """All prompts of a SciFi-100-format file (default: the paper's), in file order."""
    p = require_file(path or default_scifi100_path(), "SciFi-100 dataset file",
                     "pass the path of a JSON file in the SciFi-100 format, or set LLMCREATIVITY_DATA")
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{p}: not valid JSON ({e}); pass a SciFi-100-format JSON file") from e
    data = validate_dataset(raw, str(p))
    return [
        PromptItem(f"{category_slug(c)}-{i:02d}", c, i, text.strip())
        for c, prompts in data.items()
        for i, text in enumerate(prompts)
    ]


def select_prompts(items: list[PromptItem], *, n_categories: int | None = None,
                   per_category: int | None = None, skip: int = 0) -> list[PromptItem]:
    """The `per_category` prompts of each of the first `n_categories` categories (None = all) that follow the first
    `skip` of each category, in file order; `skip` = 0 (the default) takes the first ones.

    A pilot that must not reuse the published run's prompts (its first `per_category` of each category) passes
    `skip=per_category` of that run.
    """
    for name, value in (("n_categories", n_categories), ("per_category", per_category)):
        if value is not None and value < 1:
            raise ValueError(f"{name}={value!r}: must be >= 1, or None for all")
    if not isinstance(skip, int) or skip < 0:
        raise ValueError(f"skip={skip!r}: the prompts passed over in each category must be an integer >= 0")
    categories = list(dict.fromkeys(it.category for it in items))[:n_categories]
    return [it for it in items if it.category in categories and it.index >= skip
            and (per_category is None or it.index < skip + per_category)]


def save_scifi(data: dict[str, list[str]], path: str | Path) -> Path:
    """Write `data` (category -> prompts) as a SciFi-100-format JSON file; returns the path."""
    validate_dataset(data, "dataset to save")
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return p
