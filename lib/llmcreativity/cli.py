"""The `llmcreativity` command: run the stage notebooks, build the book, print it to PDF.

    llmcreativity run [--profile default|paper|smoke] [-p NAME VALUE]... [--stage NAME] [--dry-run]
                      [--replay RECORD | --from-record RECORD [--user-cache]]
        (ends with a table per stage: status, seconds, items, model calls, cache hits, tokens; see
        `pipeline.run_report`; --replay answers every model call from a record, with -p changing analysis
        parameters only (a re-analysis); --from-record runs live against a record, computing only the calls it
        lacks, after printing their projected cost; see `pipeline.execution` and `pipeline.record_export`)
    llmcreativity record export DEST [--profile P] [--stage NAME]
    llmcreativity record import RECORD
    llmcreativity build [--output DIR]
    llmcreativity pdf [--output DIR]
    llmcreativity preregister --results DIR [--out DIR] [--rule RULE] [--gate-judge KIND JUDGE]... [--after DIR]
        (each claim's minimum sample from a pilot's results, `pipeline.preregistration`; --after: a second
        registration, listing its deviations from the committed one in DIR)
    llmcreativity book
        (`make book`: replay the claims' re-decision's record `published/decisive` when it is complete, else the
        published run's `published/run`, else run the default profile live; then build)
    llmcreativity reproduce [--profile published|decisive] [--stage NAME]
        (`make reproduce`: a recorded profile live, resuming from its record, each stage exported to it as it ends;
        the decisive profile first imports the published run's record too, so every call it still asks is reused)
    llmcreativity judge --job JOB --input FILE.jsonl [--output FILE.jsonl]
        (score your own items with the judge laboratory's confirmed judge of JOB, `judgelab.score`)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .paths import DECISIVE_RECORD, PUBLISHED_RECORD, PUBLISHED_REGISTRATION, RECORDS, REPO_ROOT

if TYPE_CHECKING:
    from .pipeline.execution import Replay
    from .pipeline.planning import Plan


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llmcreativity", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="execute the stage notebooks with papermill, in dependency order")
    run.add_argument("--profile", default="default",
                     help="parameter profile: default, published, paper, pilot or smoke (the last two write under "
                          "results/pilot/ and results/smoke/); default: default")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                     help="override a parameter for every stage declaring it; STAGE.NAME for one stage only")
    run.add_argument("--stage", help="run only this stage (in the smoke profile after the stages it reads from, when "
                                     "they have not run)")
    run.add_argument("--dry-run", action="store_true",
                     help="validate and print the parameters, each with where it comes from (the notebook, the "
                          "profile's file, -p); run nothing")
    against = run.add_mutually_exclusive_group()
    against.add_argument("--replay", type=Path, metavar="RECORD",
                         help="answer every model call from the record folder RECORD (its profile; writes under "
                              "results/replay/), spot-checking a few calls live; -p may change analysis parameters "
                              "only (a re-analysis; with --stage after a full replay only that stage runs again)")
    against.add_argument("--from-record", type=Path, metavar="RECORD",
                         help="run live against the record folder RECORD (its profile; writes under "
                              "results/from-record/): its answers are imported into the run's own call cache, so only "
                              "the calls a changed generating parameter asks anew are computed; prints their "
                              "projected cost first")
    run.add_argument("--user-cache", action="store_true",
                     help="with --from-record: import the record into your call cache (~/.cache/llmcreativity) and "
                          "run with it, instead of the run's own")
    record = sub.add_parser("record", help="export a run's model calls to a record folder, or import one")
    rsub = record.add_subparsers(dest="action", required=True)
    export = rsub.add_parser("export", help="add the calls of the stages that ran to the record folder DEST")
    export.add_argument("dest", type=Path)
    export.add_argument("--profile", default="default", help="the profile whose run to export (default: default)")
    export.add_argument("--stage", help="export only this stage")
    imp = rsub.add_parser("import", help="load a record's answers into the call cache (~/.cache/llmcreativity)")
    imp.add_argument("source", type=Path)
    for name, text in (("build", "build the HTML book from the executed notebooks (offline, -W)"),
                       ("pdf", "build the single-page HTML book and print it to PDF with headless Chromium")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--output", type=Path, default=REPO_ROOT,
                       help="folder that receives _build/ (default: the project root)")
    sub.add_parser("book", help=f"the book: replay the newest complete record ({DECISIVE_RECORD}, else "
                                f"{PUBLISHED_RECORD}; live spot check), else run the default profile live; then build")
    again = sub.add_parser("reproduce", help="compute a recorded profile live, resuming from its record; each stage is "
                                             "exported to it as soon as it ends")
    again.add_argument("--profile", default="published", choices=sorted(RECORDS),
                       help=f"published ({PUBLISHED_RECORD}, default) or decisive ({DECISIVE_RECORD})")
    again.add_argument("--stage", help="compute only this stage (a sitting)")
    pre = sub.add_parser("preregister", help="derive each claim's minimum sample from a pilot's results folder and "
                                             "write preregistration.json and .md")
    pre.add_argument("--results", type=Path, required=True, help="the pilot's results folder (results/pilot)")
    pre.add_argument("--out", type=Path, default=REPO_ROOT / PUBLISHED_REGISTRATION,
                     help="folder that receives the registration (default: published/preregistration)")
    pre.add_argument("--rule", default="pilot distance", choices=["pilot distance", "smallest effect"],
                     help="the precision rule that sets each min_n (the other is shown beside it); default: pilot "
                          "distance")
    pre.add_argument("--gate-judge", nargs=2, action="append", default=[], metavar=("KIND", "JUDGE"),
                     help="the judge of KIND (rubric, entailment, convergent) whose agreement gates its claims, as "
                          "judge_validity.jsonl names it (default: every recorded judge of that kind)")
    pre.add_argument("--after", type=Path, default=None,
                     help="a committed earlier registration's folder: this one is a second registration, and lists "
                          "every deviation from it with its reason")
    judge = sub.add_parser("judge", help="score your own items (JSON Lines) with a confirmed judge of the judge "
                                         "laboratory")
    judge.add_argument("--job", required=True, help="the judging job: entailment (semantic equivalence), convergent "
                                                    "(solution validity) or rubric (story quality)")
    judge.add_argument("--input", type=Path, required=True, help="the items, one JSON object per line")
    judge.add_argument("--output", type=Path, help="where the answered items go (default: INPUT with .judged.jsonl)")
    return parser


def _against_record(args: argparse.Namespace) -> tuple[list[Plan], Replay]:
    """The plans and the `Replay` of `--replay RECORD` (results under `results/replay/`) or `--from-record RECORD`
    (under `results/from-record/`), in the record's profile."""
    from .pipeline.execution import prepare_from_record, prepare_replay
    from .record_file import RecordError, read_record

    folder = args.replay if args.replay is not None else args.from_record
    profile = read_record(folder).profile
    if args.profile not in ("default", profile):
        raise RecordError(f"--profile {args.profile} but {folder} is a record of profile {profile!r}: "
                          "leave --profile out when running against a record")
    args.profile = profile
    overrides = [tuple(p) for p in args.parameter]
    if args.replay is not None:
        plans, replay = prepare_replay(folder, overrides, args.stage)
        print(f"replaying {replay.folder} (profile {profile}): every model call from the record")
    else:
        plans, replay = prepare_from_record(folder, overrides, args.stage, user_cache=args.user_cache)
        print(f"running live against {replay.folder} (profile {profile}): the calls it holds from the record, "
              f"the others computed; call cache {replay.calls}")
    return plans, replay


