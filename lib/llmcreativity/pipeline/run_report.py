"""The run report: per stage, its status, seconds, items, model calls, cache hits and tokens.

The runner fills it from files only. While a stage runs, its kernel writes the model usage to
`usage_path(stage)` (`llm.usage_file`); after the stage the runner reads that file and counts the
stage's items (`stage_items`), stores both in the stage's manifest entry (`usage`, `items`,
`items_unit`) and rewrites `run_report_file()` from the manifest (`write_run_report`): one
`StageReport` per stage that has an entry, in stage order. `llmcreativity run` prints the stages it ran
(`report_text`); the claims page shows the file (`report_markdown`), or says that it is missing.

Items processed, per stage, are the records its main output files hold when the stage ends (the outputs of
its `Stage` entry that declare `items`, counted by `output_files.count_records`: a JSONL line, a Parquet or CSV
row, an entry of a JSON list or of the lists of a JSON object), so a cold run and a warm re-run of the same
parameters report the same items; a stage with no per-item output (the backends demo, the entailment-validation
sweeps) reports none. Seconds are the
stage's wall time as the runner measured it (kernel start and provenance included); tokens are those the
models computed, so a run answered by the cache reports its calls as cache hits and no tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..dataclass_json import to_json
from ..jsonl import read_records, rewrite_jsonl
from ..llm.usage_file import ModelUsage
from ..paths import results_dir
from .manifest import ManifestEntry, executed_dir, read_manifest
from .order import ordered_stages
from .stages import Stage

RUN_REPORT_FILE = "run_report.jsonl"
"""Name of the run report in `results_dir(profile)`."""


@dataclass(frozen=True)
class StageReport:
    """One stage's line of the run report."""

    stage: str
    """Stage name."""
    status: str
    """The manifest status: ok, failed, or running (a stage running now, or killed mid-run)."""
    run_id: str
    """Id of the `llmcreativity run` that ran it."""
    profile: str
    """Parameter profile of that run."""
    started: str
    """Local time the stage started."""
    seconds: float | None
    """Wall time of the stage as the runner measured it; None while it runs."""
    items: int | None
    """Records its main output files held at its end (`Stage.outputs` with `items`); None for a stage with none."""
    items_unit: str
    """What one item is ("stories"); empty when `items` is None."""
    lm_calls: int
    """Prompts its language models answered, cache hits included."""
    lm_cache_hits: int
    """Of those, the ones the call cache answered."""
    prompt_tokens: int
    """Prompt tokens the language models computed (cache hits excluded)."""
    completion_tokens: int
    """Tokens the language models generated (cache hits excluded)."""
    texts_embedded: int
    """Texts its embedders encoded, cache hits included."""
    embedding_cache_hits: int
    """Of those, the ones the call cache answered."""
    cached_tokens: int = 0
    """Prompt plus completion tokens of the language-model calls the cache answered, as counted when they were
    computed (with the computed tokens: what the stage's calls need, cold or warm)."""


def usage_path(stage: str, profile: str = "default") -> Path:
    """Where `stage`'s kernel writes its model usage (`executed/usage/<stage>.jsonl`, bookkeeping, not an output)."""
    return executed_dir(profile) / "usage" / f"{stage}.jsonl"


def run_report_file(profile: str = "default") -> Path:
    """The run report of `profile` (`results_dir(profile)/run_report.jsonl`)."""
    return results_dir(profile) / RUN_REPORT_FILE


def stage_items(stage: Stage, profile: str = "default") -> tuple[int | None, str]:
    """(items, unit) of `stage` from its outputs that declare `items`, under `profile`; (None, "") for a stage with
    none. A stage whose item files are all missing has 0 items."""
    if not stage.items_unit:
        return None, ""
    folder = results_dir(profile) / stage.name
    return sum(o.count_items(folder) for o in stage.outputs if o.items), stage.items_unit


def usage_totals(rows: list[ModelUsage]) -> dict[str, int]:
    """The report's usage columns summed over model identities."""
    lms = [r for r in rows if r.kind == "language model"]
    embedders = [r for r in rows if r.kind == "embedder"]
    return {"lm_calls": sum(r.calls for r in lms), "lm_cache_hits": sum(r.cache_hits for r in lms),
            "prompt_tokens": sum(r.prompt_tokens for r in lms),
            "completion_tokens": sum(r.completion_tokens for r in lms),
            "texts_embedded": sum(r.calls for r in embedders),
            "embedding_cache_hits": sum(r.cache_hits for r in embedders),
            "cached_tokens": sum(r.cached_prompt_tokens + r.cached_completion_tokens for r in lms)}


def stage_report(stage: str, entry: ManifestEntry) -> StageReport:
    """A manifest entry as a report line (an entry written before usage was recorded counts no calls)."""
    usage = [ModelUsage(**u) for u in entry.usage]
    return StageReport(stage=stage, status=entry.status, run_id=entry.run_id, profile=entry.profile,
                       started=entry.started, seconds=entry.seconds, items=entry.items, items_unit=entry.items_unit,
                       **usage_totals(usage))


