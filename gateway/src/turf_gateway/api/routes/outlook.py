"""``GET /me/territories``: what the play page's countdowns show, asked of the claims service
(``claims.outlook``), which reads its own state at the game clock's instant. Documented in docs/countdowns.md."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter
from pydantic import AwareDatetime, BaseModel, Field

from turf_common.rules.outlook import StreakState
from turf_gateway.api.deps import CurrentPlayer, OutlookCase

router = APIRouter(tags=["players"])


class MyTerritory(BaseModel):
    id: str
    name: str
    progress: int = Field(ge=0, le=3)
    fortified: bool
    streak: StreakState = Field(description="fortified, claimed (today), keeps (a claim on claim_day counts +1), "
                                            "restarts (it restarts at 1) or over (no game day left)")
    claim_day: date | None = Field(description="the game day the next claim of it counts on")
    claim_opens: AwareDatetime | None
    claim_closes: AwareDatetime | None
    next_progress: int | None = Field(description="progress after a claim on claim_day; null when none is possible")
    claimed_today: bool
    keeps_streak_today: bool
    frozen_today: bool
    locked_today: bool
    reclaim_holder_id: str | None
    reclaim_until: AwareDatetime | None
    war_by: str | None = Field(description="the player it was stolen from, who may still play War on it")
    war_until: AwareDatetime | None


class MyWarDeadline(BaseModel):
    territory_id: str
    name: str
    by: str
    stolen_at: AwareDatetime
    war_until: AwareDatetime
    game_hours_left: float


class MyReclaimWindow(BaseModel):
    territory_id: str
    name: str
    owner_id: str | None
    until: AwareDatetime
    game_hours_left: float


class MyMulliganClaim(BaseModel):
    """R19: one of today's claims a Mulligan may undo now (docs/card-forms.md)."""

    claim_id: str
    territory_id: str
    name: str
    kind: str = Field(description="take, steal or reinforce")
    at: AwareDatetime


class MyTerritories(BaseModel):
    """The caller's territories and deadlines at the game clock's ``now``."""

    now: AwareDatetime
    territories: list[MyTerritory]
    war_deadlines: list[MyWarDeadline]
    reclaim_windows: list[MyReclaimWindow]
    mulligan_claims: list[MyMulliganClaim] = Field(
        description="today's own normal claims a Mulligan may undo now (R19), oldest first")


@router.get("/me/territories", response_model=MyTerritories)
async def my_territories(caller: CurrentPlayer, outlook: OutlookCase) -> MyTerritories:
    """The caller's territories with their fortification streak (R9, R11), Freeze (R15), same-day lock (R10) and
    War state (R14); the War deadlines on steals of their territories (5 game hours, R4/R14) and the reclaim
    windows they hold; today's claims a Mulligan may undo (R19). Changes nothing; the organizer, who owns nothing,
    gets empty lists."""
    out = await outlook.territories(caller.id)
    return MyTerritories.model_validate(out.model_dump(exclude={"ok", "player_id", "schema_version"}))
