"""Scoring on fakes, written once for the unit tests: its handlers over a fresh memory store and a
recording publisher on a small board, and the board's ownership as the claims service would report it."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import networkx as nx

from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import SeasonEnded
from turf_common.contracts.players import PlayerVerified
from turf_common.contracts.scoring import FinalResults
from turf_common.rules.scoring import TerritoryStats
from turf_common.testing import RecordingPublisher
from turf_scoring import bootstrap
from turf_scoring.handlers import ScoringHandlers
from turf_scoring.testing import MemoryScoreStore


class Game:
    """The handlers on ``graph`` (R22 adjacency) and ``stats`` (R24's tie-breaks), their clock at ``at``."""

    def __init__(self, graph: nx.Graph, stats: dict[str, TerritoryStats], at: datetime) -> None:
        self.at = at
        self.store = MemoryScoreStore()
        self.bus = RecordingPublisher()
        self.h: ScoringHandlers = bootstrap.handlers(self.store, self.bus, graph, stats)
        self.h.now = lambda: at
        self.owner: dict[str, str | None] = {}
        self.version: dict[str, int] = {}

    def change(self, tid: str, pid: str | None) -> TerritoryChanged:
        """The next ``territory.changed`` of ``tid`` (its version counted up), now owned by ``pid``."""
        self.version[tid] = self.version.get(tid, 0) + 1
        ev = TerritoryChanged(occurred_at=self.at, territory_id=tid, owner_id=pid,
                              previous_owner_id=self.owner.get(tid), progress=1, fortified=False,
                              version=self.version[tid], cause="claim")
        self.owner[tid] = pid
        return ev

    async def claim(self, tid: str, pid: str | None) -> dict[str, Any]:
        """``tid`` applied as owned by ``pid``; the ``score.updated`` it published."""
        assert await self.h.apply(self.change(tid, pid)) is True
        return self.bus.last(subjects.SCORE_UPDATED)

    async def own(self, tid: str, pid: str | None) -> None:
        """``tid`` owned by ``pid``, through the consumer's entry point."""
        await self.h.on_event(self.change(tid, pid))

    async def verify(self, pid: str) -> PlayerVerified:
        ev = PlayerVerified(occurred_at=self.at, player_id=pid, at=self.at)
        await self.h.on_event(ev)
        return ev

    async def close(self) -> SeasonEnded:
        """The 2026 season's end (its 18th game day, 2026-10-24) at the game's clock."""
        ev = SeasonEnded(occurred_at=self.at, at=self.at, game_day=date(2026, 10, 24), game_day_number=18, week=3,
                         season_id="2026")
        await self.h.on_event(ev)
        return ev

    async def final(self) -> list[tuple[int, str, int, str]]:
        """The final standings as (place, player, total, prize)."""
        res = await self.h.results()
        assert isinstance(res, FinalResults)
        return [(s.place, s.player_id, s.total, s.prize) for s in res.standings]
