"""The gateway stores' contract: every case runs on the memory fakes (turf_gateway.testing) and on the
PostgreSQL adapters (turf_gateway.adapters). One embedded PostgreSQL per session, migrated once with the gateway's
Alembic migrations; each case starts on empty tables (TRUNCATE, a few milliseconds, rather than a database per
case). ``backend`` is all five stores of one implementation (they share tables: a disqualification ends sessions and
logs a correction); ``players``, ``sessions``, ``clearances``, ``feed_log`` and ``corrections`` are one each."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from gateway_backends import TZ, Backend, Entry
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied, migrated_engine
from turf_gateway.adapters import tables as t
from turf_gateway.adapters.correction_store import SqlCorrectionLog
from turf_gateway.adapters.feed_log import SqlFeedLog
from turf_gateway.adapters.flag_store import SqlFlagClearances
from turf_gateway.adapters.player_store import SqlPlayers, SqlSessions
from turf_gateway.adapters.tokens import SqlAccountTokens
from turf_gateway.bootstrap import MIGRATIONS
from turf_gateway.ports import AccountTokens, CorrectionLog, FeedLog, FlagClearances, PlayerStore, SessionStore
from turf_gateway.testing import (
    MemoryAccountTokens,
    MemoryCorrectionLog,
    MemoryFeedLog,
    MemoryFlagClearances,
    MemoryPlayers,
    MemorySessions,
    MemoryTables,
)


@pytest.fixture(scope="session")
async def gateway_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncEngine]:
    async with migrated_engine(tmp_path_factory.mktemp("gateway-contract"), MIGRATIONS, t.SCHEMA) as engine:
        yield engine


def memory() -> Backend:
    m = MemoryTables()

    async def admin_log() -> list[Entry]:
        return [(e.by, e.action, e.target, e.reason, e.detail) for e in m.admin_log]

    async def staged() -> list[tuple[str, dict[str, Any]]]:
        return [(s, json.loads(e.model_dump_json())) for s, e in m.outbox]

    return Backend("memory", MemoryPlayers(m), MemorySessions(m), MemoryFlagClearances(m), MemoryFeedLog(m),
                   MemoryCorrectionLog(m, TZ), admin_log, staged, MemoryAccountTokens(m))


def postgres(engine: AsyncEngine) -> Backend:
    async def admin_log() -> list[Entry]:
        a = t.admin_log.c
        async with engine.connect() as conn:
            rows = (await conn.execute(select(a.by, a.action, a.target, a.reason, a.detail)
                                       .order_by(a.at, a.id))).all()
        return [(r.by, r.action, r.target, r.reason, r.detail) for r in rows]

    async def staged() -> list[tuple[str, dict[str, Any]]]:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(t.outbox.c.subject, t.outbox.c.payload)
                                       .order_by(t.outbox.c.seq))).all()
        return [(r.subject, json.loads(r.payload)) for r in rows]

    return Backend("postgres", SqlPlayers(engine), SqlSessions(engine), SqlFlagClearances(engine),
                   SqlFeedLog(engine), SqlCorrectionLog(engine, TZ), admin_log, staged, SqlAccountTokens(engine))


@pytest.fixture(params=["memory", "postgres"])
async def backend(request: pytest.FixtureRequest, gateway_engine: AsyncEngine) -> Backend:
    if request.param == "memory":
        return memory()
    return postgres(await emptied(gateway_engine, t.metadata))


@pytest.fixture
def players(backend: Backend) -> PlayerStore:
    return backend.players


@pytest.fixture
def sessions(backend: Backend) -> SessionStore:
    return backend.sessions


@pytest.fixture
def clearances(backend: Backend) -> FlagClearances:
    return backend.clearances


@pytest.fixture
def feed_log(backend: Backend) -> FeedLog:
    return backend.feed_log


@pytest.fixture
def corrections(backend: Backend) -> CorrectionLog:
    return backend.corrections


@pytest.fixture
def tokens(backend: Backend) -> AccountTokens:
    return backend.tokens
