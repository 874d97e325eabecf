"""The package's layout: folders depend downwards only, no import cycles, small modules and functions.

Every ``import`` of the package counts, those under ``if TYPE_CHECKING:`` and inside functions too: a
folder that needs a type from one above it is in the wrong place.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parent.parent / "lambdarag"
# Lowest first: a part may import its own folder and the parts before it, never one after it.
LAYERS = (
    "errors", "records", "scope", "options", "progress",
    "text", "config", "models", "feedback", "ingest", "graph", "wiki", "channels",
    "query", "retrieval", "answer", "faq", "pipeline", "build", "evaluation", "tuning", "demo",
    "server", "commands", "cli", "__main__",
)
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 40


def modules() -> Iterator[tuple[str, Path]]:
    """Every module of the package as (dotted name, path)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def imported(name: str, path: Path) -> Iterator[str]:
    """The package modules (or packages) a module imports, absolute and relative alike."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "lambdarag")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] == "lambdarag":
                yield base
                yield from (f"{base}.{a.name}" for a in node.names)


def part(dotted: str) -> str:
    """The layer a module belongs to: its first name below the package."""
    pieces = dotted.split(".")
    return pieces[1] if len(pieces) > 1 else ""


def import_graph() -> nx.DiGraph:
    names = dict(modules())
    graph = nx.DiGraph()
    for name, path in names.items():
        graph.add_node(name)
        for target in imported(name, path):
            if target in names and target != name:
                graph.add_edge(name, target)
    return graph


def test_every_part_has_a_layer() -> None:
    parts = {part(name) for name, _ in modules()} - {""}
    assert parts <= set(LAYERS), f"add these to LAYERS in their place: {sorted(parts - set(LAYERS))}"


def test_parts_import_only_parts_below_them() -> None:
    rank = {p: i for i, p in enumerate(LAYERS)}
    upward = [
        f"{src} imports {dst}"
        for src, dst in import_graph().edges
        if part(dst) and part(src) and rank[part(dst)] > rank[part(src)]
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles() -> None:
    graph = import_graph()
    # a package's __init__ re-exporting its own modules is not a cycle of meaning
    graph.remove_edges_from([(s, d) for s, d in list(graph.edges) if d.startswith(s + ".")])
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, "\n".join(" → ".join(c) for c in cycles[:10])


def test_modules_and_functions_stay_small() -> None:
    too_long = []
    for name, path in modules():
        source = path.read_text(encoding="utf-8")
        if source.count("\n") > MAX_MODULE_LINES:
            too_long.append(f"{name}: {source.count(chr(10))} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}.{node.name}: {length} lines")
    assert not too_long, "\n".join(too_long)


def test_the_package_root_holds_only_foundations() -> None:
    loose = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert loose == sorted(p for p in LAYERS if (PACKAGE / f"{p}.py").exists())
    assert set(loose) <= {"errors", "records", "scope", "options", "progress", "cli", "__main__"}
