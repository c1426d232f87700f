"""The one place where the claims service's adapters are wired: PostgreSQL, the game clock watched in NATS KV and
the outbox relay in the app; fakes of the same ports in unit tests."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import networkx as nx
from faststream.nats import NatsBroker

from turf_claims import entrypoints
from turf_claims.adapters import tables
from turf_claims.adapters.store import SqlClaimsStore
from turf_claims.boards import Boards
from turf_claims.corrections import Corrections
from turf_claims.daymemory import DayMemory, DaySnapshot
from turf_claims.days import GameDays
from turf_claims.effects import CardEffects
from turf_claims.handlers import ClaimDecisions, ClaimsHandlers
from turf_claims.outlook import Outlooks
from turf_claims.ports import ClaimsStore, Clock
from turf_common.board import load_board
from turf_common.bus import EventPublisher, clock_kv
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import WatchedGameClock
from turf_common.outbox import OutboxFlush, OutboxRelay
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook
from turf_common.service import Wire, Wired
from turf_common.settings import Settings

MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)


def handlers(store: ClaimsStore, clock: Clock, relay: OutboxFlush, seasons: SeasonBook | gametime.SeasonConfig,
             names: dict[str, str], graph: nx.Graph | None = None) -> ClaimsHandlers:
    """The use cases over the given adapters. ``seasons``: the season book (R31: every season of the catalog; one
    season alone is a book of one); ``names``: the board's territory names by id; ``graph``: the board's
    adjacency (R20). R7 and R7.1 are geo-verify's, the claim path's stage before this service."""
    book = seasons if isinstance(seasons, SeasonBook) else SeasonBook.of(seasons)
    boards = Boards(book=book, store=store, names=names)
    days = GameDays(store=store, relay=relay, boards=boards)

    async def snapshot(day: date, now: datetime) -> DaySnapshot:
        return await store.day_snapshot(boards.season_of_day(day).season_id, day, now)   # R31: the day's board

    memory = DayMemory(snapshot)
    g = graph if graph is not None else nx.Graph()
    return ClaimsHandlers(
        claims=ClaimDecisions(store=store, relay=relay, clock=clock, boards=boards, names=names, days=days,
                             memory=memory),
        effects=CardEffects(store=store, clock=clock, boards=boards, names=names, graph=g, relay=relay,
                            days=days, memory=memory),
        corrections=Corrections(store=store, clock=clock, relay=relay, boards=boards, memory=memory),
        days=days,
        outlook=Outlooks(store=store, clock=clock, boards=boards, names=names))


def wire(settings: Settings) -> Wire:
    """The app's start-up: migrate, connect, watch the clock, seed the board's territories and retire the consumers
    of earlier versions, then the subscribers; the outbox sweep runs beside them."""
    async def build(broker: NatsBroker) -> Wired:
        assert settings.database_url, "TURF_DATABASE_URL is not set"
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        # The pool keeps as many connections as claims may hold at once (30, as make_engine's 10 + 20 overflow):
        # with a smaller pool, every burst of concurrent claims opened and closed overflow connections, a
        # PostgreSQL connect each.
        engine = make_engine(settings.database_url, pool_size=30, max_overflow=0)
        # the game clock in memory, kept current from NATS KV (no request per claim)
        clock = WatchedGameClock(lambda: clock_kv(broker, settings.stream))
        await clock.start()
        # R31: every season of the catalog (the clock's KV entry), followed as the organizer adds seasons
        book = SeasonBook(gametime.load_season(settings.season_file), lambda: clock_kv(broker, settings.stream))
        await book.start()
        relay = OutboxRelay(engine, tables.outbox, EventPublisher(broker, settings.stream))
        board = load_board(settings.board_dir)
        h = handlers(SqlClaimsStore(engine), clock, relay, book,
                     {tid: ter.name for tid, ter in board.territories.items()}, board.graph)
        await h.claims.seed_territories()

        async def close() -> None:
            await book.close()
            await clock.close()
            await engine.dispose()

        return Wired(router=entrypoints.router(h, settings.stream), loops=[relay.run], close=close)

    return build
