"""Problems for the step-wise protocol and the prompt each domain uses to ask for the next step.

* MacGyver (Tian et al. 2024): everyday physical problems with a list of available items; the
  solvable ones (`Solvable? == Yes`) are the default domain. Each step is one action.
* SciFi-100 (LLM Review): science-fiction writing prompts; each step is the story's next sentence.
* hypogen-astro (UniverseTBD `hypogen`, MIT): astrophysics research problems extracted from paper
  abstracts, a stand-in for the HypoGen hypothesis dataset (which lives only on the Hugging Face hub);
  each step is one step of a proposed approach.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..data.macgyver import solvable_problems
from ..paths import data_dir, read_data_table, require_file


@dataclass(frozen=True)
class Problem:
    """One task to solve step by step."""

    id: str
    """Stable id, e.g. "macgyver-541" or "scifi100-strong-voice-0"."""
    domain: Literal["macgyver", "scifi100", "hypogen-astro"]
    """The benchmark it comes from."""
    text: str
    """The problem statement or writing prompt."""


@dataclass(frozen=True)
class StepPrompt:
    """How a domain asks a (base or instruct) model for the next step, as a plain-text prompt."""

    instructions: str
    """Preamble with a `{problem}` slot; it must tell the model to write the stop word when done."""
    step_label: str
    """Label that opens every step, with a `{k}` slot for its 1-based number, e.g. "Step {k}:"."""
    stop_word: str = "STOP"
    """Word a candidate starts with to say the solution is complete (matched case-sensitively)."""

    def render(self, problem: str, steps: Sequence[str]) -> str:
        """The prompt: instructions, the steps chosen so far, then the label of the next step."""
        done = "".join(f"{self.step_label.format(k=k)} {s}\n" for k, s in enumerate(steps, start=1))
        return f"{self.instructions.format(problem=problem.strip())}{done}{self.step_label.format(k=len(steps) + 1)}"

    def is_stop(self, candidate: str) -> bool:
        """True when the candidate's first word is the stop word (e.g. "STOP", "STOP.")."""
        return re.match(rf"\W*{re.escape(self.stop_word)}\b", candidate) is not None


MACGYVER_PROMPT = StepPrompt(
    instructions=(
        "Solve the problem below with the items it lists. Write one short, concrete step per line. "
        "When the problem is solved, write STOP as the next step.\n\n"
        "Problem: {problem}\n\nSolution:\n"
    ),
    step_label="Step {k}:",
)
"""Default prompt for MacGyver problems."""

SCIFI_PROMPT = StepPrompt(
    instructions=(
        "Write a short science-fiction story for the prompt below, one sentence per line. "
        "When the story is finished, write STOP as the next sentence.\n\n"
        "Prompt: {problem}\n\nStory:\n"
    ),
    step_label="Sentence {k}:",
)
"""Default prompt for SciFi-100 story continuation."""

HYPOGEN_PROMPT = StepPrompt(
    instructions=(
        "Propose a research approach to the astrophysics problem below: a hypothesis and how to test it, "
        "one short, concrete step per line. When the approach is complete, write STOP as the next step.\n\n"
        "Problem: {problem}\n\nApproach:\n"
    ),
    step_label="Step {k}:",
)
"""Default prompt for hypogen-astro research problems."""

NOT_APPLICABLE = "not applicable"
"""The placeholder of hypogen-astro rows with no extracted problem (compared case-insensitively)."""


def macgyver_problems(path: str | Path | None = None, *, limit: int | None = None) -> list[Problem]:
    """The solvable MacGyver problems (rows with `Solvable? == Yes`), in file order (`data.macgyver.solvable_problems`
    of the file `path`)."""
    rows = solvable_problems(path, limit=limit)
    return [Problem(f"macgyver-{pid}", "macgyver", problem.strip())
            for pid, problem in zip(rows["ID"].astype(int), rows["Problem"].astype(str), strict=True)]


def scifi_problems(path: str | Path | None = None, *, limit: int | None = None) -> list[Problem]:
    """SciFi-100 prompts, taking categories in turn (first prompt of each category, then the second, ...)."""
    p = require_file(
        path or data_dir() / "scifi100" / "scientific_writing.json",
        "SciFi-100 prompt file",
        "download datasets/SciFi/scientific_writing.json from github.com/weiyueli7/llm-review "
        "or set LLMCREATIVITY_DATA",
    )
    data = json.loads(Path(p).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError(f"{p}: expected a JSON object mapping each category to a list of prompts")
    slug = {c: re.sub(r"[^a-z0-9]+", "-", c.lower()).strip("-") for c in data}
    out = [
        Problem(f"scifi100-{slug[c]}-{i}", "scifi100", str(prompts[i]).strip())
        for i in range(max(len(v) for v in data.values()))
        for c, prompts in data.items()
        if i < len(prompts)
    ]
    return out[:limit] if limit is not None else out


def hypogen_astro_problems(path: str | Path | None = None, *, limit: int | None = None) -> list[Problem]:
    """The usable hypogen-astro research problems, in file order, with id "hypogen-astro-<data row, from 1>".

    Reads `extracted_hypotheses.csv` (columns Problem, Solution); rows whose Problem is empty or
    "Not applicable" are skipped (90 of the 91 rows are usable).
    """
    df = read_data_table(
        path or data_dir() / "hypogen-astro" / "extracted_hypotheses.csv",
        "hypogen-astro problem file",
        "copy data/processed/extracted_hypotheses.csv of github.com/UniverseTBD/hypogen to "
        "<data>/hypogen-astro/ or set LLMCREATIVITY_DATA",
        ("Problem", "Solution"), "hypogen's extracted_hypotheses.csv",
    )
    text = df["Problem"].fillna("").astype(str).str.strip()
    usable = [(i, t) for i, t in enumerate(text, start=1) if t and t.lower() != NOT_APPLICABLE]
    rows = usable[:limit] if limit is not None else usable
    return [Problem(f"hypogen-astro-{i}", "hypogen-astro", t) for i, t in rows]
