"""The one place where scoring's adapters are wired: Redis and the event stream in the service, or any
:class:`ScoreStore` and :class:`StreamPublisher` in tests."""

from __future__ import annotations

from collections.abc import Mapping

import networkx as nx
from faststream.nats import NatsBroker

from turf_common import redisconn
from turf_common.board import Board, load_board
from turf_common.bus import EventPublisher, clock_kv
from turf_common.gameclock import WatchedGameClock
from turf_common.outbox import StreamPublisher
from turf_common.rules import gametime
from turf_common.rules.gametime import SeasonConfig
from turf_common.rules.prizes import PrizeTable
from turf_common.rules.scoring import TerritoryStats
from turf_common.seasonbook import SeasonBook
from turf_common.service import Wire, Wired
from turf_common.settings import Settings
from turf_scoring import entrypoints
from turf_scoring.adapters.redis_store import RedisScoreStore
from turf_scoring.handlers import GameNow, ScoringHandlers
from turf_scoring.ports import ScoreStore


def territory_stats(board: Board) -> dict[str, TerritoryStats]:
    """The R24 facts of every territory of ``board``."""
    return {tid: TerritoryStats(t.borders_water, t.land_area_m2, t.population) for tid, t in board.territories.items()}


def handlers(store: ScoreStore, publisher: StreamPublisher, graph: nx.Graph, stats: Mapping[str, TerritoryStats],
             prizes: PrizeTable | None = None, season: SeasonConfig | SeasonBook | None = None,
             clock: GameNow | None = None, home: str | None = None) -> ScoringHandlers:
    """The use cases over given adapters, on the board's adjacency ``graph`` (R22) and territory ``stats``.
    ``season``: the seasons played (R31), a book or one season (None: the configuration file's); the first
    season of a plain config or a fixed book keeps the store's own keys, else ``home``."""
    book = season if isinstance(season, SeasonBook) else SeasonBook.of(season or gametime.load_season())
    return ScoringHandlers(store=store, publisher=publisher, graph=graph, stats=stats,
                           prizes=prizes or PrizeTable.load(), book=book, clock=clock, home=home)


def wire(settings: Settings) -> Wire:
    """The app's start-up: the board, Redis (``TURF_REDIS_URL``, keys under ``TURF_REDIS_PREFIX``), the stream's
    publisher, then the subscribers. Redis is closed once the broker has stopped."""
    async def build(broker: NatsBroker) -> Wired:
        if not settings.redis_url:
            raise SystemExit("TURF_REDIS_URL is not set; start the stack with `turfwar up`")
        board = load_board(settings.board_dir)
        redis = redisconn.connect(settings.redis_url)
        # R31: every season of the catalog; the configuration file's keeps the store's keys of before seasons
        home = gametime.load_season(settings.season_file)
        book = SeasonBook(home, lambda: clock_kv(broker, settings.stream))
        clock = WatchedGameClock(lambda: clock_kv(broker, settings.stream))
        await book.start()
        await clock.start()
        h = handlers(RedisScoreStore(redis, settings.redis_prefix), EventPublisher(broker, settings.stream),
                     board.graph, territory_stats(board), season=book, clock=clock, home=home.season_id)

        async def close() -> None:
            await clock.close()
            await book.close()
            await redis.aclose()

        return Wired(router=entrypoints.router(h, settings.stream), close=close)

    return build
