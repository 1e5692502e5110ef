"""The committed choice of a judging job's judge, and the check that it was committed before the test split is
scored.

The development comparison ends in a choice: the protocol, its features, its fitted head and the threshold that
turns a score into a yes/no or a cluster. It is written to `published/judges/<job>.choice.json` (`choice_path`) and
committed. Scoring the test split (`committed_choice`) then refuses to run unless

- the choice file is tracked by git and unchanged since its last commit, and
- the code and the choices that decide a score (`GUARDED_PATHS`) have no uncommitted changes,

and the validity record it feeds carries the choice file's commit and SHA-256. So a test figure can only come from
a choice that was fixed, in the history, before it was computed.

A replay scores nothing new: its test split's scores are the record's calls. It reads no git state
(`recorded_choice`): the choice's commit is the one the record's validity row names, once the choice file's SHA-256
is checked against the recorded one. So an edited chapter, a shallow clone or a copy without `.git` replays the book.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dataclass_json import from_json, to_json
from ..hashing import sha256_file
from ..output_files import LAB_CHOICE
from ..paths import REPO_ROOT

CHOICE_DIR = Path("published") / "judges"
"""Where the committed choices, splits and fitted heads live, relative to the repository root."""

GUARDED_PATHS: tuple[str, ...] = ("lib", "notebooks", str(CHOICE_DIR))
"""The paths that must have no uncommitted change when a test split is scored: the code, the notebooks and the
committed choices (other files, e.g. the README, do not change a score)."""


class UncommittedChoice(RuntimeError):
    """The test split was asked to be scored before its choice (or the code that scores it) was committed."""


@dataclass(frozen=True)
class Choice:
    """One job's chosen judge, fixed on development before its test split is scored."""

    job: str
    """The judging job (`jobs.JOBS`)."""
    protocol: str
    """The chosen protocol's name, as in the development comparison."""
    rule: str
    """How it was chosen, in words (e.g. "highest development AUC out of fold")."""
    split_sha256: str
    """SHA-256 of the split it was chosen on (`splits.Split.sha256`)."""
    heads: dict[str, str] = field(default_factory=dict)
    """Role -> file name beside the choice of each fitted head the judge and its baseline score with (a panel's
    members, "baseline"); empty for a protocol without one."""
    head_sha256: dict[str, str] = field(default_factory=dict)
    """Role -> SHA-256 of that head's file, checked when the test split is scored."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The protocol's settings: embedders, threshold, clustering method, ..."""
    development: dict[str, Any] = field(default_factory=dict)
    """What the choice saw: the chosen protocol's development figure and n."""


@dataclass(frozen=True)
class CommittedChoice:
    """A choice read back from git, with where it was committed."""

    choice: Choice
    """The choice."""
    commit: str
    """The last commit that changed the choice file."""
    sha256: str
    """SHA-256 of the choice file."""
    path: str
    """The choice file, relative to the repository root."""


def choice_path(job: str, root: Path | None = None) -> Path:
    """`published/judges/<job>.choice.json` under `root` (default: the repository root)."""
    return (root or REPO_ROOT) / CHOICE_DIR / LAB_CHOICE.relative(job=job)


def write_choice(choice: Choice, root: Path | None = None) -> Path:
    """Write `choice` to its `choice_path` (to be committed before the test split is scored); return the path."""
    p = choice_path(choice.job, root)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(to_json(choice), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return p


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    except OSError as e:
        raise UncommittedChoice(f"git could not run in {root} ({e}): the choice's commit cannot be checked") from e


def uncommitted(root: Path, paths: tuple[str, ...] = GUARDED_PATHS) -> list[str]:
    """The files under `paths` with changes git has not committed (modified, staged or untracked)."""
    status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", *paths)
    if status.returncode != 0:
        raise UncommittedChoice(f"{root} is not a git checkout ({status.stderr.strip()}): a test split is scored only "
                                "from a committed choice in a git checkout")
    return [line[3:] for line in status.stdout.splitlines() if line.strip()]


def _choice_file(job: str, root: Path | None, missing: str) -> tuple[Path, str]:
    """Job `job`'s choice file under `root` (default: the repository root) and its path relative to `root`;
    `UncommittedChoice` saying `missing` (the fix) when it does not exist."""
    base = root or REPO_ROOT
    p = choice_path(job, base)
    rel = str(p.relative_to(base))
    if not p.exists():
        raise UncommittedChoice(f"{rel} does not exist: {missing}")
    return p, rel


def _read_choice(job: str, p: Path, rel: str) -> Choice:
    """The choice in `p`, refused when it is another job's."""
    choice = from_json(Choice, json.loads(p.read_text(encoding="utf-8")))
    if choice.job != job:
        raise UncommittedChoice(f"{rel} holds the choice of job {choice.job!r}, not {job!r}")
    return choice


def recorded_choice(job: str, validity: Sequence[Mapping[str, Any]], root: Path | None = None) -> CommittedChoice:
    """Job `job`'s choice as a record scored it: the choice file under `root` (default: the repository root), whose
    SHA-256 must be the one a validity row of the record (`validity`: the judge laboratory's rows) names; its commit
    is that row's. No git state is read. `UncommittedChoice` naming the file and the fix when no row names the
    file's SHA-256 (the choice was changed after the record was made, or the record scored none)."""
    p, rel = _choice_file(job, root, f"a replay scores job {job!r}'s test split from the choice the record was "
                                     "scored with; restore the file from the repository")
    digest = sha256_file(p)
    rows = [row for row in validity if row.get("choice_sha256") == digest and row.get("choice_commit")]
    if not rows:
        recorded = sorted({str(row.get("choice_sha256", ""))[:12] for row in validity} - {""})
        raise UncommittedChoice(f"{rel} (sha256 {digest[:12]}) is not the choice the record scored (its choices: "
                                f"{', '.join(recorded) or 'none'}): restore the committed file (`git checkout -- "
                                f"{rel}`), or run live to score a new choice")
    return CommittedChoice(_read_choice(job, p, rel), str(rows[0]["choice_commit"]), digest, rel)


def committed_choice(job: str, root: Path | None = None) -> CommittedChoice:
    """Job `job`'s choice, after checking that it and `GUARDED_PATHS` are committed (`UncommittedChoice`
    otherwise, naming the files and the fix)."""
    base = root or REPO_ROOT
    p, rel = _choice_file(job, base, f"choose job {job!r}'s judge on its development split and commit the choice "
                                     "before scoring its test split")
    if _git(base, "ls-files", "--error-unmatch", rel).returncode != 0:
        raise UncommittedChoice(f"{rel} is not committed: `git add {rel} && git commit` before scoring the test split")
    dirty = uncommitted(base)
    if dirty:
        raise UncommittedChoice(f"the test split of job {job!r} is scored only from committed code and choices, but "
                                f"{len(dirty)} file(s) have uncommitted changes ({', '.join(dirty[:4])}): commit or "
                                "stash them first")
    commit = _git(base, "log", "-1", "--format=%H", "--", rel).stdout.strip()
    return CommittedChoice(_read_choice(job, p, rel), commit, sha256_file(p), rel)
