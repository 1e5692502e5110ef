"""Every chapter's exercises, run against a record, and what their folded answers say checked.

A chapter ends with exercises: a command (`llmcreativity run ...`) and a folded answer (`:::{dropdown} What you should
see`). The answer ends with one check line, a MyST comment that the page does not show:

    % check: changed <target>, <target>; same <target>, <target>

either half may be left out. A target is

- an output file of the stage, as the record names it (`baselines/homogenization.csv`; `*` matches any characters:
  `judge_lab/*.json`), compared by `record_compare.output_digest` (wall-clock fields left out);
- `claims` or `judge-validity`: the stage's recorded claims or judge-validity records
  (`record_compare.comparable_records`);
- `calls`: how many model calls of each role the stage asked; `new-calls`: how many of them were computed rather than
  answered from the record (0 in a replay);
- `cell:<text>`: what the code cells whose source contains `<text>` show (every output's data: text, HTML, pictures,
  values glued for the prose; and printed lines).

`run_exercise` runs an exercise's commands against a record in a copy of a results folder that already holds every
stage run against that record (`prepare_base`), and compares the targets with that folder: a target under "changed"
must differ, one under "same" must not. A command against the published record (`--replay published/...`) is run
against the given record instead; a live one (`--profile smoke`) runs live against it (`--from-record`), computing
only the calls the record lacks. `scripts/check_exercises.py` runs them all.
"""

from __future__ import annotations

import fnmatch
import hashlib
import itertools
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from llmcreativity.context import child_environment
from llmcreativity.jsonl import read_jsonl
from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.execution import LIVE_FOLDER, REPLAY_FOLDER
from llmcreativity.pipeline.manifest import MANIFEST_FILE, read_manifest_file
from llmcreativity.pipeline.record_compare import comparable_records, output_digest
from llmcreativity.pipeline.stages import STAGES, Stage

CHECK_PREFIX = "% check:"
"""How an exercise's check line starts (a MyST comment)."""
RECORD_TARGETS = {"claims": "claims.jsonl", "judge-validity": "judge_validity.jsonl"}
"""Targets naming a stage's recorded rows, and the results file that holds them."""
COUNT_TARGETS = ("calls", "new-calls")
"""Targets counting a stage's model calls."""
CELL_TARGET = "cell:"
"""The prefix of a target naming code cells by a piece of their source."""
RUNNER_TAGS = {"injected-parameters", "provenance"}
"""Tags of the cells the runner adds to a chapter (`execution.prepare_notebook`), which no `cell:` target names."""


@dataclass(frozen=True)
class Check:
    """What an exercise's answer says: the targets it changes and those it leaves as they were."""

    changed: tuple[str, ...]
    same: tuple[str, ...]


@dataclass(frozen=True)
class Exercise:
    """One exercise of a chapter: its commands (split as a shell would) and its check."""

    stage: Stage
    title: str
    commands: tuple[tuple[str, ...], ...]
    check: Check

    @property
    def replay(self) -> bool:
        """Whether every command re-analyses a record (no model call is computed)."""
        return all("--replay" in c for c in self.commands)

    @property
    def name(self) -> str:
        """`<stage>: <title>`, for messages."""
        return f"{self.stage.name}: {self.title}"


def parse_check(line: str, where: str) -> Check:
    """The `Check` of a check line; a `ValueError` naming `where` for a line of another form."""
    body = line.strip().removeprefix(CHECK_PREFIX).strip()
    halves: dict[str, tuple[str, ...]] = {"changed": (), "same": ()}
    for half in filter(None, (h.strip() for h in body.split(";"))):
        word, _, rest = half.partition(" ")
        targets = tuple(t.strip() for t in rest.split(",") if t.strip())
        if word not in halves or not targets or halves[word]:
            raise ValueError(f"{where}: the check line {line.strip()!r} is not of the form "
                             "'% check: changed <target>, ...; same <target>, ...'")
        halves[word] = targets
    if not halves["changed"] and not halves["same"]:
        raise ValueError(f"{where}: the check line {line.strip()!r} names no target")
    return Check(halves["changed"], halves["same"])


