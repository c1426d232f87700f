"""The one place where the cards service's adapters are wired: PostgreSQL, the game clock in NATS KV, the claims
service over NATS and the outbox relay for the app; any fakes of the same ports in tests."""

from __future__ import annotations

from pathlib import Path

from faststream.nats import NatsBroker

from turf_cards import entrypoints
from turf_cards.adapters import tables
from turf_cards.adapters.claims import ClaimsRequester
from turf_cards.adapters.store import SqlCardsStore
from turf_cards.context import Cards
from turf_cards.handlers import CardsHandlers
from turf_cards.ports import CardsStore, ClaimsEffects, Clock
from turf_common.bus import EventPublisher, clock_kv
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import GameClockReader
from turf_common.outbox import OutboxFlush, OutboxRelay
from turf_common.rules import gametime
from turf_common.seasonbook import SeasonBook
from turf_common.service import Wire, Wired
from turf_common.settings import Settings, seed_refusal

MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)


def handlers(store: CardsStore, clock: Clock, claims: ClaimsEffects, relay: OutboxFlush,
             season: gametime.SeasonConfig | SeasonBook, seed: str) -> CardsHandlers:
    """The use cases over the given adapters; ``season``: the catalog (R31; one season alone is a fixed book of
    it), ``seed``: ``TURF_SEED``, from which each season's secret seed comes (R12.1)."""
    book = season if isinstance(season, SeasonBook) else SeasonBook.of(season)
    return CardsHandlers.create(Cards(store=store, clock=clock, relay=relay, book=book, seed=seed), claims)


def wire(settings: Settings) -> Wire:
    """The app's start-up: migrate, connect, publish what a crash left in the outbox and complete the sagas it left
    pending (before the subscribers start), then the subscribers; the outbox sweep and saga recovery run beside
    them."""
    async def build(broker: NatsBroker) -> Wired:
        assert settings.database_url, "TURF_DATABASE_URL is not set"
        if why := seed_refusal(settings.seed, settings.clock):   # R12.1: no public seed outside rehearsals
            raise RuntimeError(why)
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        engine = make_engine(settings.database_url)
        relay = OutboxRelay(engine, tables.outbox, EventPublisher(broker, settings.stream))
        # R31: every season of the catalog, as the clock keeps it in its KV bucket (the file's season until then)
        book = SeasonBook(gametime.load_season(settings.season_file), lambda: clock_kv(broker, settings.stream))
        await book.start()
        h = handlers(store=SqlCardsStore(engine),
                     clock=GameClockReader(lambda: clock_kv(broker, settings.stream)),
                     claims=ClaimsRequester(broker), relay=relay, season=book, seed=settings.seed)
        await h.hands.pin_seed()   # R12.1: the seed the season began on, or no start
        await relay.flush()        # anything a crash left behind
        await h.sagas.recover()    # sagas a crash left pending

        async def close() -> None:
            await book.close()
            await engine.dispose()

        return Wired(router=entrypoints.router(h, settings.stream), loops=[relay.run, h.sagas.recover_forever],
                     close=close)

    return build
