"""Idempotent commands (card effects, organizer corrections): a command's first reply is stored in the same
transaction as the state change it made, and a repeat of its ``command_id`` gets that reply again, unchanged."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from turf_claims.adapters import tables as t
from turf_common.contracts.base import Message


async def advisory_lock(conn: AsyncConnection, key: str) -> None:
    """A transaction-scoped lock on ``key`` (a command, a player): concurrent holders queue."""
    await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key})


async def first_reply(conn: AsyncConnection, command_id: str) -> str | None:
    """Serialise on the command id, then its stored reply (JSON) if it ran before, else None."""
    await advisory_lock(conn, "cmd:" + command_id)
    return (await conn.execute(select(t.effect_commands.c.response).where(  # type: ignore[no-any-return]
        t.effect_commands.c.command_id == command_id))).scalar_one_or_none()


async def store_reply(conn: AsyncConnection, command_id: str, kind: str, player_id: str, reply: Message,
                      at: datetime) -> None:
    """Keep the reply of a command that has just run, for its repeats."""
    await conn.execute(t.effect_commands.insert().values(
        command_id=command_id, kind=kind, player_id=player_id, response=reply.model_dump_json(), detail=None, at=at))
