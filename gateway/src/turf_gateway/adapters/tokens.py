"""R30's single-use tokens in PostgreSQL (``gateway.account_tokens``): :class:`turf_gateway.ports.AccountTokens`.
A token is used by one conditional ``UPDATE … RETURNING`` (not used, not expired), so of two uses at once exactly
one succeeds; its effect commits in the same transaction."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_common.contracts import subjects
from turf_common.contracts.notify import QueueMail
from turf_common.outbox import stage_command
from turf_gateway.adapters import account_store
from turf_gateway.adapters import tables as t

k = t.account_tokens.c


async def _use(conn: AsyncConnection, token_hash: str, purpose: str, now: datetime) -> tuple[str, str] | None:
    row = (await conn.execute(update(t.account_tokens)
                              .where(k.token_hash == token_hash, k.purpose == purpose, k.used_at.is_(None),
                                     k.expires_at > now)
                              .values(used_at=now).returning(k.player_id, k.email))).first()
    return None if row is None else (row.player_id, row.email)


class SqlAccountTokens:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def issue(self, token_hash: str, player_id: str, purpose: str, email: str, expires_at: datetime,
                    mail: QueueMail | None = None) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(t.account_tokens).where(k.player_id == player_id, k.purpose == purpose))
            await conn.execute(insert(t.account_tokens).values(token_hash=token_hash, player_id=player_id,
                                                               purpose=purpose, email=email, expires_at=expires_at))
            if mail is not None:
                await stage_command(conn, t.outbox, subjects.NOTIFY_MAIL, mail.command_id, mail)

    async def holder(self, token_hash: str, purpose: str, now: datetime) -> str | None:
        async with self.engine.connect() as conn:
            return (await conn.execute(select(k.player_id).where(  # type: ignore[no-any-return]
                k.token_hash == token_hash, k.purpose == purpose, k.used_at.is_(None), k.expires_at > now))).scalar()

    async def confirm_email(self, token_hash: str, now: datetime) -> str | None:
        async with self.engine.begin() as conn:
            used = await _use(conn, token_hash, "email_confirmation", now)
            if used is None:
                return None
            pid, email = used
            done = await conn.execute(update(t.players).where(t.players.c.id == pid,
                                                              t.players.c.email_norm == email.lower())
                                      .values(email_confirmed=True))
            if done.rowcount:   # R30 (amended): the confirmed address is now the account's only one
                await conn.execute(delete(t.account_tokens).where(
                    k.player_id == pid, k.purpose == account_store.PREVIOUS_EMAIL))
            return pid

    async def reset_password(self, token_hash: str, password_hash: str, now: datetime) -> str | None:
        async with self.engine.begin() as conn:
            used = await _use(conn, token_hash, "password_reset", now)
            if used is None:
                return None
            pid = used[0]
            await conn.execute(update(t.players).where(t.players.c.id == pid).values(password_hash=password_hash))
            await conn.execute(delete(t.sessions).where(t.sessions.c.player_id == pid))
            return pid