def _record(args: argparse.Namespace) -> None:
    from .llm.call_log import calls_path
    from .paths import cache_dir
    from .pipeline.planning import plan
    from .pipeline.record_export import export_record, import_record

    if args.action == "export":
        plans = plan(args.profile, [], args.stage)
        record = export_record(args.dest, plans, args.profile, calls_path(cache_dir() / "calls.sqlite"))
        print(f"record {args.dest}: {len(record.stages)} stage(s), {record.bytes / 2**20:.1f} MiB")
    else:
        cache = import_record(args.source, calls_path(cache_dir() / "calls.sqlite"), fresh=False)
        print(f"imported {args.source} into {cache.path} ({len(cache)} answers in all)")


def _print_against_record(replay: Replay, plans: list[Plan]) -> None:
    """Before a run against a record starts: the analysis parameters each stage re-analyses with, and for a run live
    against it the projected cost of what it computes anew (`projection.seconds_projection`)."""
    from .pipeline.projection import seconds_lines, seconds_projection
    from .pipeline.record_compare import describe_changes, parameter_differences

    for p in plans:
        _, analysis = parameter_differences(replay.record.stages[p.stage.name].resolved_parameters, p)
        if analysis:
            print(f"[re-analysis] {p.stage.name}: {describe_changes(analysis)}")
    if replay.live:
        print(*seconds_lines(seconds_projection(replay.record, plans)), sep="\n")