EXERCISE_TITLE = re.compile(r"^\*\*(\d+\.[^*]+)\*\*", re.M)
"""An exercise starts with its bold number and title (`**3. A stricter clustering.**`)."""


def chapter_exercises(stage: Stage) -> list[Exercise]:
    """The exercises of `stage`'s chapter that run a command, in page order; a `ValueError` naming the exercise when
    one has a command but its answer no check line, or a check line but no command."""
    text = (REPO_ROOT / stage.notebook).read_text()
    section = text[text.rindex("## Exercises"):]
    starts = [m.start() for m in EXERCISE_TITLE.finditer(section)] + [len(section)]
    found = []
    for start, end in itertools.pairwise(starts):
        part = section[start:end]
        title = EXERCISE_TITLE.match(part).group(1).strip().rstrip(".")  # type: ignore[union-attr]
        where = f"{stage.notebook}, exercise {title!r}"
        commands = tuple(tuple(shlex.split(line)) for line in part.splitlines() if line.startswith("llmcreativity run"))
        checks = [line for line in part.splitlines() if line.startswith(CHECK_PREFIX)]
        if not commands and not checks:
            continue  # an exercise done by hand (editing a copy of the code): nothing to run
        if not commands or len(checks) != 1:
            raise ValueError(f"{where}: an exercise with a command needs one check line in its answer "
                             f"({len(commands)} commands, {len(checks)} check lines)")
        found.append(Exercise(stage, title, commands, parse_check(checks[0], where)))
    return found


def every_exercise(stages: list[Stage] | None = None) -> list[Exercise]:
    """The exercises of every chapter, in stage order."""
    return [e for s in (STAGES if stages is None else stages) for e in chapter_exercises(s)]


def against(command: tuple[str, ...], record: Path, results: Path) -> list[str]:
    """`command` run against `record` with its results under `results`: `--replay <any record>` replays `record`;
    a live run of a profile (`--profile P`) runs live against `record` (`--from-record`); a path under the
    project's `results/` points into the live run's folder under `results`."""
    args = list(command[1:])
    if "--replay" in args:
        args[args.index("--replay") + 1] = str(record)
    elif "--profile" in args:
        at = args.index("--profile")
        del args[at:at + 2]
        args += ["--from-record", str(record)]
    return [str(Path(sys.executable).parent / "llmcreativity")] + [
        str(results / LIVE_FOLDER / a.removeprefix("results/")) if a.startswith("results/") else a for a in args]


def _cell_outputs(notebook: Path, text: str) -> list[str]:
    """What each code cell whose source contains `text` shows, as one digest a cell."""
    return [digest for source, digest in _shown(notebook) if text in source]


def _shown(notebook: Path) -> list[tuple[str, str]]:
    """(source, digest of what it shows) of every code cell of an executed notebook that the chapter's source holds
    (not the parameters papermill injects, nor the runner's provenance cells)."""
    shown = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code" or set(cell.metadata.get("tags", [])) & RUNNER_TAGS:
            continue
        outputs = cell.get("outputs", [])
        # printed lines as one text: the kernel may send one print in several stream messages, split by timing
        parts = ["".join(o["text"] for o in outputs if o["output_type"] == "stream" and o["name"] == "stdout")]
        parts += [f"{m}:{v}" for out in outputs for m, v in sorted(out.get("data", {}).items())]
        shown.append((cell.source, hashlib.sha256("\n".join(parts).encode()).hexdigest()))
    return shown


