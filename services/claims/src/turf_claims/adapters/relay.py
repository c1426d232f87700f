"""The claims service's outbox relay: :class:`turf_common.outbox.OutboxRelay` with a cheaper ``flush``."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from turf_common.bus import Bus
from turf_common.outbox import OutboxRelay, _traceparent_of

BATCH = 200


class ClaimsOutboxRelay(OutboxRelay):
    """Same contract as the base relay: committed rows are published in ``seq`` order with ``Nats-Msg-Id`` = event
    id and marked sent in the transaction that published them (a failed publish rolls the marks back, a crash
    before the commit sends them again, and JetStream's duplicate window drops the second copy).

    Per batch it runs one statement instead of two (the rows are claimed and marked by one ``UPDATE … RETURNING``
    on a ``FOR UPDATE SKIP LOCKED`` selection), and a batch smaller than the limit ends the flush without another
    transaction to find nothing: rows committed after the batch was read are left to the next flush, which every
    claim committed meanwhile runs or joins (``ClaimsService._publish_committed``)."""

    def __init__(self, engine: AsyncEngine, outbox: Table, bus: Bus) -> None:
        super().__init__(engine, outbox, bus)
        o = outbox.c
        pending = (select(o.seq).where(o.published_at.is_(None)).order_by(o.seq).limit(BATCH)
                   .with_for_update(skip_locked=True))
        self._take = (update(self.outbox).where(o.seq.in_(pending.scalar_subquery()))
                      .values(published_at=bindparam("now", type_=DateTime(timezone=True)))
                      .returning(o.seq, o.event_id, o.subject, o.payload))

    async def flush(self) -> int:
        sent = 0
        async with self._lock:
            while True:
                async with self.engine.begin() as conn:
                    rows = sorted((await conn.execute(self._take, {"now": datetime.now(UTC)})).all(),
                                  key=lambda r: r.seq)
                    for r in rows:
                        await self.bus.publish(r.subject, r.payload.encode(), r.event_id,
                                               traceparent=_traceparent_of(r.payload))
                    sent += len(rows)
                if len(rows) < BATCH:
                    return sent
