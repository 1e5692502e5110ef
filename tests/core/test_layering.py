"""The package's import graph, in-function imports included: which packages import which, and the cycles.

The layers: no domain package imports `pipeline`, and no cycle at all. Both hold: the claims'
vocabulary and the record's reader sit in the bottom layer, and the units import each other in one direction only,
from the top: `cli` and `outputs` (every stage's files, found through the stage table); `pipeline`; the domains
(evaluation reads judges, judges read entropy, entropy reads judgelab and writing; corpus, metrics, llm and data
below them); the bottom layer (`BOTTOM`). A new cycle fails the test, naming its units.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

import llmcreativity

PACKAGE = Path(llmcreativity.__file__).parent

DOMAINS = frozenset({"corpus", "data", "entropy", "evaluation", "judgelab", "judges", "llm", "metrics", "stats",
                     "writing"})
"""The domain packages: what a method computes. `pipeline` (running, recording, registering and the ledger) sits
above them, and so do `cli` and `outputs`, which name every stage's files."""

def _unit(module: str) -> str | None:
    """The top-level unit of a dotted module name inside the package (None outside it)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "llmcreativity" and len(parts) > 1 else None


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of its code (functions, `TYPE_CHECKING` blocks), as absolute
    names; `from . import x` counts as importing the package's `x`."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    here = list(rel.parts[:-1])  # the package a relative import starts from (an `__init__`'s own)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            if not node.module:
                found |= {f"{module}.{a.name}" for a in node.names}
    return found


def unit_graph() -> nx.DiGraph:
    """Top-level unit -> the units it imports (self-imports left out)."""
    graph = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        source = _unit(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        if source is None:
            continue
        graph.add_node(source)
        for module in imports_of(path):
            target = _unit(module)
            if target is not None and target != source:
                graph.add_edge(source, target)
    return graph


def cycles(graph: nx.DiGraph) -> set[frozenset[str]]:
    """The strongly connected sets of more than one unit: each holds at least one cycle."""
    return {frozenset(c) for c in nx.strongly_connected_components(graph) if len(c) > 1}


def upward(graph: nx.DiGraph) -> set[tuple[str, str]]:
    return {(a, b) for a, b in graph.edges if a in DOMAINS and b == "pipeline"}


def test_in_function_and_relative_imports_are_resolved(tmp_path, monkeypatch):
    folder = tmp_path / "llmcreativity" / "judges"
    folder.mkdir(parents=True)
    (folder / "claims.py").write_text("from . import rubric\n\ndef f():\n    from ..claims.declarations import min_n\n"
                                      "    import llmcreativity.stats\n")
    monkeypatch.setattr(f"{__name__}.PACKAGE", tmp_path / "llmcreativity")
    assert imports_of(folder / "claims.py") == {"llmcreativity.judges", "llmcreativity.judges.rubric",
                                                "llmcreativity.claims.declarations", "llmcreativity.stats"}


def test_a_cycle_is_found_and_named():
    graph = nx.DiGraph([("judges", "pipeline"), ("pipeline", "judges"), ("pipeline", "stats")])
    assert cycles(graph) == {frozenset({"judges", "pipeline"})}
    assert upward(graph) == {("judges", "pipeline")}


def test_no_cycle():
    """The strongly connected sets of top-level units (packages and modules of `llmcreativity`), imports inside
    functions counted, are single units. At 689ac9b there were two cycles: corpus <-> metrics, broken by moving the
    tokenizer both use into `metrics`; and a knot of entropy, evaluation, judgelab, judges, outputs, pipeline and
    writing. The claims' vocabulary moving to the bottom layer took the domains' imports of `pipeline` out of it;
    the rest of it went when `pipeline` stopped importing `outputs` (the bigger Single Agent's system name is
    `writing.large_single_system`), the judge laboratory stopped importing `outputs` (it writes its development
    tables into the folder it is given) and `entropy` (MuseScorer's and the solvable MacGyver problems' readers are
    in `data`), and judges and writing stopped importing `evaluation` (the paired statistics are `stats.paired`)."""
    assert cycles(unit_graph()) == set(), "an import cycle among these units"


def test_no_domain_imports_the_pipeline():
    """At 689ac9b five domains (judges, evaluation, entropy, writing, judgelab) imported `pipeline`: for the claim
    vocabulary (then the claim table's `min_n`, `JudgeKind`, `REFERENCE_FIGURES`), the judge-validity records and
    the published record's reader. All three now live in the bottom layer (`claims`, `record_file`), the reference
    figures in `evaluation`; each domain declares its claims in the bottom layer's registry (`claims.declarations`), and
    only `pipeline` imports them all (`pipeline.claim_table`)."""
    assert upward(unit_graph()) == set()


BOTTOM = frozenset({"claims", "context", "hashing", "dataclass_json", "jsonl", "output_files", "paths", "record_file",
                    "stats"})
"""The bottom layer: the run's context and folders, files and hashes, a record's index file, the declaration of every
file a stage writes (`output_files`, which a claim's pilot reader names), statistics and the claim vocabulary
(`claims`: the claim's type, the verdicts and their rules, the registry the domains declare their claims in, how a
claim is sized from a pilot, the registration's reader, the judges' validity). Any layer may use it; it uses no
other."""


@pytest.mark.parametrize("unit", sorted(BOTTOM))
def test_the_bottom_layer_imports_nothing_above_it(unit):
    assert set(unit_graph().successors(unit)) - BOTTOM == set()
