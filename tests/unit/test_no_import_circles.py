"""No import circle in the runtime tree: no module of libs/common/src, services/*/src, gateway/src, src/turfwar or
bench imports, directly or through others, a module that imports it back.

A circle makes the import order matter (whichever module Python reaches first sees the other half-built) and ties
two modules that should be one layer over the other. Imports inside functions count: one placed there only to dodge
a circle is the same circle, found later. Imports under ``if TYPE_CHECKING:`` never run and do not count."""

from __future__ import annotations

import networkx as nx

from tests.support.imports import imports, modules, resolve


def import_graph() -> nx.DiGraph:
    """The project's modules, an edge from each to every project module it imports (itself left out)."""
    known = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, path in known.items():
        for imported in imports(name, path):
            target = resolve(imported.target, known)
            if target is not None and target != name:
                graph.add_edge(name, target)
    return graph


def test_the_runtime_tree_is_read_whole() -> None:
    # a wrong root or a package left out would make the check below pass on nothing
    names = set(modules())
    for expected in ("turf_common.bus", "turf_claims.entrypoints", "turf_modes.handlers", "turf_gateway.main",
                     "turfwar.cli", "bench.probes"):
        assert expected in names


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = import_graph()
    # every module on some circle, however long; then the short circles through them, by name, to break
    tangled = sorted(m for group in nx.strongly_connected_components(graph) if len(group) > 1 for m in group)
    cycles = sorted(" -> ".join([*cycle, cycle[0]]) for cycle in nx.simple_cycles(graph, length_bound=6))
    assert tangled == [], "import circles:\n" + "\n".join(cycles or tangled)
