"""The modes store on PostgreSQL (schema ``modes``): :class:`turf_modes.ports.ModesStore` over SQLAlchemy Core."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_common.contracts.base import Event
from turf_common.contracts.modes import ModeName
from turf_common.outbox import stage
from turf_modes.adapters import tables as t
from turf_modes.ports import GameRow

_G = t.games.c


def _row(r: Any, actions: list[dict[str, Any]]) -> GameRow:
    return GameRow(game_id=r.game_id, mode=r.mode, status=r.status, created_by=r.created_by,
                   created_at=r.created_at, seed=r.seed, seed_commitment=r.seed_commitment, config=r.config,
                   turn=r.turn, next_at=r.next_at, actions=actions, snapshot=getattr(r, "snapshot", None),
                   base=r.snapshot_n)


async def _actions(conn: AsyncConnection, game_id: str, offset: int = 0, limit: int | None = None,
                   ) -> list[dict[str, Any]]:
    q = (select(t.actions.c.action).where(t.actions.c.game_id == game_id, t.actions.c.seq >= offset)
         .order_by(t.actions.c.seq))
    rows = await conn.execute(q if limit is None else q.limit(limit))
    return [r.action for r in rows]


async def _read(conn: AsyncConnection, r: Any) -> GameRow | None:
    """The game of row ``r`` with the actions after its snapshot."""
    return _row(r, await _actions(conn, r.game_id, r.snapshot_n)) if r else None


class SqlTx:
    """:class:`turf_modes.ports.ModesTx` on one connection in a transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        self.games = self.messages = self

    async def by_command(self, command_id: str) -> str | None:
        return (await self.conn.execute(select(_G.game_id).where(_G.command_id == command_id))).scalar()

    async def insert(self, command_id: str, g: GameRow) -> str:
        # ON CONFLICT waits for a concurrent insert of the command to commit, then does nothing; the statement
        # after it (READ COMMITTED) sees that game
        done = await self.conn.execute(pg_insert(t.games).values(
            game_id=g.game_id, command_id=command_id, mode=g.mode, status=g.status, created_by=g.created_by,
            created_at=g.created_at, seed=g.seed, seed_commitment=g.seed_commitment, config=g.config, turn=g.turn,
            next_at=g.next_at).on_conflict_do_nothing(index_elements=[_G.command_id]).returning(_G.game_id))
        if done.first() is not None:
            return g.game_id
        other = await self.by_command(command_id)
        assert other is not None, "a conflict on command_id without its row"
        return other

    async def lock(self, game_id: str) -> GameRow | None:
        r = (await self.conn.execute(select(t.games).where(_G.game_id == game_id).with_for_update())).first()
        return await _read(self.conn, r)

    async def append(self, game_id: str, seq: int, action: dict[str, Any]) -> None:
        await self.conn.execute(insert(t.actions).values(game_id=game_id, seq=seq, action=action))

    async def save(self, g: GameRow) -> None:
        await self.conn.execute(update(t.games).where(_G.game_id == g.game_id).values(
            status=g.status, config=g.config, turn=g.turn, next_at=g.next_at, snapshot=g.snapshot,
            snapshot_n=g.base))

    async def seat(self, game_id: str, mode: ModeName, player_id: str) -> None:
        await self.conn.execute(pg_insert(t.seats).values(game_id=game_id, player_id=player_id, mode=mode)
                                .on_conflict_do_nothing())

    async def unseat(self, game_id: str, player_id: str | None = None) -> None:
        q = delete(t.seats).where(t.seats.c.game_id == game_id)
        await self.conn.execute(q if player_id is None else q.where(t.seats.c.player_id == player_id))

    async def seats(self, player_id: str, mode: ModeName | None = None) -> list[str]:
        q = select(t.seats.c.game_id).where(t.seats.c.player_id == player_id)
        if mode is not None:
            q = q.where(t.seats.c.mode == mode)
        return [r.game_id for r in await self.conn.execute(q.order_by(t.seats.c.game_id))]

    async def lock_player(self, player_id: str) -> None:
        # a transaction-scoped advisory lock on the player's key: taken after at most one game's row lock and
        # before none, so two of these never wait on each other in a cycle
        await self.conn.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(f"modes-seat:{player_id}", 0))))

    async def mark_resolved(self, game_id: str, turn: int, at: datetime) -> bool:
        done = await self.conn.execute(pg_insert(t.resolutions).values(game_id=game_id, turn=turn, resolved_at=at)
                                       .on_conflict_do_nothing().returning(t.resolutions.c.turn))
        return done.first() is not None

    async def stage(self, subject: str, event: Event) -> None:
        await stage(self.conn, t.outbox, subject, event)


class SqlModesStore:
    """:class:`turf_modes.ports.ModesStore` on ``engine``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @contextlib.asynccontextmanager
    async def tx(self) -> AsyncIterator[SqlTx]:
        async with self.engine.begin() as conn:
            yield SqlTx(conn)

    async def get(self, game_id: str) -> GameRow | None:
        # the row and its actions from one snapshot: two READ COMMITTED statements saw a turn resolved between them
        # as its actions without the row's snapshot and next turn (a view of turn 2 naming turn 1's 23:59, T9)
        async with self.engine.connect() as conn:
            await conn.execution_options(isolation_level="REPEATABLE READ")
            r = (await conn.execute(select(t.games).where(_G.game_id == game_id))).first()
            return await _read(conn, r)

    async def actions(self, game_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        async with self.engine.connect() as conn:
            return await _actions(conn, game_id, offset, limit)

    async def latest(self, mode: ModeName | None, limit: int) -> list[GameRow]:
        q = select(*(c for c in t.games.c if c.name != "snapshot"))   # the list needs no state
        if mode is not None:
            q = q.where(_G.mode == mode)
        async with self.engine.connect() as conn:
            # K19: games still open to play first, so finished rooms never push an open one off the list
            rows = await conn.execute(q.order_by(case((_G.status == "finished", 1), else_=0), _G.created_at.desc(),
                                                 _G.game_id.desc()).limit(limit))
            return [_row(r, []) for r in rows]

    async def due(self, now: datetime) -> list[tuple[str, int]]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(_G.game_id, _G.turn).where(
                _G.status == "running", _G.next_at.is_not(None), _G.next_at <= now).order_by(_G.next_at, _G.game_id))
            return [(r.game_id, r.turn) for r in rows]
