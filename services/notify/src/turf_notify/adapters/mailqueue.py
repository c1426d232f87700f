"""The mail queue on PostgreSQL (``notify.mails``): :class:`turf_notify.ports.MailQueue`. A message is taken under a
lease (``next_at`` moved to the lease's end, ``FOR UPDATE SKIP LOCKED``) in a short transaction of its own, sent
after that commit, and marked in another: no transaction is open while the relay is asked."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_notify.adapters import tables as t
from turf_notify.ports import MailRecord, QueuedMail

m = t.mails.c


async def queue_mail(conn: AsyncConnection, key: str, to: str, kind: str, subject: str, text: str, html: str,
                     now: datetime, at: datetime | None = None) -> None:
    """Queue in the caller's transaction (an announcement's messages commit with the announcement). ``created_at``
    is the game instant it was asked (``at``), which the organizer's list shows; ``next_at`` wall time."""
    await conn.execute(pg_insert(t.mails).values(
        key=key, to_addr=to, kind=kind, subject=subject, text=text, html=html, status="queued", attempts=0,
        next_at=now, created_at=at or now).on_conflict_do_nothing(index_elements=["key"]))


def _queued(r: Any) -> QueuedMail:
    return QueuedMail(r.id, r.key, r.to_addr, r.kind, r.subject, r.text, r.html, r.attempts, r.created_at)


class SqlMailQueue:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def queue_mail(self, key: str, to: str, kind: str, subject: str, text: str, html: str,
                         now: datetime, at: datetime | None = None) -> None:
        async with self.engine.begin() as conn:
            await queue_mail(conn, key, to, kind, subject, text, html, now, at)

    async def take_mails(self, now: datetime, lease_until: datetime, limit: int) -> list[QueuedMail]:
        due = (select(m.id).where(m.status == "queued", m.next_at <= now).order_by(m.id).limit(limit)
               .with_for_update(skip_locked=True))
        async with self.engine.begin() as conn:
            rows = await conn.execute(update(t.mails).where(m.id.in_(due.scalar_subquery()))
                                      .values(next_at=lease_until, attempts=m.attempts + 1)
                                      .returning(*t.mails.c))
            return sorted((_queued(r) for r in rows), key=lambda q: q.id)

    async def mail_sent(self, mail_id: int, now: datetime, keep_text: bool) -> None:
        values: dict[str, Any] = {"status": "sent", "sent_at": now, "error": None}
        if not keep_text:
            values |= {"text": "", "html": ""}
        await self._set(mail_id, values)

    async def mail_retry(self, mail_id: int, at: datetime, error: str) -> None:
        await self._set(mail_id, {"next_at": at, "error": error[:500]})

    async def mail_failed(self, mail_id: int, error: str) -> None:
        await self._set(mail_id, {"status": "failed", "error": error[:500], "text": "", "html": ""})

    async def _set(self, mail_id: int, values: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(t.mails).where(m.id == mail_id).values(**values))

    async def forget(self, to: str) -> int:
        async with self.engine.begin() as conn:
            return int((await conn.execute(t.mails.delete().where(m.to_addr == to))).rowcount or 0)

    async def mail_list(self, limit: int) -> list[MailRecord]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(t.mails).order_by(m.id.desc()).limit(limit))
            return [MailRecord(r.id, r.created_at, r.to_addr, r.kind, r.subject, r.status, r.attempts, r.error,
                               r.text) for r in rows]
