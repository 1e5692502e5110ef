"""What the console and the claims page say about a record: a replay's or a live run's line per stage
(`record_summary`), where a claim's stage got its calls (`record_origin`), the run a record holds
(`record_provenance`) and the page's sentences on the stages run against a record (`record_markdown`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..paths import REPO_ROOT
from ..record_file import Record, read_record
from .manifest import ManifestEntry, RecordCalls
from .record_compare import describe_changes


def record_summary(record: Record, stages: Mapping[str, ManifestEntry], run_id: str) -> list[str]:
    """One line per stage that run `run_id` ran against `record` (its manifest entries `stages`): a replay's calls
    asked against the record's count per role and method, its spot check (compared, matched, worst difference) and
    the analysis parameters it changed; a live run's calls from the record and new ones, and the generating
    parameters it changed."""
    lines = []
    for name, entry in stages.items():
        against = entry.against_record
        if against is None or against.run != run_id:
            continue
        counted = entry.record_calls or RecordCalls(0, 0, {})
        if against.mode == "live":
            changed = describe_changes(against.generating_changed) or "none"
            lines.append(f"[from-record] {name}: {entry.status} in {entry.seconds} s, "
                         f"{counted.from_record} calls from the record, {counted.new} new; "
                         f"generating parameters changed: {changed}")
            continue
        asked, recorded = entry.calls, record.stages[name].calls
        same = "the recorded calls" if asked == recorded else f"calls {asked} but the record has {recorded}"
        spot = entry.spot_check
        worst = ", ".join(f"{m} {w:.2g}" for m, w in sorted(spot.worst.items())) if spot else ""
        analysis = describe_changes(against.analysis_changed)
        lines.append(f"[replay] {name}: {entry.status} in {entry.seconds} s, {same}; spot check "
                     f"{spot.matched if spot else 0}/{spot.compared if spot else 0} matched (worst difference: "
                     f"{worst or '-'})" + (f"; re-analysed with {analysis}" if analysis else "")
                     + _differences_clause(entry.record_differences))
    return lines


def _differences_clause(differences: tuple[str, ...] | None) -> str:
    """The console's clause on what a replayed stage rebuilt differently from its record."""
    if differences is None:
        return ""
    if not differences:
        return "; outputs and claims as recorded"
    more = ", ..." if len(differences) > 3 else ""
    return f"; NOT as recorded ({len(differences)}: {', '.join(differences[:3])}{more})"


def unmatched_stages(stages: Mapping[str, ManifestEntry]) -> dict[str, tuple[str, ...]]:
    """The replayed stages whose outputs or claims differ from their record's (`ManifestEntry.record_differences`),
    with what differs: the chapters edited, or run with other analysis parameters, since the record was made."""
    return {n: e.record_differences for n, e in stages.items() if e.replay and e.record_differences}


def record_origin(entry: ManifestEntry | None) -> str:
    """What a stage's manifest entry says about the record it ran against, for a claim of that stage: "recorded"
    (every call it asked was in the record: a replay, or a live run that asked nothing new) or "fresh: N of M calls
    new" (a live run that computed calls the record does not hold), then the analysis parameters it was re-analysed
    with (`; re-analysed with name: recorded X, now Y`); "" when it ran against no record."""
    if entry is None or entry.against_record is None:
        return ""
    new = entry.record_calls.new if entry.record_calls else 0
    origin = "recorded" if not new else f"fresh: {new} of {entry.call_count()} calls new"
    analysis = describe_changes(entry.against_record.analysis_changed)
    return origin + (f"; re-analysed with {analysis}" if analysis else "")


def _live_counts(name: str, entry: ManifestEntry) -> str:
    """`name: N calls from the record, M new (the generating parameters changed)` of a live stage's entry."""
    counted = entry.record_calls or RecordCalls(0, 0, {})
    changed = entry.against_record.generating_changed if entry.against_record else {}
    return (f"{name}: {counted.from_record:,} calls from the record, {counted.new:,} new"
            + (f" ({describe_changes(changed)})" if changed else ""))


