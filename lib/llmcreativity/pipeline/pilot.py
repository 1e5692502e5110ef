"""A pilot's results folder (`Pilot`, what a claim's pilot reader reads: `claims.sizing.PilotFolder`) and the
targets of every testable claim (`TARGETS`): what the pre-registration (`preregistration`) sizes every claim from.

Each claim's target, with the reader of its per-unit values, is declared with the claim, beside the code that decides
it (`ClaimSpec.target`); this module gathers them in page order from the complete claim table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..claims.sizing import NotEstimable, Target
from ..output_files import OutputFile
from .claim_table import CLAIMS
from .manifest import MANIFEST_FILE, ManifestEntry, read_manifest_file
from .stages import writer_of

if TYPE_CHECKING:
    from ..data.hanna import HannaHuman

# the pilot's files ---------------------------------------------------------------------------------------------


@dataclass
class Pilot:
    """A pilot's results folder and the human labels its claims are scored against."""

    results: Path
    """The pilot's results folder (the stage folders, `judge_validity.jsonl`, `executed/run.json`)."""
    labels: Mapping[str, bool] | None = None
    """MacGyver item id -> valid; None: read from the benchmark in the data folder when first needed."""
    hanna: HannaHuman | None = None
    """HANNA's human ratings; None: read from the data folder when first needed."""

    def path(self, output: OutputFile, stage: str | None = None) -> Path:
        """Where the stage that writes `output` (`stage`, of an output two stages write) put it in this folder;
        NotEstimable when it is not there."""
        name = writer_of(output, stage).name
        path = self.results / name / output.path
        if not path.exists():
            raise NotEstimable(f"{name}/{output.path} is missing ({output.holds})")
        return path

    def ran_parameters(self, output: OutputFile) -> list[dict[str, Any]]:
        """The parameters the stage that writes `output` ran with (every one its notebook declares): those its
        manifest entry records, else each of its profiles' (each a candidate, chosen by the files present)."""
        from .projection import stage_parameters

        stage = writer_of(output)
        ran = manifest_stages(self.results).get(stage.name)
        given = [ran.parameters] if ran is not None else list(stage.profiles.values())
        return [stage_parameters(stage, values) for values in given]

    def item_labels(self) -> Mapping[str, bool]:
        """MacGyver's human labels by item id."""
        if self.labels is None:
            from ..data.macgyver import load_benchmark

            try:
                bench = load_benchmark()
            except FileNotFoundError as e:
                raise NotEstimable(f"no MacGyver labels: {e}") from e
            self.labels = dict(zip(bench["item_id"], bench["valid"].astype(bool), strict=True))
        return self.labels

    def hanna_human(self) -> HannaHuman:
        """HANNA's human stories and ratings."""
        if self.hanna is None:
            from ..data.hanna import load_hanna_human

            try:
                self.hanna = load_hanna_human()
            except FileNotFoundError as e:
                raise NotEstimable(f"no HANNA ratings: {e}") from e
        return self.hanna


def manifest_stages(results: Path) -> dict[str, ManifestEntry]:
    """Stage name -> its entry in the results folder's manifest (`executed/run.json`); empty without one."""
    return read_manifest_file(results / "executed" / MANIFEST_FILE).stages


def manifest_runs(results: Path) -> dict[str, dict[str, str]]:
    """Stage name -> the run id and status of its entry in the results folder's manifest, in name order."""
    stages = manifest_stages(results)
    return {name: {"run_id": e.run_id, "status": e.status} for name, e in sorted(stages.items())}


TARGETS: dict[str, Target] = {c: spec.target for c, spec in CLAIMS.items() if spec.target is not None}
"""Claim id -> its target (`ClaimSpec.target`, declared with the claim), for every claim this project can test, in
page order."""
