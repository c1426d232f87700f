"""Organizer routes: verify players, move a manual clock, review flags (R7.1). Every action goes to the admin log
(who, when, why)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, StringConstraints
from sqlalchemy import select, text

from turf_common.bus import wait_idle
from turf_common.contracts import subjects
from turf_common.contracts.claims import FlagOut, FlagsReply, FlagsRequest
from turf_common.contracts.clock import SetClock
from turf_common.contracts.players import PlayerExcluded
from turf_common.rules import gametime
from turf_gateway import correction_log, session_revocation
from turf_gateway import tables as t
from turf_gateway.accounts import change_status, disqualification, log_action
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import Organizer, State
from turf_gateway.api.types import IsoTime
from turf_gateway.commands import ask, ask_model
from turf_gateway.errors import ApiError
from turf_gateway.state import AppState

router = APIRouter(prefix="/admin", tags=["organizer"])


class Reason(BaseModel):
    """``reason``: public (a disqualification's is on ``GET /corrections`` and the feed); ``note``: the
    organizer's private note (issue 15), kept in the organizer's logs only."""
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""
    note: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)] | None = None


class ClockMove(BaseModel):
    model_config = ConfigDict(extra="forbid")
    now: IsoTime


@router.post("/players/{player_id}/verify", response_model=S.PlayerStatus)
async def verify_player(player_id: str, body: Reason, org: Organizer, state: State) -> S.PlayerStatus:
    """Verify a pending (or rejected) player by hand (R27). Publishes ``player.verified``."""
    return await _set_status(state, org.id, player_id, "verified", body.reason, body.note)


@router.post("/players/{player_id}/reject", response_model=S.PlayerStatus)
async def reject_player(player_id: str, body: Reason, org: Organizer, state: State) -> S.PlayerStatus:
    """Reject a registration (R27): the player stays registered but may not play."""
    return await _set_status(state, org.id, player_id, "rejected", body.reason, body.note)


@router.post("/players/{player_id}/disqualify", response_model=S.PlayerStatus)
async def disqualify_player(player_id: str, body: Reason, org: Organizer, state: State) -> S.PlayerStatus:
    """Disqualify (R28): the player's territories become unclaimed and they leave the standings; their sessions
    end (issue 15). ``reason`` is public (the corrections log, the feed), ``note`` private."""
    return await _set_status(state, org.id, player_id, "disqualified", body.reason, body.note)


async def _set_status(state: AppState, by: str, player_id: str, new: str, reason: str,
                      note: str | None = None) -> S.PlayerStatus:
    """Change a player's status. A disqualification is also a correction (R28): its log record commits with the
    status change, and the answer waits until claims and scoring have applied it (the player's territories freed,
    the player out of the standings: the next read shows it; a repeat asks again, applied once). ``note`` goes to
    the organizer's logs only (the admin log's detail, the correction's ``request``), never to the public record or
    the feed."""
    now = await state.clock.now()
    async with state.engine.begin() as conn:
        before = await change_status(conn, player_id, new, by=by, reason=reason or None, game_now=now, note=note)
        if new == "disqualified" and before != new:
            await correction_log.append(
                conn, cid=uuid.uuid4().hex, at=now, by=by, action="disqualify", reason=reason or "-",
                post_season=gametime.season_state(state.season, now) == "closed",
                request={"player_id": player_id} | ({"note": note} if note else {}), before={"status": before},
                after={"status": new}, player_id=player_id)
    if before != new:   # issue 21: no gateway answers the old status (or a dead session) from its cache
        await session_revocation.revoke(state, player_id=player_id)
    await state.relay.flush()
    if new == "disqualified":   # R28: read-your-writes for the organizer (and everyone after)
        ev = disqualification(player_id, now)
        await asyncio.gather(*(state.services.ask(subject, ev, PlayerExcluded, 15)
                               for subject in (subjects.CLAIMS_DISQUALIFY, subjects.SCORING_DISQUALIFY)))
    return S.PlayerStatus(id=player_id, status=new)


@router.get("/players", response_model=S.AdminPlayers)
async def list_players(org: Organizer, state: State) -> dict[str, Any]:
    """Every player with status, private fields and the R27 duplicate-address flag, for the organizer."""
    async with state.engine.connect() as conn:
        rows = (await conn.execute(select(t.players).where(t.players.c.role == "player")
                                   .order_by(t.players.c.created_at))).all()
    by_addr: dict[str, list[str]] = {}
    for r in rows:
        if r.address_norm:
            by_addr.setdefault(r.address_norm, []).append(r.id)
    return {"players": [
        {"id": r.id, "name": r.name, "display_name": r.discord, "email": r.email, "discord": r.discord,
         "home_address": r.home_address, "status": r.status, "status_reason": r.status_reason,
         "created_at": r.created_at.isoformat(),
         "home": {"lat": r.home_lat, "lon": r.home_lon} if r.home_lat is not None else None,
         "same_address_as": [o for o in by_addr.get(r.address_norm or "", []) if o != r.id]}
        for r in rows]}


@router.post("/clock", response_model=S.ClockMoved)
async def move_clock(body: ClockMove, org: Organizer, state: State) -> dict[str, Any]:
    """Manual clock only: move forward to ``now``; answers once every service has handled every event up to it."""
    out = await ask(state, subjects.CLOCK_SET, SetClock(now=body.now), timeout=30)
    await wait_idle(state.broker, state.settings.stream, timeout=60)   # API.md: every event handled
    async with state.engine.begin() as conn:
        await log_action(conn, org.id, "move_clock", None, None, {"now": body.now.isoformat(),
                                                                   "events": out["events"]})
    return {"now": out["now"], "events": out["events"]}


@router.get("/flags", response_model=S.Flags)
async def flags(org: Organizer, state: State) -> dict[str, Any]:
    """Fixes flagged for review (R7.1: impossible travel, replayed fixes, zero accuracy), claims' and checks'.
    ``{flags: [{id, at, player_id, claim_id, kind, evidence, state, cleared}]}``, oldest first: ``claim_id`` null
    for a check's fix or a refused claim; ``evidence.trail``, when present, the map-free summary of the trail's legs
    (``from``, ``to``, ``km`` less both accuracies, ``minutes``, ``kmh``); ``state`` ``open`` or ``cleared``;
    ``cleared`` null or ``{at, by, reason}``."""
    rep = await ask_model(state, subjects.CLAIMS_FLAGS, FlagsRequest(), FlagsReply)
    async with state.engine.connect() as conn:
        cleared = await _clearances(conn)
    return {"flags": [_flag_out(state, f, cleared.get(f.id)) for f in rep.flags]}


@router.post("/flags/{flag_id}/clear", response_model=S.Flag)
async def clear_flag(flag_id: str, body: Reason, org: Organizer, state: State) -> dict[str, Any]:
    """Mark a flag reviewed and cleared (R7.1: flags never refuse, the organizer decides; acting on one is a
    correction, R28, or a disqualification). → 200 the flag as ``GET /admin/flags`` shows it; 404 ``not_found``
    for an unknown flag. Logged in the organizer's action log (``flag_cleared``) once: clearing a cleared flag
    answers its first clearance."""
    rep = await ask_model(state, subjects.CLAIMS_FLAGS, FlagsRequest(), FlagsReply)
    flag = next((f for f in rep.flags if f.id == flag_id), None)
    if flag is None:
        raise ApiError("not_found", "No such flag.")
    now = await state.clock.now()
    async with state.engine.begin() as conn:
        # one clearance per flag, also when the organizer clicks twice in two tabs
        await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": "flag:" + flag_id})
        if flag_id not in await _clearances(conn, flag_id):
            await log_action(conn, org.id, "flag_cleared", flag_id, body.reason or None, {
                "at": now.astimezone(state.season.tz).isoformat(), "kind": flag.kind, "player_id": flag.player_id,
                "claim_id": flag.claim_id})
        cleared = await _clearances(conn, flag_id)
    return _flag_out(state, flag, cleared.get(flag_id))


async def _clearances(conn: Any, flag_id: str | None = None) -> dict[str, dict[str, Any]]:
    """flag id → its first clearance ``{at (game time), by, reason}``, from the organizer's action log."""
    q = select(t.admin_log).where(t.admin_log.c.action == "flag_cleared")
    if flag_id is not None:
        q = q.where(t.admin_log.c.target == flag_id)
    out: dict[str, dict[str, Any]] = {}
    for r in (await conn.execute(q.order_by(t.admin_log.c.at, t.admin_log.c.id))).all():
        out.setdefault(r.target, {"at": (r.detail or {}).get("at") or r.at.isoformat(), "by": r.by,
                                  "reason": r.reason})
    return out


def _flag_out(state: Any, flag: FlagOut, cleared: dict[str, Any] | None) -> dict[str, Any]:
    """The flag as API.md gives it (``at`` in the season's zone, like every game time), with its review state."""
    return flag.model_dump(mode="json", exclude={"schema_version"}) | {
        "at": flag.at.astimezone(state.season.tz).isoformat(),
        "state": "cleared" if cleared else "open", "cleared": cleared}
