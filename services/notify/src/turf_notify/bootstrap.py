"""The one place where the notify service's adapters are wired: PostgreSQL, the game clock in NATS KV, the outbox
relay, Web Push (pywebpush), the Discord webhook and mail (SMTP or .eml files, R30); any fakes of the same ports
in tests."""

from __future__ import annotations

from pathlib import Path

import structlog
from faststream.nats import NatsBroker

from turf_common.bus import EventPublisher, clock_kv
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import GameClockReader
from turf_common.outbox import OutboxRelay
from turf_common.rules import gametime
from turf_common.rules.medals import MedalSet
from turf_common.seasonbook import SeasonBook
from turf_common.service import Wire, Wired
from turf_common.settings import MAIL_NOT_CONFIGURED, Settings
from turf_notify import entrypoints
from turf_notify.adapters import tables
from turf_notify.adapters.discord import DiscordWebhook
from turf_notify.adapters.mailers import mailer
from turf_notify.adapters.mailqueue import SqlMailQueue
from turf_notify.adapters.store import SqlNotifyStore
from turf_notify.adapters.towns import board_facts, town_names
from turf_notify.adapters.webpush import WebPushSender, new_private_key, public_key
from turf_notify.handlers import NotifyHandlers
from turf_notify.mailing import Mailing
from turf_notify.medals import MedalHandlers

log = structlog.get_logger(__name__)
MIGRATIONS = Path(__file__).resolve().parent / "migrations"   # shipped inside the package (a wheel has them)
TICK_S = 1.0   # seconds between rounds of the timers (reminders, pushes, Discord)


def wire(settings: Settings) -> Wire:
    """Start-up: migrate, connect, publish what a crash left in the outbox, then the subscribers; the outbox sweep
    and the timers run beside them."""
    async def build(broker: NatsBroker) -> Wired:
        assert settings.database_url, "TURF_DATABASE_URL is not set"
        run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
        engine = make_engine(settings.database_url)
        store = SqlNotifyStore(engine)
        relay = OutboxRelay(engine, tables.outbox, EventPublisher(broker, settings.stream))
        private = settings.vapid_private_key or await store.vapid_key(new_private_key)
        discord = DiscordWebhook(settings.discord_webhook_url) if settings.discord_webhook_url else None
        push = WebPushSender(private, f"mailto:{settings.organizer_email}",
                             rehearsal=settings.clock.startswith("manual"))
        # R31: every season of the catalog (the configuration file's alone until the clock has stored one)
        home = gametime.load_season(settings.season_file)
        book = SeasonBook(home, lambda: clock_kv(broker, settings.stream))
        await book.start()
        h = NotifyHandlers(
            store=store, clock=GameClockReader(lambda: clock_kv(broker, settings.stream)),
            relay=relay, season=book,
            towns=town_names(settings.board_dir),
            push=push, discord=discord,
            group_seconds=settings.push_group_seconds)
        mailing = Mailing(SqlMailQueue(engine), mailer(settings.smtp_url, settings.data_dir), settings.mail_from,
                          settings.mail_interval_s)
        health = mail_health(settings)
        medals = MedalHandlers(store, relay, book, board_facts(settings.board_dir),
                               MedalSet.load(settings.medals_file), h.deliver, home=home.season_id)
        await relay.flush()   # anything a crash left behind

        async def close() -> None:
            await book.close()
            await push.close()
            if discord is not None:
                await discord.close()
            await engine.dispose()

        return Wired(router=entrypoints.router(h, settings.stream, public_key(private), mailing, medals),
                     loops=[relay.run, lambda: h.run_timers(TICK_S), lambda: mailing.run(TICK_S)], close=close,
                     health=health)

    return build


def mail_health(settings: Settings) -> dict[str, str]:
    """R30: without a relay no player gets a confirmation, a reset link or the results, and a container's files are
    read by nobody: said loudly at start (a warning) and in every health answer (``turfwar status``), never silent."""
    if settings.smtp_url:
        return {}
    log.warning("mail_not_configured", detail=MAIL_NOT_CONFIGURED, written_to=str(settings.data_dir / "mail"),
                fix="set TURF_SMTP_URL (docs/organizer/mail.md)")
    return {"mail": MAIL_NOT_CONFIGURED}
