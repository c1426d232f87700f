"""A consumer's batch records its events in the inbox in one statement (turf_common.outbox.first_times):
the ids answered are exactly those not handled before, a redelivered id (even twice in one batch) is not among them,
and the answer agrees with first_time's. Real PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import MetaData, text

from tests.support.pg import scratch_postgres
from turf_common.db import make_engine
from turf_common.outbox import first_time, first_times, inbox_table


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[str]:
    with scratch_postgres(tmp_path) as url:
        yield url


async def test_first_times_answers_only_the_new_ids(database: str) -> None:
    schema = "inbox_" + uuid.uuid4().hex[:6]
    table = inbox_table(MetaData(schema=schema), schema)
    engine = make_engine(database)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            await conn.run_sync(table.metadata.create_all)
            assert await first_time(conn, table, "e1", "claim.accepted")
            new = await first_times(conn, table, [("e1", "claim.accepted"), ("e2", "territory.changed"),
                                                  ("e3", "score.updated"), ("e2", "territory.changed")])
            assert new == {"e2", "e3"}
            assert await first_times(conn, table, [("e3", "score.updated")]) == set()
            assert await first_times(conn, table, []) == set()
            assert not await first_time(conn, table, "e2", "territory.changed")
            rows = (await conn.execute(text(f'SELECT event_id, subject FROM "{schema}".inbox ORDER BY 1'))).all()
            assert [tuple(r) for r in rows] == [("e1", "claim.accepted"), ("e2", "territory.changed"),
                                                ("e3", "score.updated")]
    finally:
        await engine.dispose()