def _run(args: argparse.Namespace) -> None:
    from .pipeline.execution import new_run_id, remember_run, replay_lanes, run_side_by_side, run_stage
    from .pipeline.manifest import read_manifest
    from .pipeline.parameters import ParameterError
    from .pipeline.planning import plan, upstream_line
    from .pipeline.run_report import report_text, run_report, run_report_file

    replay = None
    if args.user_cache and args.from_record is None:
        raise ParameterError("--user-cache imports a record into your call cache: use it with --from-record RECORD")
    if args.from_record is not None and args.stage is not None and not args.dry_run:
        from .pipeline.execution import upstream_to_replay

        first = upstream_to_replay(args.from_record, args.stage)
        if first:
            print(f"{args.stage} reads {', '.join(first)}, which results/replay/ does not hold as this record's "
                  "replay: replaying them from the record first")
            for name in first:
                _run(_parser().parse_args(["run", "--replay", str(args.from_record), "--stage", name]))
    if args.replay is not None or args.from_record is not None:
        plans, replay = _against_record(args)
        _print_against_record(replay, plans)
    else:  # a --stage run in a scratch profile (smoke) runs the stages it reads from first, when they have not run
        plans = plan(args.profile, [tuple(p) for p in args.parameter], args.stage, run_upstream=True)
        if upstream_line(plans, args.stage):
            print(upstream_line(plans, args.stage))
    if args.dry_run:
        for p in plans:
            print(f"{p.stage.name} ({p.stage.notebook})")
            print(f"  run settings {p.settings}    # local models' defaults: the profile's, or -p dtype / -p device")
            print(f"  endpoint settings {p.endpoint}    # endpoint roles: -p api_key_env / -p max_concurrency")
            for name, param in p.declared.items():
                value = p.parameters.get(name, param.default)
                mark = "*" if name in p.parameters else " "
                print(f"  {mark} {name} = {value!r}    # [{p.origin(name)}] {param.describe()}")
        from .pipeline.planning import endpoint_summary

        print(*(f"endpoint {line}" for line in endpoint_summary(plans)), sep="\n")
        print("(* = set by the profile or -p; [...] = where the value comes from: the notebook's default, the "
              "profile's file and part, or the -p; parameters are valid, nothing was run)")
        if args.replay is None and plans:  # a replay asks no model: nothing to project
            from .pipeline.projection import dry_run_cost

            print(*dry_run_cost(plans, plans[0].profile, args.from_record), sep="\n")
        return
    run_id = new_run_id()
    remember_run()
    try:
        if replay is not None and not replay.live and len(plans) > 1 and replay_lanes() > 1:
            print(f"replaying {replay_lanes()} stages at a time, each as soon as the stages it reads have run, the "
                  "longest way first; their spot checks computed after them by one worker that loads each model once")
            run_side_by_side(plans, run_id, replay)
        else:
            for p in plans:
                run_stage(p, run_id=run_id, replay=replay)
    finally:  # the table of what ran, a failed stage included
        ran = [r for r in run_report(read_manifest(args.profile).stages) if r.run_id == run_id]
        if ran:
            print(f"\nrun {run_id}, profile {args.profile}:\n{report_text(ran)}\n"
                  f"(every stage's latest line: {run_report_file(args.profile)})")
        if replay is not None:
            from .pipeline.record_page import record_summary

            print(*record_summary(replay.record, read_manifest(args.profile).stages, run_id), sep="\n")
    print(f"all {len(plans)} stage(s) ran; build the book with `llmcreativity build`")


