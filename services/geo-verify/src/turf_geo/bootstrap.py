"""The one place where geo-verify's adapters are wired: the real board, the trails in Redis, the game clock watched
in NATS KV and the claims service over NATS; any :class:`BoardIndex` and the fakes in tests."""

from __future__ import annotations

from faststream.nats import NatsBroker

from turf_common import redisconn
from turf_common.bus import clock_kv
from turf_common.gameclock import WatchedGameClock
from turf_common.rules import gametime
from turf_common.rules.claims import ClaimLimits
from turf_common.seasonbook import SeasonBook
from turf_common.service import Wire, Wired
from turf_common.settings import Settings
from turf_geo import entrypoints
from turf_geo.adapters.board import LoadedBoard
from turf_geo.adapters.claims import NatsClaims
from turf_geo.adapters.trail import RedisTrails
from turf_geo.claimpath import ClaimPath
from turf_geo.handlers import GeoHandlers
from turf_geo.ports import BoardIndex, ClaimsHandOn, Clock, Trails


def handlers(board: BoardIndex, limits: ClaimLimits | None = None, book: SeasonBook | None = None) -> GeoHandlers:
    """``limits``: R7's and R7.1's (the season configuration's, R1; RULINGS.md's values by default); ``book``:
    every season's, the season in force's at each instant (R31)."""
    return GeoHandlers(board=board, limits=limits or ClaimLimits(), book=book)


def claim_path(geo: GeoHandlers, trails: Trails, clock: Clock, claims: ClaimsHandOn,
               season: gametime.SeasonConfig | SeasonBook) -> ClaimPath:
    """The claim path's first stage over the given adapters (``season``: its zone, for the day's first fix; the
    book of every season in a running process, R31)."""
    return ClaimPath(geo=geo, trails=trails, clock=clock, claims=claims, season=season)


def wire(settings: Settings) -> Wire:
    """The app's start-up: load the board (a few seconds), watch the clock, then the subscribers."""
    async def build(broker: NatsBroker) -> Wired:
        assert settings.redis_url, "TURF_REDIS_URL is not set"
        season = gametime.load_season(settings.season_file)
        # R31: every season of the catalog (the clock's KV bucket), the file's alone until it is stored there
        book = SeasonBook(season, lambda: clock_kv(broker, settings.stream))
        await book.start()
        h = handlers(LoadedBoard.load(settings.board_dir), season.limits, book)
        clock = WatchedGameClock(lambda: clock_kv(broker, settings.stream))
        await clock.start()
        redis = redisconn.connect(settings.redis_url)
        path = claim_path(h, RedisTrails(redis, settings.redis_prefix), clock, NatsClaims(broker), book)

        async def close() -> None:
            await book.close()
            await clock.close()
            await redis.aclose()

        return Wired(router=entrypoints.router(h, settings.stream, path), close=close)

    return build
