"""A modes service on fakes (memory store, fixed game clock, recording relay) and a five-town board for the
unit and contract tests: A–B–C–D–E in a row, A and B in county X, C, D and E in county Y."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import networkx as nx

from turf_common.contracts.base import Event, Refusal
from turf_common.testing import FakeClock, RecordingPublisher
from turf_modes.games import BoardFields
from turf_modes.handlers import ModesHandlers
from turf_modes.ports import ModesStore
from turf_modes.testing import MemoryModesStore

TOWNS = ("A", "B", "C", "D", "E")
COUNTY = {"A": "X", "B": "X", "C": "Y", "D": "Y", "E": "Y"}
SEED = "modes-unit-seed"
NOON = "2026-10-05T12:00:00-04:00"


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


def fields() -> BoardFields:
    g = nx.Graph()
    g.add_edges_from(itertools.pairwise(TOWNS))
    return BoardFields(g, COUNTY)


@dataclass
class World:
    h: ModesHandlers
    store: ModesStore
    clock: FakeClock
    relay: RecordingPublisher

    def events(self, subject: str) -> list[Event]:
        return [e for s, e in self.relay.sent if s == subject]


def world(store: ModesStore | None = None, now: str = NOON) -> World:
    store = store or MemoryModesStore()
    clock = FakeClock(at(now))
    drain = getattr(store, "drain", None)
    relay = RecordingPublisher(drain)
    counter = iter(range(1, 10**6))
    h = ModesHandlers(store=store, clock=clock, relay=relay, fields=fields(),
                      ids=lambda: f"id{next(counter)}", seeds=lambda: SEED)
    return World(h, store, clock, relay)


def ok(reply: Any) -> Any:
    """The reply, asserting it is no refusal."""
    assert not isinstance(reply, Refusal), reply
    return reply
