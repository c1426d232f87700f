"""The gateway's feed log (``gateway.feed_log``) in PostgreSQL, the :class:`~turf_gateway.ports.FeedLog`
port: the public feed's messages by stream sequence, written by :mod:`turf_gateway.feed.log`, read by the history
and replay use cases (:mod:`turf_gateway.handlers.history`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from turf_common.contracts import subjects
from turf_gateway.adapters import tables
from turf_gateway.ports import EVER, HISTORY_PAGE, Window

log_t = tables.feed_log


def _within(window: Window) -> list[ColumnElement[bool]]:
    """R31: the rows of one season's instants."""
    start, end = window
    return ([log_t.c.at >= start] if start is not None else []) + ([log_t.c.at < end] if end is not None else [])


class SqlFeedLog:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def store(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        async with self.engine.begin() as conn:   # executemany of one cached statement, one round trip
            await conn.execute(insert(log_t).on_conflict_do_nothing(index_elements=["seq"]), rows)

    async def territory_changes(self, territory_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                                window: Window = EVER) -> tuple[list[dict[str, Any]], int | None]:
        return await self._page(and_(log_t.c.territory_id == territory_id,
                                     log_t.c.type == subjects.TERRITORY_CHANGED, *_within(window)), after_seq, limit)

    async def player_messages(self, player_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                              window: Window = EVER) -> tuple[list[dict[str, Any]], int | None]:
        return await self._page(and_(log_t.c.players.contains([player_id]), *_within(window)), after_seq, limit)

    async def _page(self, cond: ColumnElement[bool], after_seq: int,
                    limit: int) -> tuple[list[dict[str, Any]], int | None]:
        """At most ``limit`` bodies matching ``cond`` after ``after_seq``, in stream order, and the next page's
        ``after_seq`` (None on the last page)."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(log_t.c.seq, log_t.c.body).where(cond, log_t.c.seq > after_seq)
                                       .order_by(log_t.c.seq).limit(limit + 1))).all()
        more = len(rows) > limit
        rows = rows[:limit]
        return [r.body for r in rows], (rows[-1].seq if more else None)

    async def replay_page(self, start: datetime | None, end: datetime | None, after_seq: int,
                          limit: int) -> tuple[list[dict[str, Any]], int | None]:
        cond = [log_t.c.seq > after_seq]
        if start is not None:
            cond.append(log_t.c.at >= start)
        if end is not None:
            cond.append(log_t.c.at < end)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(log_t.c.seq, log_t.c.body).where(and_(*cond))
                                       .order_by(log_t.c.seq).limit(limit + 1))).all()
        more = len(rows) > limit
        rows = rows[:limit]
        return [r.body for r in rows], (rows[-1].seq if more else None)
