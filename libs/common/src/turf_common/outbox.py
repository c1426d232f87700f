"""Transactional outbox and idempotent inbox, one pair of tables per service schema.

A service writes its state change and the events it implies in one transaction (:func:`stage`), commits, then
the relay publishes the rows with ``Nats-Msg-Id`` = event id and marks them sent. A crash between commit and
publish leaves the row unsent; the relay's loop sends it after restart, and JetStream's duplicate window drops a
second copy if the first did get out. Consumers record each event id in ``inbox`` inside their own transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import structlog
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Identity,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    insert,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_common import metrics, tracing
from turf_common.contracts.base import Event, Message
from turf_common.txguard import no_transaction

log = structlog.get_logger(__name__)


class StreamPublisher(Protocol):
    """Port: publishes one message to the event stream with ``Nats-Msg-Id`` = ``msg_id``, so the stream drops a
    repeat inside its duplicate window (:class:`turf_common.bus.EventPublisher` in services, what
    :class:`OutboxRelay` sends through; :class:`turf_common.testing.RecordingPublisher` in unit tests)."""

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> Any: ...


class OutboxFlush(Protocol):
    """Port: publishes every outbox row committed before the call, in commit order; returns how many it sent
    (:class:`OutboxRelay` in services, :class:`turf_common.testing.RecordingPublisher` in unit tests). A use case
    calls it after its transaction commits, never inside one."""

    async def flush(self) -> int: ...


def outbox_table(metadata: MetaData, schema: str) -> Table:
    return Table(
        "outbox", metadata,
        Column("seq", BigInteger, Identity(), primary_key=True),
        Column("event_id", String(64), nullable=False, unique=True),
        Column("subject", String(128), nullable=False),
        Column("payload", Text, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        Column("published_at", DateTime(timezone=True), nullable=True, index=True),
        schema=schema,
    )


def inbox_table(metadata: MetaData, schema: str) -> Table:
    return Table(
        "inbox", metadata,
        Column("event_id", String(64), primary_key=True),
        Column("subject", String(128), nullable=False),
        Column("handled_at", DateTime(timezone=True), nullable=False),
        schema=schema,
    )


async def stage(conn: AsyncConnection, outbox: Table, subject: str, event: Event) -> None:
    """Queue ``event`` for publication inside the caller's transaction, stamped with the current trace."""
    if event.traceparent is None:
        tp = tracing.current_traceparent()
        if tp is not None:
            event = event.model_copy(update={"traceparent": tp})
    await conn.execute(insert(outbox).values(
        event_id=event.event_id, subject=subject, payload=event.model_dump_json(),
        created_at=datetime.now(UTC)))


async def stage_command(conn: AsyncConnection, outbox: Table, subject: str, command_id: str, msg: Message) -> None:
    """Queue the command ``msg`` (a request a service answers, not an event of the stream) inside the caller's
    transaction, as an outbox row keyed by its ``command_id``: the service's publisher asks it after the commit
    (the gateway's mail requests, R30); the command is idempotent by that id, so a second asking does no harm."""
    await conn.execute(insert(outbox).values(event_id=command_id, subject=subject, payload=msg.model_dump_json(),
                                             created_at=datetime.now(UTC)))


async def first_time(conn: AsyncConnection, inbox: Table, event_id: str, subject: str) -> bool:
    """Record ``event_id`` as handled in the caller's transaction; False if it already was (a redelivery)."""
    return event_id in await first_times(conn, inbox, [(event_id, subject)])


async def first_times(conn: AsyncConnection, inbox: Table, events: Sequence[tuple[str, str]]) -> set[str]:
    """Record each ``(event_id, subject)`` as handled in the caller's transaction, in one statement: the ids
    recorded now (one handled before, a redelivery, is not among them)."""
    if not events:
        return set()
    at = datetime.now(UTC)
    # executemany of one cached statement (SQLAlchemy sends it as one multi-row INSERT: "insertmanyvalues")
    rows = await conn.execute(pg_insert(inbox).on_conflict_do_nothing().returning(inbox.c.event_id),
                              [{"event_id": eid, "subject": subj, "handled_at": at} for eid, subj in events])
    return {r.event_id for r in rows}