def changed_targets(stage: Stage, before: Path, after: Path) -> list[str]:
    """Every target of `stage` that differs between two results folders: its output files, its records and call
    counts, and each code cell (named by its source's first line), to say what did change when a check fails."""
    files = sorted({p.relative_to(f).as_posix() for f in (before, after) for p in (f / stage.name).rglob("*")
                    if p.is_file()})
    changed = [rel for rel in files if not ((before / rel).exists() and (after / rel).exists())
               or output_digest(before / rel) != output_digest(after / rel)]
    changed += [t for t in (*RECORD_TARGETS, *COUNT_TARGETS) if state(t, stage, before) != state(t, stage, after)]
    notebook = Path("executed") / f"{stage.name}.ipynb"
    cells = zip(_shown(before / notebook), _shown(after / notebook), strict=False)
    return changed + [f"{CELL_TARGET}{a[0].splitlines()[0] if a[0] else ''}" for a, b in cells if a[1] != b[1]]


def state(target: str, stage: Stage, results: Path) -> object:
    """What `target` of `stage` is in the results folder `results` (a `results_dir(profile)`): comparable values, equal
    when the target did not change. A `ValueError` for a target that names nothing there."""
    if target in RECORD_TARGETS:
        return comparable_records(read_jsonl(results / RECORD_TARGETS[target]), stage.name)
    if target in COUNT_TARGETS:
        entry = read_manifest_file(results / "executed" / MANIFEST_FILE).stages[stage.name]
        if target == "calls":
            return entry.calls
        return sum(u["calls"] - u["cache_hits"] for u in entry.usage)
    if target.startswith(CELL_TARGET):
        cells = _cell_outputs(results / "executed" / f"{stage.name}.ipynb", target.removeprefix(CELL_TARGET))
        if not cells:
            raise ValueError(f"{target!r}: no code cell of {stage.notebook} contains that text")
        return cells
    files = sorted(p for p in (results / stage.name).rglob("*") if p.is_file()
                   and fnmatch.fnmatch(p.relative_to(results).as_posix(), target))
    if not files:
        raise ValueError(f"{target!r}: no output file of stage {stage.name!r} in {results} matches it")
    return {p.relative_to(results).as_posix(): output_digest(p) for p in files}


def prepare_base(record: Path, root: Path, *, live: bool) -> Path:
    """`root` made to hold every stage of `record` run against it: replayed (`--replay`) or, with `live`, run live
    against it (`--from-record`, every call answered from the record); the folder the runs wrote. Done once: an
    existing folder is kept."""
    folder = root / (LIVE_FOLDER if live else REPLAY_FOLDER)
    if not folder.exists():
        how = "--from-record" if live else "--replay"
        _run([str(Path(sys.executable).parent / "llmcreativity"), "run", how, str(record)], root)
    return folder


def _run(args: list[str], root: Path) -> None:
    done = subprocess.run(args, env=child_environment(results=root), cwd=REPO_ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(args)} failed ({done.returncode}):\n"
                           f"{done.stdout[-3000:]}{done.stderr[-3000:]}")


def run_exercise(exercise: Exercise, record: Path, base: Path, work: Path,
                 profile: str) -> tuple[list[str], list[str]]:
    """Run `exercise` against `record` in `work`, a copy of `base` (`prepare_base`'s folder, replayed or live as the
    exercise needs), and compare its check's targets with `base`: the faults (empty when the answer holds; a command
    that fails is one) and every target that changed (`changed_targets`). A file the exercise's run does not write
    again keeps its copied content."""
    folder = work / base.name
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(base, folder)
    for command in exercise.commands:
        try:
            _run(against(command, record, work), work)
        except RuntimeError as failed:
            return [f"{exercise.name}: {failed}"], []
    scratch = (base / profile).is_dir()  # a scratch profile's results sit in a folder of its name (`paths`)

    def results_of(folder: Path) -> Path:
        return folder / profile if scratch else folder

    faults = []
    for targets, should_change in ((exercise.check.changed, True), (exercise.check.same, False)):
        for target in targets:
            before = state(target, exercise.stage, results_of(base))
            after = state(target, exercise.stage, results_of(folder))
            if (before != after) != should_change:
                faults.append(f"{exercise.name}: {target} {'did not change' if should_change else 'changed'}")
    return faults, changed_targets(exercise.stage, results_of(base), results_of(folder))
