"""The one place where the gateway's adapters are wired (PostgreSQL, Redis, the services over NATS) into its use
cases: :func:`wire` over any :class:`Adapters` (fakes in unit tests), :func:`start` with the real ones."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from faststream.nats import NatsBroker

from turf_common import bus, metrics, redisconn, tracing
from turf_common.board import Board, load_board
from turf_common.bus import (
    EventPublisher,
    clock_kv,
    feed_stream,
    jetstream,
    make_broker,
    quiet_faststream,
)
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import SteadyGameClock
from turf_common.logs import configure
from turf_common.outbox import OutboxRelay
from turf_common.rules import gametime
from turf_common.rules import seasons as season_rules
from turf_common.rules.medals import MedalSet
from turf_common.rules.prizes import PrizeTable
from turf_common.seasonbook import SeasonBook
from turf_common.settings import Settings, organizer_password_refusal, password_hash_refusal, seed_refusal
from turf_gateway.adapters import passwords, readiness, session_revocation, tables
from turf_gateway.adapters.correction_store import SqlCorrectionLog
from turf_gateway.adapters.feed_log import SqlFeedLog
from turf_gateway.adapters.feed_stream import NatsFeedStream
from turf_gateway.adapters.flag_store import SqlFlagClearances
from turf_gateway.adapters.geocoding import Geocoder, make_geocoder
from turf_gateway.adapters.idempotency import RedisIdempotencyKeys
from turf_gateway.adapters.outboxbus import COMMANDS, OutboxBus
from turf_gateway.adapters.passwords import use_profile
from turf_gateway.adapters.player_store import SqlPlayers, SqlSessions
from turf_gateway.adapters.ratelimit import RateLimiter, parse_limits
from turf_gateway.adapters.readiness import Check, Readiness
from turf_gateway.adapters.season_store import SqlSeasons
from turf_gateway.adapters.services import NatsServices
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.adapters.tokens import SqlAccountTokens
from turf_gateway.feed import log as feed_log
from turf_gateway.feed import relay
from turf_gateway.feed.state import FeedState
from turf_gateway.handlers import password_policy
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.handlers.cards import Cards
from turf_gateway.handlers.claims import Claims
from turf_gateway.handlers.clock import ManualClock
from turf_gateway.handlers.corrections import Corrections
from turf_gateway.handlers.exports import Exports
from turf_gateway.handlers.flags import Flags
from turf_gateway.handlers.history import History
from turf_gateway.handlers.modes import Modes
from turf_gateway.handlers.myaccount import MyAccount
from turf_gateway.handlers.mydata import MyData
from turf_gateway.handlers.notifications import Notifications
from turf_gateway.handlers.outlook import Outlook
from turf_gateway.handlers.players import Players, Sessions
from turf_gateway.handlers.profiles import Profiles
from turf_gateway.handlers.public import Public
from turf_gateway.handlers.resultsmail import ResultsMail
from turf_gateway.handlers.retention import Retention
from turf_gateway.handlers.seasons import Seasons
from turf_gateway.handlers.session_idle import IdlePolicy
from turf_gateway.ports import (
    AccountTokens,
    CorrectionLog,
    FeedLog,
    FeedStream,
    FlagClearances,
    GameClock,
    IdempotencyKeys,
    PlayerStore,
    Revocations,
    SeasonStore,
    Services,
    SessionStore,
)
from turf_gateway.state import AppState
from turf_gateway.testing import MemorySeasons

MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)


@dataclass
class Adapters:
    """Every port the use cases need, real or fake."""

    services: Services
    players: PlayerStore
    sessions: SessionStore
    corrections: CorrectionLog
    clearances: FlagClearances
    revocations: Revocations
    keys: IdempotencyKeys
    limiter: RateLimiter
    geocoder: Geocoder
    clock: GameClock
    relay: OutboxRelay
    idle: Callable[[], Awaitable[None]]   # every event handled by every consumer (the manual clock's moves)
    feed_log: FeedLog
    feed_stream: FeedStream
    tokens: AccountTokens   # R30: the mailed links' tokens
    seasons: SeasonStore = field(default_factory=MemorySeasons)   # R31: the organizer's seasons, the joins
    #: GET /ready's checks, by server (readiness.checks for the real connections)
    checks: dict[str, Check] = field(default_factory=dict)


def wire(settings: Settings, board: Board, season: gametime.SeasonConfig, a: Adapters,
         cache: SessionCache[Any]) -> AppState:
    """The gateway's state: the use cases over ``a``. R31: they play by ``book``, the calendars of the seasons'
    catalog (the configuration file's ``season`` until the catalog is first read), season by season."""
    book = SeasonBook(season)
    feed = FeedState()   # the relay moves it on, the public reads keep their board body and leaderboard in it
    idle = IdlePolicy(timedelta(hours=settings.session_idle_hours),
                      timedelta(hours=settings.organizer_session_idle_hours))
    accounts = Accounts(a.players, a.tokens, a.revocations, a.services, a.limiter, settings.base_url(),
                        relay=a.relay, clock=a.clock)
    players = Players(a.players, a.sessions, a.revocations, a.services, a.limiter, a.geocoder, board, a.clock, book,
                      a.relay, timedelta(hours=settings.session_ttl_hours), accounts, idle=idle, profiles=cache)
    public = Public(a.services, a.players, board, book, a.clock, settings.clock, settings.seed, feed)
    notifications = Notifications(a.services, a.limiter, a.clock, rehearsal=settings.clock == "manual",
                                  players=a.players)
    seasons = Seasons(a.seasons, a.players, a.clock, settings.seed, a.services, a.revocations, a.relay, book)
    claims = Claims(a.services, a.limiter, a.keys)
    history, cards = History(a.feed_log, a.players, board, book, a.clock), Cards(a.services, a.players)
    players.seasons = public.seasons = claims.seasons = history.seasons = cards.seasons = seasons

    async def closing() -> str:   # season.final_results comes as the season in force closes
        return (await seasons.archive(None)).season_id or season.season_id
    mydata = MyData(players, notifications, cards, history)
    return AppState(
        settings=settings, readiness=Readiness(a.checks), limiter=a.limiter, feed_stream=a.feed_stream,
        claims=claims, players=players, accounts=accounts,
        myaccount=MyAccount(players, accounts), mydata=mydata,
        sessions=Sessions(a.sessions, cache, idle),
        corrections=Corrections(a.services, a.corrections, a.players, board, a.clock, book, a.relay),
        flags=Flags(a.services, a.clearances, a.clock, book, a.corrections),
        clock_moves=ManualClock(a.services, a.players, a.idle),
        history=history, modes=Modes(a.services, a.keys, a.limiter, a.players), public=public,
        exports=Exports(a.services, a.players, board, book, public, players), cards=cards,
        notifications=notifications,
        outlook=Outlook(a.services), feed=feed,
        profiles=Profiles(a.feed_log, a.players, board, book, a.clock, MedalSet.load(settings.medals_file),
                          public, seasons),
        results_mail=ResultsMail(a.players, a.services, public.results, closing), seasons=seasons)


def _refuse_unsafe(settings: Settings) -> None:
    # The public seed (R12.1) and the well-known organizer password are for manual-clock rehearsals
    # only (the password on loopback only too): refused before anything is touched
    if why := (seed_refusal(settings.seed, settings.clock) or organizer_password_refusal(
            settings.organizer_password, settings.clock, settings.http_host) or password_hash_refusal(
            settings.password_hash, settings.clock, settings.http_host)):
        raise RuntimeError(why)
    assert settings.nats_url and settings.database_url, "TURF_NATS_URL and TURF_DATABASE_URL must be set"


async def start(settings: Settings) -> tuple[AppState, Callable[[], Awaitable[None]]]:
    """Migrate, connect, wire the real adapters, make the organizer, start the feed; the state and its stop."""
    _refuse_unsafe(settings)
    assert settings.nats_url and settings.database_url
    use_profile(settings.password_hash)
    passwords.configure(settings.password_queue, settings.password_queue_per_client)
    # the common-password list (0.7 s, 14 MB) is read now, off the loop, not at the first registration
    common = asyncio.create_task(asyncio.to_thread(password_policy.common_passwords))
    configure("gateway", settings.log_level)
    metrics.SERVICE["name"] = "gateway"
    tracing.setup("gateway")
    run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
    quiet_faststream()
    # no per-message span or metrics: the gateway serves no command, and its feed relays every event
    broker = make_broker(settings.nats_url, "gateway", observe=False)
    await broker.connect()
    await clock_kv(broker, settings.stream)   # waits for the bus set-up (turfwar.bussetup)
    # A request holds a connection for its session lookup while the loop is busy with others, so under
    # load tens are out at once; beyond pool_size each one returned is closed and the next one reconnects (a
    # scram-sha-256 handshake on both sides: 0.175 connects per claim with 20, 0.023 with 40). No overflow: a
    # request beyond 40 waits for a connection, which costs less than making one (and bounds the total)
    engine = make_engine(settings.database_url, pool_size=40, max_overflow=0)
    redis = redisconn.connect(settings.redis_url) if settings.redis_url else None
    season = gametime.load_season(settings.season_file)
    # Session lookups kept for a few seconds, dropped on sign-out and status changes (session_cache.py)
    cache: SessionCache[Any] = SessionCache(settings.session_cache_s)
    board = load_board(settings.board_dir)
    players, services = SqlPlayers(engine), NatsServices(broker)
    adapters = Adapters(
        services=services, players=players, sessions=SqlSessions(engine),
        corrections=SqlCorrectionLog(engine, season.tz), clearances=SqlFlagClearances(engine),
        revocations=session_revocation.NatsRevocations(broker, cache),
        keys=RedisIdempotencyKeys(redis, settings.redis_prefix),
        limiter=RateLimiter(redis, parse_limits(settings.rate_limits), settings.redis_prefix),
        geocoder=make_geocoder(settings.geocoder),
        # R31: a claim of a player who has not joined every season reads the clock (not_joined); a running clock's
        # state is kept, so that read costs no round trip
        clock=SteadyGameClock(lambda: clock_kv(broker, settings.stream)),
        # R30: the outbox also holds the mail requests staged with their tokens, asked of notify (OutboxBus)
        relay=OutboxRelay(engine, tables.outbox, OutboxBus(EventPublisher(broker, settings.stream), services),
                          forget=list(COMMANDS)),
        idle=lambda: bus.wait_idle(broker, settings.stream, timeout=60), feed_log=SqlFeedLog(engine),
        tokens=SqlAccountTokens(engine), seasons=SqlSeasons(engine),
        checks=readiness.checks(broker, engine, redis),
        feed_stream=NatsFeedStream(broker, feed_stream(settings.stream), settings.ws_resend_max,
                                   relay.feed_subjects()))
    state = wire(settings, board, season, adapters, cache)
    sweeper = asyncio.create_task(adapters.relay.run())
    # R30: home addresses and location fixes erased TURF_ERASE_AFTER_DAYS after the season's close
    keeper = asyncio.create_task(Retention(adapters.players, adapters.services, adapters.clock,
                                           state.seasons.book or season, settings.erase_after_days).run())
    await state.players.ensure_organizer(settings.organizer_email, settings.organizer_password)
    # R31: the configuration file's season is the catalog's first (its card seed is TURF_SEED itself, R12.1)
    await state.seasons.ensure(season_rules.from_config(season, PrizeTable.load().places, settings.seed))
    teller = asyncio.create_task(state.seasons.keep_clock_told())
    await SqlSessions(engine).purge(datetime.now(UTC))   # and at sign-ins, once a minute at most
    await common
    await _start_feed(state, broker, board, cache, players.renamed)

    async def stop() -> None:
        # uvicorn has finished the requests in flight; the sweep ends, what they committed is published, then the
        # feed stops and the connection drains, and only then the pool closes
        for task in (sweeper, keeper, teller):
            task.cancel()
        await asyncio.gather(sweeper, keeper, teller, return_exceptions=True)
        with contextlib.suppress(Exception):
            await adapters.relay.flush()
        await broker.stop()
        if redis is not None:
            await redis.aclose()
        await engine.dispose()

    return state, stop


async def _start_feed(state: AppState, broker: NatsBroker, board: Board, cache: SessionCache[Any],
                      renamed: Callable[[str, str], None]) -> None:
    # The feed reads the feed stream (the public subjects alone, sourced from the event stream by the bus
    # set-up), the only stream the gateway's NATS user may make consumers on; its sequences are the feed's seq
    stream = feed_stream(state.settings.stream)
    # the feed starts right after the stream's last event, and so does the hub: a spectator's first snapshot
    # reflects that sequence, and every later event reaches it
    state.feed.hub.last_seq = (await jetstream(broker).stream_info(stream)).state.last_seq
    broker.include_router(relay.feed_router(state.feed, state.public.named_changes, stream,
                                            after_seq=state.feed.hub.last_seq))
    # the feed log's consumer is the bus set-up's (turfwar.bussetup): recreated there, reading the stream
    # from its start again, when the feed's subjects changed; its rows are keyed by sequence, so each stays once
    broker.include_router(feed_log.history_router(state.history.record, state.public.named_changes,
                                                  state.results_mail.season_closed, stream))

    def on_renamed(player_id: str, display_name: str) -> None:
        renamed(player_id, display_name)
        state.feed.leaderboard_inflight = None   # the next leaderboard is named anew, not the shared one

    broker.include_router(session_revocation.revocations_router(cache, on_renamed))
    await broker.start()
    state.public.display_features()   # the board for the map, parsed now rather than on the first request
    board.locate(0.0, 0.0)           # and its point index (a home address's check at registration, R27), now
    # What is loaded now lives as long as the process (board, display GeoJSON, index): moved out of the
    # collector's sight, so full collections stop rescanning ~10^5 objects while spectators wait
    gc.collect()
    gc.freeze()
