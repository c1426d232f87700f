"""The outbox-lag gauge stays true while the outbox is stuck. With the bus refusing every publish, the
relay's sweep keeps failing, and ``turf_outbox_lag`` must still show how many committed events wait (it was only
updated after a successful flush, so it read 0 through a whole NATS outage). Real PostgreSQL, a publisher that
fails like a bus that is down."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, insert, text

from tests.support.pg import scratch_postgres
from turf_common import metrics
from turf_common.db import make_engine
from turf_common.outbox import OutboxRelay, outbox_table


class DownBus:
    def __init__(self) -> None:
        self.down, self.sent = True, 0

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> Any:
        if self.down:
            raise ConnectionError("nats: no servers available for connection")
        self.sent += 1


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[str]:
    with scratch_postgres(tmp_path) as url:
        yield url


def lag(service: str) -> float:
    return metrics.OUTBOX_LAG.labels(service)._value.get()


async def test_the_lag_gauge_counts_what_waits_while_every_publish_fails(database: str) -> None:
    schema = "lag_" + uuid.uuid4().hex[:6]
    table = outbox_table(MetaData(schema=schema), schema)
    engine = make_engine(database)
    async with engine.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        await conn.run_sync(table.metadata.create_all)
        for i in range(3):
            await conn.execute(insert(table).values(event_id=f"e{i}", subject="player.verified", payload="{}",
                                                    created_at=datetime.now(UTC)))
    metrics.SERVICE["name"] = service = "lag-test-" + schema
    bus = DownBus()
    sweeper = asyncio.create_task(OutboxRelay(engine, table, bus).run(interval=0.05))
    try:
        for _ in range(100):
            if lag(service) == 3:
                break
            await asyncio.sleep(0.05)
        assert lag(service) == 3 and bus.sent == 0          # stuck, and the gauge says so
        bus.down = False                                     # the bus is back: the sweep publishes, the gauge drops
        for _ in range(100):
            if lag(service) == 0:
                break
            await asyncio.sleep(0.05)
        assert lag(service) == 0 and bus.sent == 3
    finally:
        sweeper.cancel()
        await engine.dispose()
