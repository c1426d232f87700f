"""The claims use cases on fakes, for the unit tests (issue 28: one World in place of four): the handlers wired by
bootstrap over the in-memory store (:mod:`turf_claims.testing`), the shared fake clock and recording publisher
(:mod:`turf_common.testing`)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from turf_claims import bootstrap
from turf_claims.handlers import Handlers
from turf_claims.testing import MemoryClaimsStore, PointsGeo
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, Fix, SubmitClaim
from turf_common.contracts.clock import DayStarted
from turf_common.rules import gametime
from turf_common.testing import FakeClock, RecordingPublisher

SEASON = gametime.load_season()
DAY1, DAY2, DAY3, DAY4 = gametime.game_days(SEASON)[:4]
NAMES = {"hoboken": "Hoboken", "jersey": "Jersey City", "newark": "Newark"}


def opening(day: date) -> datetime:
    return gametime.open_interval(SEASON, day)[0]


class World:
    """The handlers over fresh fakes, the clock one hour into DAY1's open hours; :meth:`start` moves the clock into
    a day and runs its day start (R5)."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.store = MemoryClaimsStore()
        self.clock = clock or FakeClock(opening(DAY1) + timedelta(hours=1))
        self.publisher = RecordingPublisher(self.store.take_staged)
        # geo-verify on the World's board: each command's point lies in the territory it names (see cmd), and
        # (40.0, -74.0), the point the tests' own commands use, in Hoboken
        self.geo = PointsGeo(SEASON.limits)
        self.geo.place(40.0, -74.0, "hoboken")
        self.h: Handlers = bootstrap.handlers(self.store, self.clock, self.publisher, SEASON, NAMES, self.geo)
        self.n = 0

    async def start(self, day: date, at: datetime | None = None, hours: float = 1) -> None:
        self.clock.at = at or opening(day) + timedelta(hours=hours)
        await self.h.on_event(DayStarted(occurred_at=opening(day), at=opening(day), game_day=day,
                                         game_day_number=1, week=1, season_id="s"))

    def cmd(self, player: str, territory: str, *, where: tuple[float, float] | None = None, key: str | None = None,
            fix_age_s: float = 3, accuracy_m: float = 10.0) -> SubmitClaim:
        """A verified player's claim of ``territory`` from ``where`` (else a point of its own, a few metres from the
        last), its fix ``fix_age_s`` old; the point lies in ``territory``, 250 m from its border."""
        self.n += 1
        lat, lon = where or (40.0 + self.n / 1e4, -74.0)
        self.geo.place(lat, lon, territory)
        return SubmitClaim(player_id=player, player_status="verified",
                           fix=Fix(lat=lat, lon=lon, accuracy_m=accuracy_m,
                                   fix_time=self.clock.at - timedelta(seconds=fix_age_s)), idempotency_key=key)

    async def claim(self, player: str, territory: str, key: str | None = None) -> ClaimAcceptedReply | Refusal:
        return await self.h.claims.submit(self.cmd(player, territory, key=key))

    async def check(self, player: str, territory: str) -> CheckReply | Refusal:
        return await self.h.claims.check(self.cmd(player, territory))

    def owner(self, territory: str) -> str | None:
        return self.store.state.territories[territory].owner_id

    def sent(self, subject: str) -> list[Event]:
        """The published events of ``subject``, in order."""
        return [e for s, e in self.publisher.sent if s == subject]


async def world(clock: FakeClock | None = None) -> World:
    """A World whose board is seeded and whose DAY1 has started."""
    w = World(clock)
    await w.h.claims.seed_territories()
    await w.start(DAY1)
    return w


def accepted(r: object, kind: str) -> ClaimAcceptedReply:
    """``r``, asserted to be an accepted claim of ``kind``."""
    assert isinstance(r, ClaimAcceptedReply) and r.kind == kind, r
    return r


def refused(r: object, reason: str) -> None:
    assert isinstance(r, Refusal) and r.reason == reason, r