#: a payload's own trace context, as pydantic writes it (compact JSON): read without decoding the payload, which
#: every row carries (``"traceparent":null`` when it has none), so a test for the key alone never spared a decode
_TRACEPARENT = re.compile(r'"traceparent":"([0-9A-Za-z-]{1,128})"')


def _traceparent_of(payload: str) -> str | None:
    m = _TRACEPARENT.search(payload)
    return m.group(1) if m else None


BATCH = 200   # outbox rows claimed and published per statement


class OutboxRelay:
    """Publishes committed outbox rows in order. ``flush()`` right after a commit keeps latency low; ``run()``
    sweeps every ``interval`` seconds for rows a crash or a NATS outage left behind.

    Rows are published in ``seq`` order with ``Nats-Msg-Id`` = event id and marked sent in the transaction that
    publishes them: a failed publish rolls the marks back, a crash before the commit sends them again, and
    JetStream's duplicate window drops the second copy. Each batch is one statement (rows claimed and marked by an
    ``UPDATE … RETURNING`` over a ``FOR UPDATE SKIP LOCKED`` selection), and a batch smaller than :data:`BATCH`
    ends the flush: rows committed after it was read are left to the flush their own committer runs next (every
    writer flushes after its commit) or to the sweep."""

    def __init__(self, engine: AsyncEngine, outbox: Table, bus: StreamPublisher, forget: Sequence[str] = ()) -> None:
        """``forget``: subjects whose rows' payloads are blanked once sent (a mail request carries a link's
        token, which no table keeps but as its hash, R30)."""
        self.engine, self.outbox, self.bus, self.forget = engine, outbox, bus, frozenset(forget)
        self._lock = asyncio.Lock()
        o = outbox.c
        pending = (select(o.seq).where(o.published_at.is_(None)).order_by(o.seq).limit(BATCH)
                   .with_for_update(skip_locked=True))
        self._take = (update(outbox).where(o.seq.in_(pending.scalar_subquery()))
                      .values(published_at=bindparam("now", type_=DateTime(timezone=True)))
                      .returning(o.seq, o.event_id, o.subject, o.payload))

    async def flush(self) -> int:
        """Publish every row committed before the call; returns how many were sent."""
        no_transaction("outbox flush")
        sent = 0
        async with self._lock:
            while True:
                async with self.engine.begin() as conn:
                    rows = sorted((await conn.execute(self._take, {"now": datetime.now(UTC)})).all(),
                                  key=lambda r: r.seq)
                    many = getattr(self.bus, "publish_many", None)
                    if many is not None and len(rows) > 1:   # acknowledgements awaited together
                        await many([(r.subject, r.payload.encode(), r.event_id, _traceparent_of(r.payload))
                                    for r in rows])
                    else:
                        for r in rows:
                            await self.bus.publish(r.subject, r.payload.encode(), r.event_id,
                                                   traceparent=_traceparent_of(r.payload))
                    if gone := [r.seq for r in rows if r.subject in self.forget]:
                        await conn.execute(update(self.outbox).where(self.outbox.c.seq.in_(gone)).values(payload=""))
                    sent += len(rows)
                if len(rows) < BATCH:
                    return sent

    async def run(self, interval: float = 0.5) -> None:
        """Sweep forever; also keeps the ``turf_outbox_lag`` gauge current (unpublished rows)."""
        while True:
            drained = False
            with contextlib.suppress(Exception):
                await self.flush()
                drained = True
            # a flush that worked left nothing behind it but rows committed meanwhile, which their own committers
            # flush: the gauge reads 0 without a count (half of every idle sweep's work). After a failed
            # one it is counted: a stuck outbox (NATS down) is when the gauge matters
            with contextlib.suppress(Exception):
                metrics.OUTBOX_LAG.labels(metrics.SERVICE["name"]).set(0 if drained else await self.lag())
            await asyncio.sleep(interval)

    async def lag(self) -> int:
        async with self.engine.connect() as conn:
            from sqlalchemy import func
            return int((await conn.execute(
                select(func.count()).select_from(self.outbox).where(self.outbox.c.published_at.is_(None))
            )).scalar_one())
