"""Organizer routes: verify players, move a manual clock. Every action goes to the admin log (who, when, why)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Annotated, Any

import nats
from fastapi import APIRouter
from pydantic import AwareDatetime, BaseModel, ConfigDict, StringConstraints
from sqlalchemy import insert, select, update

from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.claims import FlagsReply, FlagsRequest
from turf_common.contracts.clock import SetClock
from turf_gateway import tables as t
from turf_gateway.api.deps import Organizer, State
from turf_gateway.errors import ApiError

router = APIRouter(prefix="/admin", tags=["organizer"])


class Reason(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""


class ClockMove(BaseModel):
    model_config = ConfigDict(extra="forbid")
    now: AwareDatetime


async def log_action(conn: Any, by: str, action: str, target: str | None, reason: str | None,
                     detail: dict[str, Any]) -> None:
    await conn.execute(insert(t.admin_log).values(id=uuid.uuid4().hex, at=datetime.now(UTC), by=by, action=action,
                                                  target=target, reason=reason, detail=detail))


@router.post("/players/{player_id}/verify")
async def verify_player(player_id: str, body: Reason, org: Organizer, state: State) -> dict[str, Any]:
    """Verify a pending player by hand (R27)."""
    async with state.engine.begin() as conn:
        row = (await conn.execute(select(t.players.c.status).where(t.players.c.id == player_id)
                                  .with_for_update())).first()
        if row is None:
            raise ApiError("not_found", "No such player.")
        if row.status == "disqualified":
            raise ApiError("conflict", "A disqualified player cannot be verified.")
        await conn.execute(update(t.players).where(t.players.c.id == player_id)
                           .values(status="verified", status_reason=None))
        await log_action(conn, org.id, "verify_player", player_id, body.reason,
                         {"before": row.status, "after": "verified"})
    return {"id": player_id, "status": "verified"}


@router.post("/clock")
async def move_clock(body: ClockMove, org: Organizer, state: State) -> dict[str, Any]:
    """Manual clock only: move forward to ``now``; answers once every service has handled every event up to it."""
    try:
        resp = await state.bus.nc.request(subjects.CLOCK_SET, SetClock(now=body.now).model_dump_json().encode(),
                                          timeout=30)
    except (nats.errors.NoRespondersError, nats.errors.TimeoutError) as e:
        raise BusError(str(e)) from e
    out = json.loads(resp.data)
    if out.get("ok") is False:
        raise ApiError(out["reason"], out["message"])
    await state.bus.wait_idle(timeout=60)
    async with state.engine.begin() as conn:
        await log_action(conn, org.id, "move_clock", None, None, {"now": body.now.isoformat(),
                                                                   "events": out["events"]})
    return {"now": out["now"], "events": out["events"]}


@router.get("/flags")
async def flags(org: Organizer, state: State) -> dict[str, Any]:
    """Claims flagged for review (impossible travel, repeated identical fixes, zero accuracy), with evidence."""
    rep = await state.bus.request(subjects.CLAIMS_FLAGS, FlagsRequest(), FlagsReply)
    return {"flags": [f.model_dump(mode="json", exclude={"schema_version"}) for f in rep.flags]}
