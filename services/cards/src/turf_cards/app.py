"""Cards service process: ``python -m turf_cards``. Hands, seeded draws, card plays and trades as sagas (#5).

Serves ``cards.hand``, ``cards.play``, ``cards.cancel``, ``cards.seed`` and ``trades.*``; one durable consumer
(``cards``) takes, in stream order, the clock's season and day starts, ``player.verified``/``player.disqualified``,
the claims service's ``protection.*`` results and ``territory.changed``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from turf_cards import tables
from turf_cards.handlers import CardsService
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.cards import (
    AdjustHand,
    CancelSchedule,
    HandRequest,
    PlayCard,
    ProposeTrade,
    SeedRequest,
    TradeAction,
    TradesRequest,
)
from turf_common.db import make_engine, run_migrations
from turf_common.gameclock import GameClockReader
from turf_common.legacy_bus import Bus
from turf_common.outbox import OutboxRelay
from turf_common.rules import gametime
from turf_common.service import run
from turf_common.settings import Settings, get_settings

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
QUEUE = "cards"
CONSUMED = [subjects.CLOCK_SEASON_STARTED, subjects.CLOCK_DAY_STARTED, subjects.CLOCK_SEASON_ENDED,
            subjects.PLAYER_VERIFIED, subjects.PLAYER_DISQUALIFIED, subjects.PROTECTION_ACTIVATED,
            subjects.PROTECTION_LAPSED, subjects.TERRITORY_CHANGED]


async def build(settings: Settings, bus: Bus) -> CardsService:
    assert settings.database_url, "TURF_DATABASE_URL is not set"
    run_migrations(settings.database_url, MIGRATIONS, tables.SCHEMA)
    engine = make_engine(settings.database_url)
    return CardsService(engine=engine, relay=OutboxRelay(engine, tables.outbox, bus), bus=bus,
                        clock=GameClockReader(bus.clock_kv), season=gametime.load_season(settings.season_file),
                        seed=settings.seed)


async def subscribe(bus: Bus, svc: CardsService) -> Callable[[], Awaitable[None]]:
    routes: list[tuple[str, type[BaseModel], Callable[[Any], Awaitable[Message]]]] = [
        (subjects.CARDS_HAND, HandRequest, lambda m: svc.hand(m.player_id)),
        (subjects.CARDS_PLAY, PlayCard, svc.play),
        (subjects.CARDS_CANCEL, CancelSchedule, svc.cancel),
        (subjects.CARDS_SEED, SeedRequest, lambda _: svc.seed_info()),
        (subjects.CARDS_ADJUST, AdjustHand, svc.adjust),
        (subjects.TRADES_PROPOSE, ProposeTrade, svc.propose),
        (subjects.TRADES_ACCEPT, TradeAction, svc.accept),
        (subjects.TRADES_DECLINE, TradeAction, svc.decline),
        (subjects.TRADES_WITHDRAW, TradeAction, svc.withdraw),
        (subjects.TRADES_LIST, TradesRequest, lambda m: svc.trades(m.player_id)),
    ]
    for subject, model, fn in routes:
        async def handle(data: bytes, model: type[BaseModel] = model,
                         fn: Callable[[Any], Awaitable[Message]] = fn) -> Message:
            return await fn(model.model_validate_json(data))

        await bus.serve(subject, QUEUE, handle)
    await svc.relay.flush()   # anything a crash left behind
    await svc.recover()       # sagas a crash left pending
    await bus.consume("cards", CONSUMED, svc.on_event)
    tasks = [asyncio.create_task(svc.relay.run()), asyncio.create_task(svc.recover_forever())]

    async def cleanup() -> None:
        for task in tasks:
            task.cancel()
        await svc.engine.dispose()

    return cleanup


def main() -> None:
    settings = get_settings()

    async def start(bus: Bus) -> Callable[[], Awaitable[None]]:
        return await subscribe(bus, await build(settings, bus))

    run("cards", settings, start)
