"""Organizer-driven changes of ownership (R28) applied by the claims service: a disqualified player's territories
become unclaimed (fortification cleared); each change is a ``territory.changed`` through the outbox."""

from __future__ import annotations

from sqlalchemy import select, update

from turf_claims.adapters import tables as t
from turf_claims.handlers import ClaimsService
from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.players import PlayerDisqualified
from turf_common.outbox import first_time, stage


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
            version = (await conn.execute(update(t.territories).where(t.territories.c.id == r.id).values(
                owner_id=None, progress=0, last_claim_day=None, fortified=False,
                version=t.territories.c.version + 1).returning(t.territories.c.version))).scalar_one()
            await stage(conn, t.outbox, subjects.TERRITORY_CHANGED, TerritoryChanged(
                occurred_at=ev.at, territory_id=r.id, owner_id=None, previous_owner_id=ev.player_id, progress=0,
                fortified=False, version=version, cause="disqualification"))
            freed.append(r.id)
    await svc.relay.flush()
    return freed
