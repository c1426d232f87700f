"""Fakes of geo-verify's ports for unit tests (here and in the claims service's, whose World runs the whole claim
path in memory): a board of placed points, the trails in memory, the claims service as a function."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from turf_common.board.loader import Location
from turf_common.contracts.base import Message
from turf_common.contracts.geo import VerifiedClaim
from turf_common.rules.antispoof import FixRecord
from turf_geo.ports import TrailBefore, Unavailable


@dataclass
class PointsBoard:
    r""":class:`turf_geo.ports.BoardIndex` of the points :meth:`place`\ d: each lies in its territory, any other off
    the board."""

    points: dict[tuple[float, float], tuple[str, float | None]] = field(default_factory=dict)

    def place(self, lat: float, lon: float, territory_id: str, border_distance_m: float | None = 250.0) -> None:
        self.points[(lat, lon)] = (territory_id, border_distance_m)

    def locate(self, lat: float, lon: float) -> Location:
        tid, border = self.points.get((lat, lon), (None, None))
        return Location(tid, border)

    def name_of(self, territory_id: str) -> str:
        return territory_id


@dataclass
class MemoryTrails:
    """:class:`turf_geo.ports.Trails` in memory (oldest fix first per player); ``down``: every join raises
    :class:`Unavailable`, as when Redis does not answer."""

    trails: dict[str, list[FixRecord]] = field(default_factory=dict)
    down: bool = False

    async def join(self, player_id: str, fix: FixRecord, since: datetime, limit: int) -> TrailBefore:
        if self.down:
            raise Unavailable("trail: ConnectionError")
        trail = self.trails.setdefault(player_id, [])
        before = TrailBefore([f for f in trail[-limit:] if f.received_at >= since], trail[-1] if trail else None)
        trail.append(fix)
        del trail[:-limit]
        return before

    async def fixes(self, player_id: str) -> list[FixRecord]:
        if self.down:
            raise Unavailable("trail: ConnectionError")
        return list(self.trails.get(player_id, []))

    async def erase(self, player_id: str | None) -> int:
        if self.down:
            raise Unavailable("trail: ConnectionError")
        gone = [p for p in self.trails if player_id is None or p == player_id]
        return sum(len(self.trails.pop(p)) for p in gone)


@dataclass
class FunctionClaims:
    """:class:`turf_geo.ports.ClaimsHandOn` answered by ``answer(subject, claim)`` in process (its reply encoded as the
    bus would); :attr:`asked` keeps what was handed on; ``down``: raises :class:`Unavailable`."""

    answer: Callable[[str, VerifiedClaim], Awaitable[Message]]
    asked: list[tuple[str, VerifiedClaim]] = field(default_factory=list)
    down: bool = False

    async def ask(self, subject: str, claim: VerifiedClaim, within: float | None = None) -> bytes:
        if self.down:
            raise Unavailable(f"{subject}: NoRespondersError")
        self.asked.append((subject, claim))
        return (await self.answer(subject, claim)).model_dump_json().encode()
