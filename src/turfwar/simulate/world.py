"""What every player can see of the board (GET /board and the answers to their own requests): owners,
fortification, today's locks, War reclaim windows. The bots plan on this picture."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import networkx as nx

from turf_common.board import Board
from turf_common.rules.scoring import clusters


@dataclass
class Steal:
    territory_id: str
    attacker: str
    victim: str
    at: datetime
    claim_id: str
    before: tuple[int, bool]        # the victim's (progress, fortified) before the steal


@dataclass
class World:
    board: Board
    owners: dict[str, str | None] = field(default_factory=dict)
    progress: dict[str, int] = field(default_factory=dict)
    fortified: dict[str, bool] = field(default_factory=dict)
    day: date | None = None
    prev_day: date | None = None
    locks: dict[str, str] = field(default_factory=dict)                 # today's normal claims: territory → who
    last_claim: dict[tuple[str, str], date] = field(default_factory=dict)  # (player, territory) → game day
    reclaim: dict[str, tuple[str, datetime]] = field(default_factory=dict)  # territory → (holder, until)
    frozen_today: set[str] = field(default_factory=set)                 # learnt from refusals
    blockades_today: set[tuple[str, str]] = field(default_factory=set)  # (owner, claimant) learnt from refusals
    steals: dict[str, Steal] = field(default_factory=dict)              # latest steal per territory
    drift: list[str] = field(default_factory=list)                      # the picture disagreed with GET /board

    def __post_init__(self) -> None:
        for tid in self.board.territories:
            self.owners.setdefault(tid, None)
            self.progress.setdefault(tid, 0)
            self.fortified.setdefault(tid, False)

    @property
    def graph(self) -> nx.Graph:
        return self.board.graph

    def new_day(self, day: date, prev: date | None) -> None:
        self.day, self.prev_day = day, prev
        self.locks.clear()
        self.frozen_today.clear()
        self.blockades_today.clear()

    def sync(self, geojson: dict[str, Any]) -> int:
        """Take the public board as truth; returns how many territories the picture had wrong."""
        wrong = 0
        for f in geojson["features"]:
            p = f["properties"]
            tid = p["id"]
            if self.owners.get(tid) != p["owner_id"]:
                wrong += 1
                self.drift.append(f"{self.day}: {tid} owner {self.owners.get(tid)} → {p['owner_id']}")
            self.owners[tid] = p["owner_id"]
            self.progress[tid] = int(p["progress"])
            self.fortified[tid] = bool(p["fortified"])
        return wrong

    # ---- changes the players saw happen --------------------------------------------------------------
    def claimed(self, pid: str, tid: str, kind: str, progress: int, fortified: bool, at: datetime,
                claim_id: str) -> str | None:
        """A claim was accepted; returns the victim of a steal."""
        victim = self.owners.get(tid)
        if kind == "steal" and victim and victim != pid:
            self.steals[tid] = Steal(tid, pid, victim, at, claim_id, (self.progress[tid], self.fortified[tid]))
        else:
            victim = None
        if kind == "war_reclaim":
            self.reclaim.pop(tid, None)
        else:
            self.locks.setdefault(tid, pid)
            assert self.day is not None
            self.last_claim[(pid, tid)] = self.day
        self.owners[tid] = pid
        self.progress[tid] = progress
        self.fortified[tid] = fortified
        return victim

    def set_owner(self, tid: str, owner: str | None, progress: int | None = None,
                  fortified: bool | None = None) -> None:
        self.owners[tid] = owner
        if progress is not None:
            self.progress[tid] = progress
        if fortified is not None:
            self.fortified[tid] = fortified

    # ---- questions ----------------------------------------------------------------------------------
    def owned(self, pid: str) -> set[str]:
        return {t for t, o in self.owners.items() if o == pid}

    def clusters(self, pid: str, owned: set[str] | None = None) -> list[set[str]]:
        return clusters(self.graph, self.owned(pid) if owned is None else owned)

    def base(self, pid: str, owned: set[str] | None = None) -> int:
        cl = self.clusters(pid, owned)
        return len(cl[0]) if cl else 0

    def neighbours(self, tid: str) -> set[str]:
        return set(self.graph.neighbors(tid))

    def edge(self, cluster: set[str]) -> set[str]:
        """Territories next to ``cluster`` and outside it."""
        out: set[str] = set()
        for t in cluster:
            out |= self.neighbours(t)
        return out - cluster

    def gain_if_added(self, pid: str, tid: str, comps: list[set[str]]) -> int:
        """How much ``pid``'s base score grows when it gains ``tid`` (R23): merge the clusters it touches."""
        nb = self.neighbours(tid)
        merged = 1 + sum(len(c) for c in comps if c & nb)
        current = len(comps[0]) if comps else 0
        return max(0, merged - current)

    def loss_if_removed(self, pid: str, tid: str, comps: list[set[str]]) -> int:
        """How much ``pid``'s base score drops when it loses ``tid``."""
        if not comps or tid not in comps[0]:
            return 0
        rest = comps[0] - {tid}
        after = max([len(c) for c in clusters(self.graph, rest)] + [len(c) for c in comps[1:]] + [0])
        return len(comps[0]) - after

    def reclaim_blocks(self, pid: str, tid: str, now: datetime) -> bool:
        r = self.reclaim.get(tid)
        return r is not None and r[0] != pid and r[1] > now