def _book() -> None:
    """The newest complete record replayed (the claims' re-decision's, else the published run's), else the default
    profile live; then the build (in this process: a replay leaves `results_root()` at its replay folder, which the
    build reads)."""
    from llmcreativity_book.page_check import report_book
    from llmcreativity_book.site import build

    from .pipeline.planning import plan
    from .pipeline.record_compare import unreplayable_stages

    for profile in ("decisive", "published"):
        record = REPO_ROOT / RECORDS[profile][0]
        missing = unreplayable_stages(record, plan(profile, []))
        if not missing:
            _run(_parser().parse_args(["run", "--replay", str(record)]))
            break
        why = "; ".join(f"{stage}: {w}" for stage, w in list(missing.items())[:3])
        print(f"the record {RECORDS[profile][0]} is not complete ({why}"
              + (f"; and {len(missing) - 3} more stages)" if len(missing) > 3 else ")"))
    else:
        print("no record is complete: running the default profile live")
        _run(_parser().parse_args(["run"]))
    html = build()
    print(f"book built: {html / 'index.html'}")
    report_book(html)  # every page read in headless Chromium at 1280 and 390 px, when Chromium is installed


DECISIVE_RESULTS = "decisive"
"""The results folder (under `results/`) of a live `reproduce --profile decisive`: its writers resume from their own
stories there, never from the published run's (written under other decoding, which they would refuse)."""


def _reproduce(profile: str, stage: str | None) -> None:
    """A recorded profile live: its record's answers (and, for the claims' re-decision, the published run's) imported
    into the call cache first, so that what earlier sittings computed is answered from it; each stage exported to the
    profile's record as soon as it has run."""
    from .context import use_results
    from .llm.call_log import calls_path
    from .paths import cache_dir, results_root
    from .pipeline.execution import new_run_id, run_stage
    from .pipeline.planning import plan
    from .pipeline.record_export import export_record, import_record
    from .record_file import RECORD_FILE

    name = RECORDS[profile][0]
    record, calls = REPO_ROOT / name, calls_path(cache_dir() / "calls.sqlite")
    if profile != "published":
        use_results(results_root() / DECISIVE_RESULTS, unless_set=True)
    sources = [REPO_ROOT / PUBLISHED_RECORD] if profile != "published" else []
    for folder in [*sources, record]:
        if (folder / RECORD_FILE).exists():
            cache = import_record(folder, calls, fresh=False)
            print(f"imported {folder.relative_to(REPO_ROOT)} into {cache.path}")
    plans, run_id = plan(profile, [], stage), new_run_id()
    for p in plans:
        run_stage(p, run_id=run_id)
        exported = export_record(record, [p], profile, calls)
        print(f"exported {p.stage.name} to {name} ({exported.bytes / 2**20:.1f} MiB in all): commit it")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    from llmcreativity_book.site import BuildError

    from .pipeline.execution import StageFailed
    from .pipeline.parameters import ParameterError
    from .record_file import RecordError

    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            _run(args)
        elif args.command == "record":
            _record(args)
        elif args.command == "book":
            _book()
        elif args.command == "reproduce":
            _reproduce(args.profile, args.stage)
        elif args.command == "judge":
            from .judgelab.score import score_file

            out = args.output or args.input.with_suffix(".judged.jsonl")
            try:
                print(f"scored: {score_file(args.job, args.input, out)}")
            except ValueError as e:  # a bad file, field or job, named with its fix (`judgelab.score.ItemsError`)
                print(f"error: {e}", file=sys.stderr)
                return 2
        elif args.command == "preregister":
            from .pipeline.preregistration import preregister
            from .pipeline.registration_text import write_preregistration

            registration = preregister(args.results, rule=args.rule, gate_judges=dict(args.gate_judge),
                                       after=args.after)
            digest = write_preregistration(registration, args.out)
            print(f"pre-registration written to {args.out} (SHA-256 {digest})")
        elif args.command in ("build", "pdf"):
            from llmcreativity_book.pdf import build_pdf
            from llmcreativity_book.site import build

            from .context import kernel_context
            from .pipeline.execution import use_last_run

            if kernel_context().results is None:  # the results the last run wrote (`make book`'s replay)
                print(f"building from {use_last_run()}")
            if args.command == "build":
                print(f"book built: {build(args.output) / 'index.html'}")
            else:
                print(f"PDF written: {build_pdf(args.output)}")
    except ParameterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (StageFailed, BuildError, KeyError, FileNotFoundError, RecordError) as e:
        print(f"error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
