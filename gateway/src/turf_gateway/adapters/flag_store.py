"""The organizer's flag clearances (R7.1) in PostgreSQL, kept in the organizer's action log (``flag_cleared``):
the :class:`~turf_gateway.ports.FlagClearances` port."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_gateway.adapters import tables as t
from turf_gateway.adapters.account_store import log_action
from turf_gateway.ports import Clearance


async def _clearances(conn: AsyncConnection, flag_id: str | None = None) -> dict[str, Clearance]:
    q = select(t.admin_log).where(t.admin_log.c.action == "flag_cleared")
    if flag_id is not None:
        q = q.where(t.admin_log.c.target == flag_id)
    out: dict[str, Clearance] = {}
    for r in (await conn.execute(q.order_by(t.admin_log.c.at, t.admin_log.c.id))).all():
        out.setdefault(r.target, Clearance(at=(r.detail or {}).get("at") or r.at.isoformat(), by=r.by,
                                           reason=r.reason))
    return out


class SqlFlagClearances:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def all(self) -> dict[str, Clearance]:
        async with self.engine.connect() as conn:
            return await _clearances(conn)

    async def clear(self, flag_id: str, by: str, reason: str | None, detail: dict[str, Any]) -> Clearance:
        async with self.engine.begin() as conn:
            # one clearance per flag, also when the organizer clicks twice in two tabs
            await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": "flag:" + flag_id})
            if flag_id not in await _clearances(conn, flag_id):
                await log_action(conn, by, "flag_cleared", flag_id, reason, detail)
            return (await _clearances(conn, flag_id))[flag_id]
