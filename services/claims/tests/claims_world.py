"""The claims use cases on fakes, for the unit tests (one World in place of four): the handlers wired by
bootstrap over the in-memory store (:mod:`turf_claims.testing`), the shared fake clock and recording publisher
(:mod:`turf_common.testing`), behind the claim path's first stage, geo-verify's, on its fakes (:mod:`turf_geo
.testing`: a board of placed points, the trails in memory), as the gateway's claims and checks go."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from turf_claims import bootstrap
from turf_claims.handlers import ClaimsHandlers
from turf_claims.testing import MemoryClaimsStore
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Message, Refusal, decode_reply
from turf_common.contracts.claims import CheckReply, ClaimAcceptedReply, Fix, SubmitClaim
from turf_common.contracts.clock import DayStarted
from turf_common.contracts.geo import VerifiedClaim
from turf_common.rules import gametime
from turf_common.rules.antispoof import FixRecord
from turf_common.seasonbook import SeasonBook
from turf_common.testing import FakeClock, RecordingPublisher
from turf_geo import bootstrap as geo_bootstrap
from turf_geo.testing import FunctionClaims, MemoryTrails, PointsBoard

SEASON = gametime.load_season()
DAY1, DAY2, DAY3, DAY4 = gametime.game_days(SEASON)[:4]
NAMES = {"hoboken": "Hoboken", "jersey": "Jersey City", "newark": "Newark"}


def opening(day: date) -> datetime:
    return gametime.open_interval(SEASON, day)[0]


class World:
    """The handlers over fresh fakes, the clock one hour into DAY1's open hours; :meth:`start` moves the clock into
    a day and runs its day start (R5)."""

    def __init__(self, clock: FakeClock | None = None, seasons: SeasonBook | None = None) -> None:
        self.store = MemoryClaimsStore()
        self.clock = clock or FakeClock(opening(DAY1) + timedelta(hours=1))
        self.relay = RecordingPublisher(self.store.take_staged)
        # geo-verify on the World's board: each command's point lies in the territory it names (see cmd), and
        # (40.0, -74.0), the point the tests' own commands use, in Hoboken
        self.geo = PointsBoard()
        self.geo.place(40.0, -74.0, "hoboken")
        self.trails = MemoryTrails()
        self.h: ClaimsHandlers = bootstrap.handlers(self.store, self.clock, self.relay, seasons or SEASON, NAMES)
        self.handed_on = FunctionClaims(self._claims_answer)
        self.path = geo_bootstrap.claim_path(geo_bootstrap.handlers(self.geo, SEASON.limits), self.trails,
                                             self.clock, self.handed_on, SEASON)
        self.n = 0

    async def _claims_answer(self, subject: str, v: VerifiedClaim) -> Message:
        return await (self.h.claims.submit(v) if subject == subjects.CLAIMS_VERIFIED_SUBMIT else self.h.claims.check(v))

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
        return await self.submit(self.cmd(player, territory, key=key))

    async def check(self, player: str, territory: str) -> CheckReply | Refusal:
        return await self.check_cmd(self.cmd(player, territory))

    async def submit(self, cmd: SubmitClaim) -> ClaimAcceptedReply | Refusal:
        """``cmd`` down the claim path, as the gateway's ``claims.submit``: geo-verify, then the claims service."""
        return decode_reply(await self.path.submit(cmd), ClaimAcceptedReply)  # type: ignore[return-value]

    async def check_cmd(self, cmd: SubmitClaim) -> CheckReply | Refusal:
        """``cmd`` down the claim path, as the gateway's ``claims.check``."""
        return decode_reply(await self.path.check(cmd), CheckReply)  # type: ignore[return-value]

    def fixes(self) -> list[tuple[str, FixRecord]]:
        """Every player's trail as geo-verify keeps it: (player, fix), a player's fixes in the order received."""
        return [(pid, f) for pid, trail in self.trails.trails.items() for f in trail]

    def owner(self, territory: str) -> str | None:
        return self.store.state.territories[territory].owner_id

    def sent(self, subject: str) -> list[Event]:
        """The published events of ``subject``, in order."""
        return [e for s, e in self.relay.sent if s == subject]


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
