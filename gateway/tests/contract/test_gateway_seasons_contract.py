"""R31: who joined which season, one contract for the memory fakes and PostgreSQL (see conftest.py): a join writes
its row with its ``season.joined`` (event id ``joined:<season>:<player>``) once, a repeat writes and stages nothing,
and a session's lookup carries the seasons its player joined."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied
from turf_common.contracts import subjects
from turf_common.rules import seasons as rules
from turf_common.rules.gametime import load_season
from turf_gateway.adapters import tables as t
from turf_gateway.adapters.player_store import SqlPlayers, SqlSessions
from turf_gateway.adapters.season_store import SqlSeasons
from turf_gateway.ports import NewPlayer, PlayerStore, SeasonStore, SessionStore
from turf_gateway.testing import MemoryPlayers, MemorySeasons, MemorySessions, MemoryTables

AT = datetime(2026, 12, 7, 17, 0, tzinfo=UTC)
SEASON = rules.from_config(load_season(), [Decimal("50.00")], "secret")


@dataclass
class Stores:
    players: PlayerStore
    sessions: SessionStore
    seasons: SeasonStore
    joined_events: Callable[[], Awaitable[list[dict[str, Any]]]]


@pytest.fixture(params=["memory", "postgres"])
async def stores(request: pytest.FixtureRequest, gateway_engine: AsyncEngine) -> Stores:
    if request.param == "memory":
        m = MemoryTables()
        seasons = MemorySeasons(joins=m.joins)

        async def staged_memory() -> list[dict[str, Any]]:
            return [json.loads(e.model_dump_json()) for s, e in seasons.events if s == subjects.SEASON_JOINED]

        return Stores(MemoryPlayers(m), MemorySessions(m), seasons, staged_memory)
    engine = await emptied(gateway_engine, t.metadata)

    async def staged_sql() -> list[dict[str, Any]]:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(t.outbox.c.payload).where(t.outbox.c.subject == subjects.SEASON_JOINED)
                                       .order_by(t.outbox.c.seq))).all()
        return [json.loads(r.payload) for r in rows]

    return Stores(SqlPlayers(engine), SqlSessions(engine), SqlSeasons(engine), staged_sql)


async def test_r31_a_join_stages_season_joined_once_and_the_session_carries_the_seasons_joined(stores: Stores) -> None:
    pid = await stores.players.create(NewPlayer("Ann", "ann@example.com", "ann_d", "ann street 1", "hash"))
    await stores.seasons.ensure(SEASON, AT)
    await stores.sessions.create("h1", pid, datetime(2030, 1, 1, tzinfo=UTC))
    found = await stores.sessions.lookup("h1")
    assert found is not None and found[0].seasons == (frozenset() if isinstance(stores.seasons, MemorySeasons)
                                                      else frozenset({"2026"}))   # SQL: joined at its first start
    before = len(await stores.joined_events())
    assert await stores.seasons.join("2027", pid, "ann street 1", AT) is True
    assert await stores.seasons.join("2027", pid, "ann street 1", AT) is False
    events = (await stores.joined_events())[before:]
    assert [(e["event_id"], e["type"], e["season_id"], e["player_id"]) for e in events] == [
        (f"joined:2027:{pid}", "season.joined", "2027", pid)]
    found = await stores.sessions.lookup("h1")
    assert found is not None and "2027" in found[0].seasons
    assert await stores.seasons.joined(pid) == {**({"2026": "ann street 1"} if "2026" in found[0].seasons else {}),
                                                "2027": "ann street 1"}
