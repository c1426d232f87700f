"""The organizer's corrections log (R28): append-only records ``{id, at, action, by, reason, before, after}``, each
written in one transaction with its public ``correction.applied`` event (outbox).

Where the effect lives decides how a record joins it:

* a disqualification changes the gateway's own players table, so its record is appended in that same transaction
  (:func:`append` on the caller's connection);
* ``reverse_claim``/``set_owner`` (claims), ``adjust_hand`` (cards) and ``adjust_score`` (scoring) change another
  service's store, which no gateway transaction can span. The request is recorded first, with the command id the
  owning service applies once (:func:`open_request`, committed before the service is asked); the record is appended
  when the answer comes, in one transaction with the request's ``logged`` mark. A repeat of the organizer's
  ``Idempotency-Key`` finds the same command id: logged, it gets the first record; refused, the first refusal; still
  ``asked`` (no answer came, 503), the service is asked again with the same id and the record is written once.

The use case (:mod:`turf_gateway.handlers.corrections`) works through the :class:`~turf_gateway.ports.CorrectionLog`
port (:class:`SqlCorrectionLog` here; :class:`turf_gateway.testing.MemoryCorrectionLog` in memory).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, tzinfo
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_common.contracts import subjects
from turf_common.contracts.players import CorrectionApplied
from turf_common.outbox import stage
from turf_gateway.adapters import tables as t
from turf_gateway.ports import Asked, Record, Settling


def view(row: Any, tz: tzinfo) -> dict[str, Any]:
    """A log row as ``POST /admin/corrections`` answers it (times in the season's zone)."""
    return {"id": row.id, "at": row.at.astimezone(tz).isoformat(), "action": row.action, "by": row.by,
            "reason": row.reason, "before": row.before, "after": row.after, "post_season": row.post_season}


async def append(conn: AsyncConnection, *, cid: str, at: datetime, post_season: bool, by: str, action: str,
                 reason: str, request: dict[str, Any], before: Any, after: Any, territory_id: str | None = None,
                 player_id: str | None = None) -> None:
    """Append one record and stage its public view (``correction.applied``, no personal details) on ``conn``."""
    await conn.execute(insert(t.corrections).values(
        id=cid, at=at, by=by, action=action, reason=reason, territory_id=territory_id, player_id=player_id,
        request=request, before=before, after=after, post_season=post_season))
    await stage(conn, t.outbox, subjects.CORRECTION_APPLIED, applied(
        cid=cid, at=at, action=action, reason=reason, territory_id=territory_id, player_id=player_id,
        post_season=post_season))


def applied(*, cid: str, at: datetime, action: str, reason: str, territory_id: str | None, player_id: str | None,
            post_season: bool) -> CorrectionApplied:
    """A record's public ``correction.applied`` event (no request, note, before or after)."""
    return CorrectionApplied(occurred_at=at, correction_id=cid, at=at, action=action, territory_id=territory_id,
                             player_id=player_id, reason=reason, post_season=post_season)


async def open_request(conn: AsyncConnection, *, by: str, key: str | None, at: datetime, post_season: bool,
                       action: str, request: dict[str, Any]) -> str:
    """Record a correction about to be asked of its service; returns its command id. With an ``Idempotency-Key``
    already used by ``by``, nothing is written and the first request's id is returned."""
    values = {"by": by, "idempotency_key": key, "at": at, "post_season": post_season, "action": action,
              "request": request, "state": "asked", "created_at": datetime.now(UTC)}
    cid = uuid.uuid4().hex
    if key is None:
        await conn.execute(insert(t.correction_requests).values(id=cid, **values))
        return cid
    got = (await conn.execute(pg_insert(t.correction_requests).values(id=cid, **values)
                              .on_conflict_do_nothing(constraint="correction_requests_key")
                              .returning(t.correction_requests.c.id))).scalar_one_or_none()
    if got is not None:
        return str(got)
    return str((await conn.execute(select(t.correction_requests.c.id).where(
        t.correction_requests.c.by == by, t.correction_requests.c.idempotency_key == key))).scalar_one())


async def take_request(conn: AsyncConnection, cid: str) -> Any:
    """The request row, locked until ``conn`` commits: a concurrent repeat of its key waits for the first."""
    return (await conn.execute(select(t.correction_requests).where(t.correction_requests.c.id == cid)
                               .with_for_update())).one()


async def record(conn: AsyncConnection, cid: str) -> Any:
    """The log row of a correction."""
    return (await conn.execute(select(t.corrections).where(t.corrections.c.id == cid))).one()


async def settle_request(conn: AsyncConnection, cid: str, state: str,
                         refusal: dict[str, str] | None = None) -> None:
    """Mark a request ``logged`` (its record appended on the same connection) or ``refused`` (with the refusal)."""
    await conn.execute(update(t.correction_requests).where(t.correction_requests.c.id == cid)
                       .values(state=state, refusal=refusal))


# ---- the SQL adapter of the CorrectionLog port -----------------------------------------------------------------
class SqlCorrectionLog:
    def __init__(self, engine: AsyncEngine, tz: tzinfo) -> None:
        self.engine, self.tz = engine, tz

    async def open_request(self, *, by: str, key: str | None, at: datetime, post_season: bool, action: str,
                           request: dict[str, Any]) -> str:
        async with self.engine.begin() as conn:
            return await open_request(conn, by=by, key=key, at=at, post_season=post_season, action=action,
                                      request=request)

    async def records(self) -> list[Record]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.corrections).order_by(t.corrections.c.seq))).all()
        return [Record(r.id, r.at, r.action, r.by, r.reason, r.request or {}, r.territory_id, r.player_id, r.before,
                       r.after, r.post_season) for r in rows]

    async def asked(self, cid: str) -> Asked:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(t.correction_requests).where(t.correction_requests.c.id == cid))).one()
        return Asked(row.id, row.at, row.post_season, row.request, row.state, row.refusal)

    @asynccontextmanager
    async def settling(self, cid: str) -> AsyncIterator[Settling]:
        async with self.engine.begin() as conn:
            row = await take_request(conn, cid)
            yield _SqlSettling(conn, self.tz, Asked(row.id, row.at, row.post_season, row.request, row.state,
                                                    row.refusal))


class _SqlSettling:
    def __init__(self, conn: AsyncConnection, tz: tzinfo, asked: Asked) -> None:
        self.conn, self.tz, self.asked = conn, tz, asked

    async def record(self) -> dict[str, Any]:
        return view(await record(self.conn, self.asked.id), self.tz)

    async def refuse(self, reason: str, message: str) -> None:
        await settle_request(self.conn, self.asked.id, "refused", {"reason": reason, "message": message})

    async def log(self, *, by: str, action: str, reason: str, before: Any, after: Any, territory_id: str | None,
                  player_id: str | None) -> dict[str, Any]:
        a = self.asked
        await append(self.conn, cid=a.id, at=a.at, post_season=a.post_season, by=by, action=action, reason=reason,
                     request=a.request, before=before, after=after, territory_id=territory_id, player_id=player_id)
        await settle_request(self.conn, a.id, "logged")
        return await self.record()
