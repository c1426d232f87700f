"""Territory names for the texts, from the committed board's display file (names only: no geometry kept)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from turf_common.board import read_features
from turf_common.board.loader import DEFAULT_BOARD_DIR
from turf_common.rules.medals import BoardFacts


def _features(d: Path) -> list[dict[str, Any]]:
    """The board's features: those the warm process parsed (a notify forked from it), else parsed for this call
    and not kept (notify keeps the names and facts, not the geometry)."""
    return read_features(d / "display.geojson" if (d / "display.geojson").exists() else d / "territories.geojson",
                         keep=False)


def town_names(board_dir: Path | None = None) -> dict[str, str]:
    """territory id → municipality name."""
    return {str(f["properties"]["id"]): str(f["properties"]["name"])
            for f in _features(Path(board_dir or DEFAULT_BOARD_DIR))}


def board_facts(board_dir: Path | None = None) -> BoardFacts:
    """What the medals read of the board (each town's county and state, R21; the adjacency, R22), from the
    committed files without their geometry."""
    d = Path(board_dir or DEFAULT_BOARD_DIR)
    props = [f["properties"] for f in _features(d)]
    with open(d / "adjacency.json", encoding="utf-8") as fh:
        edges = json.load(fh)["edges"]
    graph = nx.Graph()
    graph.add_nodes_from(str(p["id"]) for p in props)
    graph.add_edges_from((str(e["a"]), str(e["b"])) for e in edges)
    return BoardFacts({str(p["id"]): f"{p['county']}, {p['state']}" for p in props}, graph)