def run_report(manifest_stages: Mapping[str, ManifestEntry], stages: list[Stage] | None = None) -> list[StageReport]:
    """One line per stage with a manifest entry, in stage order, then any entry of a stage not in `stages`."""
    names = [s.name for s in ordered_stages(stages)]
    names += sorted(set(manifest_stages) - set(names))
    return [stage_report(n, manifest_stages[n]) for n in names if n in manifest_stages]


def write_run_report(profile: str = "default", stages: list[Stage] | None = None) -> Path:
    """Rewrite `run_report_file(profile)` from the manifest, atomically; returns its path."""
    path = run_report_file(profile)
    rows = run_report(read_manifest(profile).stages, stages)
    rewrite_jsonl(path, [to_json(r) for r in rows])
    return path


def read_run_report(profile: str = "default") -> list[StageReport]:
    """The lines of `run_report_file(profile)`; [] when no run has written it."""
    return read_records(run_report_file(profile), StageReport, "run report")


HEADERS = ("stage", "status", "seconds", "items (output records)", "LM calls (cached)",
           "tokens computed (prompt / completion)", "texts embedded (cached)")
"""Column headers shared by the printed table and the claims page."""


def _cells(stage: str, status: str, seconds: float | None, items: str, calls: int, hits: int, prompt: int,
           completion: int, embedded: int, embedded_hits: int) -> tuple[str, ...]:
    return (stage, status, "" if seconds is None else f"{seconds:.1f}", items, f"{calls:,} ({hits:,})",
            f"{prompt:,} / {completion:,}", f"{embedded:,} ({embedded_hits:,})")


PAGE_HEADERS = ("stage", "seconds", "items", "LM calls (cached)", "tokens (prompt / completion)",
                "texts embedded (cached)")
"""The claims page's columns: `HEADERS` with the status folded into the stage (a page column fewer, so the table
fits the text width at 1280 px)."""


def _page_cells(line: tuple[str, ...]) -> tuple[str, ...]:
    """A printed line as the page's cells: the status beside the stage unless ok; a stage name may break after "_"."""
    stage, status, *rest = line
    shown = stage.replace("_", "_\u200b") + (f" ({status})" if status not in ("ok", "") else "")
    return (shown, *rest)


def _line(r: StageReport) -> tuple[str, ...]:
    items = "–" if r.items is None else f"{r.items:,} {r.items_unit}"
    return _cells(r.stage, r.status, r.seconds, items, r.lm_calls, r.lm_cache_hits, r.prompt_tokens,
                  r.completion_tokens, r.texts_embedded, r.embedding_cache_hits)


def _total(rows: list[StageReport]) -> tuple[str, ...]:
    def total(name: str) -> int:
        return sum(getattr(r, name) for r in rows)

    return _cells("total", "", total_seconds(rows), "", total("lm_calls"), total("lm_cache_hits"),
                  total("prompt_tokens"), total("completion_tokens"), total("texts_embedded"),
                  total("embedding_cache_hits"))


def total_seconds(rows: list[StageReport]) -> float:
    """Sum of the stages' seconds (a stage still running counts 0)."""
    return sum(r.seconds or 0.0 for r in rows)


def report_text(rows: list[StageReport]) -> str:
    """The lines as a fixed-width table with a total line, for the terminal."""
    table = [HEADERS, *map(_line, rows), _total(rows)]
    widths = [max(len(line[k]) for line in table) for k in range(len(HEADERS))]
    text = ["  ".join(c.ljust(w) if k < 2 else c.rjust(w) for k, (c, w) in enumerate(zip(line, widths, strict=True)))
            for line in table]
    minutes = total_seconds(rows) / 60
    return "\n".join(text) + f"\n{len(rows)} stage(s), {minutes:.1f} minutes in all"


def _runs_note(rows: list[StageReport]) -> str:
    runs = sorted({r.run_id for r in rows})
    profiles = sorted({r.profile for r in rows})
    note = f"Profile {', '.join(f'`{p}`' for p in profiles)}; "
    if len(runs) == 1:
        return note + f"every stage comes from run `{runs[0]}`."
    return note + (f"the stages come from {len(runs)} runs (a `--stage` re-run replaces its stage's line), so the "
                   "total is the sum of their latest runs, not one run's wall time.")


def report_markdown(rows: list[StageReport], path: Path | None = None) -> str:
    """The lines as a Markdown table with the total time, for the claims page; a note instead when there are none
    (`path`: the report file, named in that note)."""
    if not rows:
        where = f"`{path.name}` is missing from the results folder" if path is not None else "it is missing"
        return (f"*No run report: {where}, so this build cannot say how long the run took or how much "
                "it computed. Run `llmcreativity run`; it writes the report after every stage.*")
    out = ["| " + " | ".join(PAGE_HEADERS) + " |", "|" + "---|" * len(PAGE_HEADERS)]
    out += ["| " + " | ".join(c.replace("|", "/") for c in _page_cells(line)) + " |"
            for line in (*map(_line, rows), _total(rows))]
    not_ok = [r.stage for r in rows if r.status != "ok"]
    minutes = total_seconds(rows) / 60
    out += ["", f"The stages took {total_seconds(rows):.0f} seconds ({minutes:.1f} minutes) in all. "
            + _runs_note(rows)
            + (f" Not finished: {', '.join(not_ok)}." if not_ok else "")]
    return "\n".join(out)
