"""`llm/` has no import cycle: its modules' imports, those inside functions included, form an acyclic graph."""

from __future__ import annotations

import ast
from pathlib import Path

import llmcreativity.llm

LLM = Path(llmcreativity.llm.__file__).parent
MODULES = {p.stem for p in LLM.glob("*.py")} - {"__init__"}
"""The package's modules; `__init__` (the public API, which imports them all) is not one of the graph's nodes."""


def imported_modules(source: str) -> set[str]:
    """The `llm` modules `source` imports anywhere, at the top or inside a function: `from .x import y`,
    `from . import x`, `from llmcreativity.llm.x import y` and `import llmcreativity.llm.x`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[:2] == ["llmcreativity", "llm"]:
                found |= {parts[2]} if len(parts) > 2 else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("llmcreativity.llm.")}
    return found & MODULES


def import_graph() -> dict[str, set[str]]:
    """Module -> the `llm` modules it imports."""
    return {m: imported_modules((LLM / f"{m}.py").read_text()) - {m} for m in sorted(MODULES)}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of `graph` as a path that ends where it starts, or [] when the graph is acyclic (depth-first search)."""
    state: dict[str, str] = {}  # "open" while on the search path, "done" once every successor is explored
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return []


def test_the_llm_modules_import_each_other_without_a_cycle():
    cycle = find_cycle(import_graph())
    assert cycle == [], "import cycle in llm/: " + " -> ".join(cycle)


def test_imports_inside_functions_count_and_a_cycle_is_found():
    lazy = "def load():\n    from .transformers_local import TransformersBackend\n"
    assert imported_modules(lazy) == {"transformers_local"}
    assert imported_modules("from . import spot_check\nimport llmcreativity.llm.roles\n") == {"spot_check", "roles"}
    assert find_cycle({"roles": {"loader"}, "loader": {"registry", "roles"}, "registry": set()}) == \
        ["loader", "roles", "loader"]
    assert find_cycle({"roles": {"local_models"}, "local_models": {"registry"}, "registry": set()}) == []
