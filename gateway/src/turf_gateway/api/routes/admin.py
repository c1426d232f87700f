"""Organizer routes: verify players, move a manual clock, review flags (R7.1). Every action goes to the admin log
(who, when, why)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, StringConstraints

from turf_gateway.api import schemas as S
from turf_gateway.api.deps import ClockMoves, FlagsCase, Organizer, PlayersCase
from turf_gateway.api.types import IsoTime

router = APIRouter(prefix="/admin", tags=["organizer"])


class Reason(BaseModel):
    """``reason``: public (a disqualification's is on ``GET /corrections`` and the feed); ``note``: the
    organizer's private note, kept in the organizer's logs only."""
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, StringConstraints(strip_whitespace=True, max_length=1000)] = ""
    note: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)] | None = None


class ClockMove(BaseModel):
    model_config = ConfigDict(extra="forbid")
    now: IsoTime


@router.post("/players/{player_id}/verify", response_model=S.PlayerStatus)
async def verify_player(player_id: str, body: Reason, org: Organizer, players: PlayersCase) -> S.PlayerStatus:
    """Verify a pending (or rejected) player by hand (R27). Publishes ``player.verified``."""
    return await players.set_status(org.id, player_id, "verified", body.reason, body.note)


@router.post("/players/{player_id}/reject", response_model=S.PlayerStatus)
async def reject_player(player_id: str, body: Reason, org: Organizer, players: PlayersCase) -> S.PlayerStatus:
    """Reject a registration (R27): the player stays registered but may not play."""
    return await players.set_status(org.id, player_id, "rejected", body.reason, body.note)


@router.post("/players/{player_id}/disqualify", response_model=S.PlayerStatus)
async def disqualify_player(player_id: str, body: Reason, org: Organizer, players: PlayersCase) -> S.PlayerStatus:
    """Disqualify (R28): the player's territories become unclaimed and they leave the standings, both before the
    answer (the next read shows it); their sessions end. ``reason`` is public (the
    corrections log, the feed), ``note`` private."""
    return await players.set_status(org.id, player_id, "disqualified", body.reason, body.note)


@router.get("/players", response_model=S.AdminPlayers)
async def list_players(org: Organizer, players: PlayersCase) -> S.AdminPlayers:
    """Every player with status, private fields and the R27 duplicate-address flag, for the organizer."""
    return await players.admin_players()


@router.post("/clock", response_model=S.ClockMoved)
async def move_clock(body: ClockMove, org: Organizer, clock_moves: ClockMoves) -> S.ClockMoved:
    """Manual clock only: move forward to ``now``; answers once every service has handled every event up to it."""
    return await clock_moves.move(org.id, body.now)


@router.get("/flags", response_model=S.Flags)
async def flags(org: Organizer, flagged: FlagsCase) -> S.Flags:
    """Fixes flagged for review (R7.1: impossible travel, replayed fixes, zero accuracy), claims' and checks'.
    ``{flags: [{id, at, player_id, claim_id, kind, evidence, state, cleared}]}``, oldest first: ``claim_id`` null
    for a check's fix or a refused claim; ``evidence.trail``, when present, the map-free summary of the trail's legs
    (``from``, ``to``, ``km`` less both accuracies, ``minutes``, ``kmh``); ``state`` ``open`` or ``cleared``;
    ``cleared`` null or ``{at, by, reason}``."""
    return await flagged.flags()


@router.post("/flags/{flag_id}/clear", response_model=S.Flag)
async def clear_flag(flag_id: str, body: Reason, org: Organizer, flagged: FlagsCase) -> S.Flag:
    """Mark a flag reviewed and cleared (R7.1: flags never refuse, the organizer decides; acting on one is a
    correction, R28, or a disqualification). → 200 the flag as ``GET /admin/flags`` shows it; 404 ``not_found``
    for an unknown flag. Logged in the organizer's action log (``flag_cleared``) once: clearing a cleared flag
    answers its first clearance."""
    return await flagged.clear(flag_id, org.id, body.reason)
