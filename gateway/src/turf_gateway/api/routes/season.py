"""``GET /season`` (public, beyond API.md): the season's calendar and limits as configured (R1–R3, R7, R7.1), so the
pages' "How to play" gives this season's dates and hours, not a copy that can go stale."""

from __future__ import annotations

from fastapi import APIRouter

from turf_gateway.api.deps import PublicCase
from turf_gateway.api.schemas import Season

router = APIRouter(tags=["public"])


@router.get("/season", response_model=Season)
async def season(public: PublicCase) -> Season:
    """The season's calendar: its game days with their opening and closing instants, and the R7 limits."""
    return await public.season_now()
