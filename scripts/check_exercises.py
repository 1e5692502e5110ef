"""Run every chapter's exercises against a record and check what their folded answers say (`llmcreativity_book.exercises`).

    .venv/bin/python scripts/check_exercises.py            # the re-analyses (--replay), against the smoke record
    .venv/bin/python scripts/check_exercises.py --live     # and the live ones (--profile smoke), computing new calls
    .venv/bin/python scripts/check_exercises.py --live-only --stage baselines --stage review
    .venv/bin/python scripts/check_exercises.py --stage corpus --record published/decisive

A re-analysis answers every call from the record (a minute or two for all, after one replay of the record); a live
exercise computes the calls its parameter changes with the smoke profile's small models (several minutes each for the
writing stages). `make test` runs the re-analyses against the committed smoke record (`tests/book/test_exercises.py`).
Exits 1 when an answer does not hold, naming the exercise and the target.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from llmcreativity.paths import REPO_ROOT
from llmcreativity.record_file import read_record
from llmcreativity_book.exercises import every_exercise, prepare_base, run_exercise

SMOKE_RECORD = REPO_ROOT / "tests" / "data" / "records" / "smoke"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, default=SMOKE_RECORD, help="the record to run them against")
    parser.add_argument("--live", action="store_true", help="also the live exercises (they compute new calls)")
    parser.add_argument("--live-only", action="store_true", help="only the live exercises")
    parser.add_argument("--stage", action="append", help="only this stage's chapter (may be repeated)")
    parser.add_argument("--explore", action="store_true", help="print every target each exercise changed")
    parser.add_argument("--work", type=Path, help="a folder to keep the runs in (default: a temporary one)")
    args = parser.parse_args()
    record = args.record.resolve()
    profile = read_record(record).profile
    wanted = (lambda e: not e.replay) if args.live_only else (lambda e: args.live or e.replay)
    chosen = [e for e in every_exercise() if wanted(e) and (args.stage is None or e.stage.name in args.stage)]
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        faults: list[str] = []
        for live in sorted({not e.replay for e in chosen}):
            start = time.monotonic()
            base = prepare_base(record, work / "base", live=live)
            print(f"{'live against' if live else 'replayed'} {record}: {time.monotonic() - start:.0f} s", flush=True)
            for exercise in (e for e in chosen if e.replay != live):
                start = time.monotonic()
                found, changed = run_exercise(exercise, record, base, work / "exercise", profile)
                faults += found
                print(f"{'FAIL' if found else 'ok  '} {exercise.name} ({time.monotonic() - start:.0f} s)", flush=True)
                for line in found + ([f"what changed: {', '.join(changed) or 'nothing'}"]
                                     if found or args.explore else []):
                    print(f"     {line}")
        print(f"{len(chosen)} exercises, {len(faults)} faults")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
