"""Issue 19: the gateway's read model of the public feed (``gateway.feed_log``), projected from the event stream by a
durable consumer shared by the gateway replicas, and the queries of the history and replay routes.

The consumer reads every feed subject from the start of the stream (a new gateway fills the table with the season
so far), makes each event the message spectators get (:func:`turf_gateway.feed.feed_message`: public fields only)
and stores it by stream sequence, so a redelivery stores nothing twice. One batch is one transaction, acked once it
has committed; a failing batch is retried here with back-off (the server hands nobody the later events meanwhile)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import structlog
from faststream.nats import NatsRouter
from sqlalchemy import and_, select
from sqlalchemy.dialects.postgresql import insert

from turf_common import bus
from turf_common.contracts import subjects
from turf_gateway import history, tables
from turf_gateway.feed import feed_message, feed_subjects
from turf_gateway.state import AppState

log = structlog.get_logger(__name__)

DURABLE = "gateway-history"
log_t = tables.feed_log


def history_router(state: AppState, stream: str) -> NatsRouter:
    """The durable consumer that fills ``feed_log`` (module docstring)."""
    r = NatsRouter()

    @r.subscriber(**bus.durable(stream, DURABLE, feed_subjects()), title=DURABLE,
                  description="Stores every public feed message by stream sequence (the read model of the "
                              "history and replay routes).")
    async def on_events(_: list[Any], batch: bus.Batch) -> None:
        raws = list(batch.raw_message)
        delay = 0.2
        while True:
            try:
                await store(state, [(r.metadata.sequence.stream, r.subject, r.data) for r in raws])
                break
            except Exception:
                log.exception("feed_log_store_failed", first=raws[0].metadata.sequence.stream, n=len(raws))
                for raw in raws:
                    await raw.in_progress()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
        for raw in raws:
            await raw.ack()

    return r


async def store(state: AppState, events: list[tuple[int, str, bytes]]) -> None:
    """Store ``(seq, subject, data)`` events as their feed messages, once each (a sequence stored is kept)."""
    rows = []
    for seq, subject, data in events:
        msg = await feed_message(state, subject, data, seq)
        if msg is None or not msg.get("at"):
            continue
        rows.append({"seq": seq, "type": msg["type"], "at": datetime.fromisoformat(msg["at"]),
                     "territory_id": msg.get("territory_id"), "players": history.players_of(msg), "body": msg})
    if not rows:
        return
    async with state.engine.begin() as conn:   # executemany of one cached statement (issue 21), one round trip
        await conn.execute(insert(log_t).on_conflict_do_nothing(index_elements=["seq"]), rows)


async def territory_changes(state: AppState, territory_id: str) -> list[dict[str, Any]]:
    """The ``territory.changed`` messages of one town, oldest first."""
    async with state.engine.connect() as conn:
        rows = await conn.execute(
            select(log_t.c.body).where(and_(log_t.c.territory_id == territory_id,
                                            log_t.c.type == subjects.TERRITORY_CHANGED)).order_by(log_t.c.seq))
        return [r.body for r in rows]


async def player_messages(state: AppState, player_id: str) -> list[dict[str, Any]]:
    """Every stored message that concerns ``player_id`` (:func:`history.players_of`), oldest first."""
    async with state.engine.connect() as conn:
        rows = await conn.execute(select(log_t.c.body).where(log_t.c.players.contains([player_id]))
                                  .order_by(log_t.c.seq))
        return [r.body for r in rows]


async def replay_page(state: AppState, start: datetime | None, end: datetime | None, after_seq: int,
                      limit: int) -> tuple[list[dict[str, Any]], int | None]:
    """At most ``limit`` messages with ``start`` <= at < ``end`` and seq > ``after_seq``, in stream order, and the
    ``after_seq`` of the next page (None when this one is the last)."""
    cond = [log_t.c.seq > after_seq]
    if start is not None:
        cond.append(log_t.c.at >= start)
    if end is not None:
        cond.append(log_t.c.at < end)
    async with state.engine.connect() as conn:
        rows = (await conn.execute(select(log_t.c.seq, log_t.c.body).where(and_(*cond))
                                   .order_by(log_t.c.seq).limit(limit + 1))).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return [r.body for r in rows], (rows[-1].seq if more else None)
