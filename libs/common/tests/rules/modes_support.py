"""A scripted random source for the mode rules' unit tests: every draw answers from a script by label."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import networkx as nx
import pytest

from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource
from turf_common.rules.teamturf import Field, Order, TeamTurfState, give_order

#: the Team Turf tests' field:
#   a - b - c - d - e        counties: X = {a, b}, Y = {c, d, e, f}
#           |
#           f
GRAPH = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("c", "f")])
COUNTY = {"a": "X", "b": "X", "c": "Y", "d": "Y", "e": "Y", "f": "Y"}
FIELD = Field.from_graph(GRAPH, COUNTY)


class ScriptedSource(SeededSource):
    """``below(label, n)`` answers ``script[label]`` (default 0), so a die is ``script[label] + 1`` and a
    :meth:`chance` of 45 % is won with 0…44 and lost with 45…99. Records every label drawn."""

    def __init__(self, script: Mapping[str, int] | None = None) -> None:
        super().__init__("scripted", "test")
        object.__setattr__(self, "script", dict(script or {}))
        object.__setattr__(self, "drawn", [])

    def below(self, label: str, n: int) -> int:
        self.drawn.append(label)  # type: ignore[attr-defined]
        value = self.script.get(label, 0)  # type: ignore[attr-defined]
        assert 0 <= value < n, f"script {label}={value} outside [0, {n})"
        return int(value)


def order(s: TeamTurfState, oid: str, player: str, kind: str, src: str, dst: str, n: int) -> TeamTurfState:
    """``player``'s order ``oid`` on :data:`FIELD` for the open turn (T7)."""
    return give_order(s, FIELD, Order(oid, player, kind, src, dst, n), s.turn)  # type: ignore[arg-type]


def refused(code: str, fn: Callable[..., Any], *args: Any) -> None:
    """``fn(*args)`` is refused with reason ``code`` and a sentence."""
    with pytest.raises(ModeRefused) as e:
        fn(*args)
    assert e.value.code == code and e.value.message
