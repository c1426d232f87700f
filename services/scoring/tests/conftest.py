"""Fixtures of the scoring service's tests; scoring_world.py (the handlers on fakes, the board's ownership as claims
reports it) is importable from every test folder here."""

from __future__ import annotations

from datetime import UTC, datetime

import networkx as nx
import pytest
from scoring_world import Game

from turf_common.rules.scoring import TerritoryStats


@pytest.fixture
def two_and_one() -> Game:
    """R25's small board: a - b adjacent (R22), c alone; a borders water, land and residents grow a < b < c; the
    clock at the 2026 season's close (22:00 UTC on its last day)."""
    graph = nx.Graph([("a", "b")])
    graph.add_node("c")
    stats = {"a": TerritoryStats(True, 10, 100), "b": TerritoryStats(False, 20, 200),
             "c": TerritoryStats(False, 30, 300)}
    return Game(graph, stats, datetime(2026, 10, 24, 22, 0, tzinfo=UTC))
