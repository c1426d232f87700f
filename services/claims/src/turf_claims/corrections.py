"""Organizer corrections of ownership (R28), applied by the claims service:

* ``reverse_claim``: what the claim replaced comes back (owner and fortification), the claim is marked undone;
  only the territory's latest standing claim can be reversed (later moves first);
* ``set_owner``: the territory goes to a player, keeping its fortification state (R11: it belongs to the
  territory), or becomes unclaimed (fortification cleared);
* a disqualified player's territories all become unclaimed (``player.disqualified``).

Corrections are allowed whether the game is open or not, and after the season closes (R25: flagged post-season
by the gateway). Each is idempotent by its command id and each ownership change is a ``territory.changed``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from turf_claims.adapters import tables as t
from turf_claims.adapters.commands import first_reply, store_reply
from turf_claims.handlers import ClaimsService
from turf_common.contracts import subjects
from turf_common.contracts.base import Message, Refusal, decode_reply
from turf_common.contracts.claims import (
    CorrectOwnership,
    OwnershipCorrected,
    TerritoryChanged,
    TerritoryStateOut,
)
from turf_common.contracts.players import PlayerDisqualified
from turf_common.outbox import first_time, stage
from turf_common.rules.claims import Fortification

UNCLAIMED = Fortification(0, None, False)


async def release_player(svc: ClaimsService, ev: PlayerDisqualified) -> list[str]:
    """R28 disqualification: every territory the player owns becomes unclaimed. Applied once per event id.
    Returns the freed territory ids."""
    freed: list[str] = []
    async with svc.engine.begin() as conn:
        if not await first_time(conn, t.inbox, ev.event_id, subjects.PLAYER_DISQUALIFIED):
            return []
        rows = (await conn.execute(select(t.territories).where(t.territories.c.owner_id == ev.player_id)
                                   .order_by(t.territories.c.id).with_for_update())).all()
        for r in rows:
            await _set(conn, ev.at, r.id, None, ev.player_id, UNCLAIMED, "disqualification")
            freed.append(r.id)
    await svc.relay.flush()
    return freed


async def _set(conn: AsyncConnection, now: datetime, territory_id: str, owner_id: str | None,
               previous_owner_id: str | None, fort: Fortification, cause: str, claim_id: str | None = None) -> int:
    version = (await conn.execute(update(t.territories).where(t.territories.c.id == territory_id).values(
        owner_id=owner_id, progress=fort.progress, last_claim_day=fort.last_claim_day, fortified=fort.fortified,
        version=t.territories.c.version + 1).returning(t.territories.c.version))).scalar_one()
    await stage(conn, t.outbox, subjects.TERRITORY_CHANGED, TerritoryChanged(
        occurred_at=now, territory_id=territory_id, owner_id=owner_id, previous_owner_id=previous_owner_id,
        progress=fort.progress, fortified=fort.fortified, version=int(version), cause=cause,  # type: ignore[arg-type]
        claim_id=claim_id))
    return int(version)


def _out(row: Any) -> TerritoryStateOut:
    return TerritoryStateOut(id=row.id, owner_id=row.owner_id, progress=row.progress, fortified=row.fortified)


async def correct(svc: ClaimsService, cmd: CorrectOwnership) -> Message:
    """Apply one ownership correction; a repeat of ``command_id`` answers the first reply. Refusals:
    ``not_found`` (unknown claim or territory), ``conflict`` (claim already undone, or not the territory's
    latest standing move), ``invalid_input`` (missing argument)."""
    now = await svc.clock.now()
    async with svc.engine.begin() as conn:
        prev = await first_reply(conn, cmd.command_id)
        if prev is not None:
            return decode_reply(prev, OwnershipCorrected)
        reply = await _apply(conn, now, cmd)
        await store_reply(conn, cmd.command_id, "correction_" + cmd.action, cmd.player_id or "", reply, now)
    await svc.relay.flush()
    return reply


async def _apply(conn: AsyncConnection, now: datetime, cmd: CorrectOwnership) -> Message:
    if cmd.action == "reverse_claim":
        if not cmd.claim_id:
            return Refusal(reason="invalid_input", message="reverse_claim needs a claim_id.")
        claim = (await conn.execute(select(t.claims).where(t.claims.c.id == cmd.claim_id))).first()
        if claim is None:
            return Refusal(reason="not_found", message="No claim with that id.")
        before = (await conn.execute(select(t.territories).where(t.territories.c.id == claim.territory_id)
                                     .with_for_update())).one()
        if claim.undone_by is not None:
            return Refusal(reason="conflict", message=f"That claim was already undone ({claim.undone_by}).")
        later = (await conn.execute(select(t.claims.c.id).where(
            t.claims.c.territory_id == claim.territory_id, t.claims.c.undone_by.is_(None),
            t.claims.c.at > claim.at).limit(1))).first()
        if later is not None or before.owner_id != claim.player_id:
            return Refusal(reason="conflict",
                           message="The territory changed hands after that claim; reverse the later moves first.")
        await conn.execute(update(t.claims).where(t.claims.c.id == claim.id).values(undone_by="correction"))
        fort = Fortification(claim.prev_progress, claim.prev_last_claim_day, claim.prev_fortified)
        await _set(conn, now, claim.territory_id, claim.previous_owner_id, claim.player_id, fort, "correction",
                   claim.id)
        tid = claim.territory_id
    else:
        if not cmd.territory_id:
            return Refusal(reason="invalid_input", message="set_owner needs a territory_id.")
        found = (await conn.execute(select(t.territories).where(t.territories.c.id == cmd.territory_id)
                                    .with_for_update())).first()
        if found is None:
            return Refusal(reason="not_found", message="No territory with that id.")
        before = found
        fort = UNCLAIMED if cmd.player_id is None else \
            Fortification(before.progress, before.last_claim_day, before.fortified)
        await _set(conn, now, cmd.territory_id, cmd.player_id, before.owner_id, fort, "correction")
        tid = cmd.territory_id
    after = (await conn.execute(select(t.territories).where(t.territories.c.id == tid))).one()
    return OwnershipCorrected(command_id=cmd.command_id, territory_id=tid, before=_out(before), after=_out(after))

