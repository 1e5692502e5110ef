"""MacGyver creative problem solving (allenai/MacGyver, Apache-2.0): solutions with human correctness labels.

Expected files under `data_dir()/macgyver/` (from the repository's `data/` folder):
`problem_solution_pair.xlsx` (columns ID, Problem, ...) and `benchmark_results.json`
(a JSON object: problem id -> list of {"model", "annotation", "solution"}).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..paths import data_dir, read_data_table, require_file

VALID_PREFIX = "correct_"
"""A human annotation starting with this marks a valid solution (correct_efficient, correct_inefficient,
correct_unsolvable)."""

SOURCE = "https://github.com/allenai/MacGyver (data/problem_solution_pair.xlsx, data/benchmark_results.json)"
"""Where the files come from, for users who need to fetch them."""


def macgyver_dir(path: str | Path | None = None) -> Path:
    """The MacGyver folder: `path`, else `data_dir()/macgyver`."""
    return Path(path) if path is not None else data_dir() / "macgyver"


def load_problems(path: str | Path | None = None) -> pd.DataFrame:
    """The 1,683 problems: columns problem_id (int), problem (text), solvable, unconventional, reference_solution,
    reference_label."""
    folder = macgyver_dir(path)
    xlsx = require_file(folder / "problem_solution_pair.xlsx", "MacGyver problems",
                        f"download it from {SOURCE} or set LLMCREATIVITY_DATA")
    df = pd.read_excel(xlsx)
    return df.rename(columns={
        "ID": "problem_id", "Problem": "problem", "Solvable?": "solvable", "Unconventional?": "unconventional",
        "Solution": "reference_solution", "Label": "reference_label",
    })


def solvable_problems(path: str | Path | None = None, *, limit: int | None = None) -> pd.DataFrame:
    """The solvable problems (rows with `Solvable? == Yes`) in file order, the first `limit` of them: the rows of
    `problem_solution_pair.xlsx` (columns ID, Problem, Solvable?, ...), read with openpyxl from the file `path`
    (default: `data_dir()/macgyver/problem_solution_pair.xlsx`). Semantic entropy draws its problems from these
    (`entropy.domains.macgyver_problems`), and the judge laboratory holds them out (`judgelab.solutions`)."""
    df = read_data_table(
        path or data_dir() / "macgyver" / "problem_solution_pair.xlsx",
        "MacGyver problem file",
        "download data/problem_solution_pair.xlsx from github.com/allenai/MacGyver or set LLMCREATIVITY_DATA",
        ("ID", "Problem", "Solvable?"), "the MacGyver problem_solution_pair.xlsx",
    )
    df = df[df["Solvable?"].astype(str).str.strip() == "Yes"]
    return df.head(limit) if limit is not None else df


def load_benchmark(path: str | Path | None = None, *, valid_prefix: str = VALID_PREFIX) -> pd.DataFrame:
    """Every labelled solution of benchmark_results.json joined with its problem text.

    Columns: item_id ("<problem_id>:<position>"), problem_id, problem, solution, source (human
    "Prolific" or the generating model), annotation (the human label), valid (annotation starts
    with `valid_prefix`). Solutions without an annotation (one in the public file) are dropped.
    """
    folder = macgyver_dir(path)
    js = require_file(folder / "benchmark_results.json", "MacGyver benchmark results",
                      f"download it from {SOURCE} or set LLMCREATIVITY_DATA")
    raw = json.loads(js.read_text(encoding="utf-8"))
    rows = [
        {"item_id": f"{pid}:{pos}", "problem_id": int(pid), "solution": s["solution"].replace("<br>", "").strip(),
         "source": s["model"], "annotation": s["annotation"]}
        for pid, sols in raw.items() for pos, s in enumerate(sols) if s.get("annotation")
    ]
    df = pd.DataFrame(rows)
    problems = load_problems(folder)[["problem_id", "problem"]]
    df = df.merge(problems, on="problem_id", how="left", validate="many_to_one")
    missing = df["problem"].isna().sum()
    if missing:
        raise ValueError(f"{missing} benchmark solutions name a problem id absent from problem_solution_pair.xlsx: the "
                         "two files do not match")
    df["valid"] = df["annotation"].str.startswith(valid_prefix)
    return df[["item_id", "problem_id", "problem", "solution", "source", "annotation", "valid"]]


def stratified_sample(df: pd.DataFrame, n: int, *, by: str = "valid", seed: int = 0,
                      one_per_problem: bool = True) -> pd.DataFrame:
    """`n` rows with the classes of column `by` as equal as the data allow (remainder to the first classes).

    With `one_per_problem`, no two rows share a problem_id (so the sample spans n problems).
    """
    if by not in df.columns:
        raise ValueError(f"by={by!r} is not a column; columns are {list(df.columns)}")
    if n < 1 or n > len(df):
        raise ValueError(f"n={n}: choose 1 <= n <= {len(df)} rows")
    pool = df.sample(frac=1.0, random_state=seed)
    if one_per_problem and "problem_id" in pool.columns:
        pool = pool.drop_duplicates(subset=[by, "problem_id"])
    classes = sorted(pool[by].unique(), key=str)
    quota = {c: n // len(classes) + (i < n % len(classes)) for i, c in enumerate(classes)}
    picked, used = [], set()
    for _, row in pool.iterrows():
        c = row[by]
        if quota[c] > 0 and not (one_per_problem and row.get("problem_id") in used):
            picked.append(row)
            quota[c] -= 1
            used.add(row.get("problem_id"))
    if len(picked) < n:
        raise ValueError(f"could only draw {len(picked)} of n={n} rows stratified by {by!r}: lower n or set "
                         "one_per_problem=False")
    return pd.DataFrame(picked).reset_index(drop=True)
