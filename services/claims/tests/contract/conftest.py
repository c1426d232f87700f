"""The claims store's contract: every case runs on the memory fake (turf_claims.testing) and on the
PostgreSQL store (adapters/store.py). One embedded PostgreSQL per session, migrated once with the service's Alembic
migrations; each case starts on empty tables (TRUNCATE, a few milliseconds, rather than a database per case)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from claims_backends import Backend
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied, migrated_engine
from turf_claims.adapters import tables as t
from turf_claims.adapters.store import SqlClaimsStore
from turf_claims.bootstrap import MIGRATIONS
from turf_claims.testing import MemoryClaimsStore


@pytest.fixture(scope="session")
async def claims_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncEngine]:
    async with migrated_engine(tmp_path_factory.mktemp("claims-contract"), MIGRATIONS, t.SCHEMA) as engine:
        yield engine


@pytest.fixture(params=["memory", "postgres"])
async def backend(request: pytest.FixtureRequest, claims_engine: AsyncEngine) -> Backend:
    if request.param == "memory":
        mem = MemoryClaimsStore()

        async def staged_memory() -> list[tuple[str, str]]:
            return [(s, e.event_id) for s, e in mem.state.outbox]

        return Backend("memory", mem, staged_memory)
    engine = await emptied(claims_engine, t.metadata)

    async def staged_sql() -> list[tuple[str, str]]:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(t.outbox.c.subject, t.outbox.c.event_id)
                                       .order_by(t.outbox.c.seq))).all()
        return [(r.subject, r.event_id) for r in rows]

    return Backend("postgres", SqlClaimsStore(engine), staged_sql)