def record_provenance(record: Record) -> str:
    """One sentence naming the run a record holds: its run ids (one per sitting that ran a stage), the dates of its
    first and last stage run, the code commits, the machine it was recorded on and its computing hours (the sum of
    the wall times of every stage's sittings, `RecordedStage.computing_seconds`)."""
    stages = record.stages
    ran = [s for e in stages.values() for s in e.all_sittings()]
    runs = sorted({s.run_id for s in ran} - {""})
    days = sorted({f"{r[:4]}-{r[4:6]}-{r[6:8]}" for r in runs})  # a run id starts with its date, YYYYMMDD
    span = " to ".join(dict.fromkeys([days[0], days[-1]])) if days else "undated"
    commits = sorted({s.commit[:7] for s in ran} - {""})
    hours = sum(e.computing_seconds() for e in stages.values()) / 3600
    machine = (f"{record.cpu.model or 'an unnamed CPU'}, {record.cpu.cores or '?'} cores" if record.cpu
               else "an unnamed CPU, ? cores")
    return (f"The record holds {len(stages)} stage(s) of profile `{record.profile}` from "
            f"{len(runs)} run(s) ({', '.join(f'`{r}`' for r in runs)}; {span}), code commit(s) "
            f"{', '.join(f'`{c}`' for c in commits) or 'unknown'}, recorded on {machine}: {hours:.2f} hours of "
            "computing (the wall times of the sittings that recorded its stages).")


def _shown(folder: str) -> str:
    """A record folder as the page names it: its path in the repository (`published/run`), else its name."""
    try:
        return str(Path(folder).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return Path(folder).name


def record_markdown(stages: Mapping[str, ManifestEntry]) -> str:
    """Sentences for the claims page about the stages run against a record (`stages`: the manifest entries): a
    replay's record and run, the calls answered from it, the live spot check, the analysis parameters a stage was
    re-analysed with, the stages whose outputs no longer match the record (`unmatched_stages`); a live run's calls
    from the record and new ones per stage; "" for a plain live run."""
    replayed = {n: e.replay for n, e in stages.items() if e.replay}
    live = {n: e for n, e in stages.items() if e.against_record is not None and e.against_record.mode == "live"}
    out = []
    if replayed:
        records = sorted({_shown(mark.record) for mark in replayed.values()})
        runs = sorted({stages[n].run_id for n in replayed})
        calls = sum(stages[n].call_count() for n in replayed)
        spots = [s for n in replayed if (s := stages[n].spot_check) is not None]
        compared, matched = sum(s.compared for s in spots), sum(s.matched for s in spots)
        worst: dict[str, float] = {}
        for s in spots:
            for method, w in s.worst.items():
                worst[method] = max(worst.get(method, 0.0), w)
        shown = "; ".join(f"{m} {w:.2g}" for m, w in sorted(worst.items())) or "none"
        out.append(f"These results were rebuilt from the record {', '.join(f'`{r}`' for r in records)} of run(s) "
                   f"{', '.join(f'`{r}`' for r in runs)}: {len(replayed)} stage(s), {calls:,} model calls answered "
                   f"from the record. Live spot check: {compared} recorded calls computed again, {matched} matched "
                   f"within tolerance (largest difference by method: {shown}).")
        for folder in sorted({mark.record for mark in replayed.values()}):
            try:
                out.append(record_provenance(read_record(folder)))
            except (OSError, ValueError):
                out.append(f"(The record `{Path(folder).name}` could not be read for its provenance.)")
        unmatched = unmatched_stages(stages)
        if unmatched:
            out.append("**These pages no longer match the record:** " + "; ".join(
                f"{n} ({', '.join(d[:3])}{', ...' if len(d) > 3 else ''})" for n, d in unmatched.items())
                + ". Their chapters were edited or re-analysed after the record was made; every other replayed "
                "stage rebuilt its outputs and claims exactly.")
        elif any(stages[n].record_differences is not None for n in replayed):
            out.append("Every replayed stage rebuilt its outputs and claims exactly as recorded.")
        reanalysed = {n: against.analysis_changed for n in replayed
                      if (against := stages[n].against_record) is not None and against.analysis_changed}
        if reanalysed:
            out.append("Re-analysed against the record, no call computed: " + "; ".join(
                f"{n} with {describe_changes(c)}" for n, c in reanalysed.items()) + ".")
    if live:
        records = sorted({_shown(e.against_record.record) for e in live.values() if e.against_record})
        out.append(f"Run live against the record {', '.join(f'`{r}`' for r in records)} (the calls it holds answered "
                   "from it, the others computed): " + "; ".join(_live_counts(n, e) for n, e in live.items()) + ".")
    return " ".join(out)
