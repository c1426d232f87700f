"""A player's public season (public, no sign-in): medals, footprint and recap, recomputed from the public feed by
:class:`turf_gateway.handlers.profiles.Profiles`. Public facts only: never an email, address or fix (R27, R30)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel

from turf_gateway.api.deps import ProfilesCase

router = APIRouter(tags=["profiles"])

Tier = Literal["bronze", "silver", "gold", "platinum"]


class Earned(BaseModel):
    tier: Tier
    at: str                        # when the history reached the tier's threshold


class Medal(BaseModel):
    id: str
    name: str
    counts: str                    # what the medal counts, in words
    value: int
    tier: Tier | None              # the highest tier reached; null below bronze
    thresholds: dict[Tier, int]
    next_threshold: int | None     # null once platinum
    earned: list[Earned]


class PlayerMedals(BaseModel):
    player_id: str
    display_name: str
    version: int                   # of the season's medal file
    as_of: str                     # the instant the history was read up to (now, or the season's close)
    medals: list[Medal]


class FootprintTown(BaseModel):
    territory_id: str
    name: str
    status: Literal["held", "lost"]   # held now, or held once and lost
    claims: int                       # GPS claims of it (War reclaims included)
    lost: int                         # times it was taken away
    first_at: str | None
    last_at: str | None


class Footprint(BaseModel):
    player_id: str
    display_name: str
    as_of: str
    towns: list[FootprintTown]


class LongestHold(BaseModel):
    territory_id: str
    name: str
    days: int                      # game-day closes held through without a break
    since: str


class BestSteal(BaseModel):
    territory_id: str
    name: str
    at: str
    from_id: str
    held_days: int


class Rival(BaseModel):
    player_id: str
    display_name: str
    given: int                       # steals of the rival's towns
    taken: int                       # steals of the player's towns by the rival


class Stats(BaseModel):
    claims_by_hour: dict[str, int]   # local hour (R1) → GPS claims
    steals_given: int
    steals_taken: int
    rival_id: str | None             # the player with the most steals between the two, either way
    rival_name: str | None
    rival_steals: int
    rivals: list[Rival]              # the five players fought most


class Recap(BaseModel):
    player_id: str
    display_name: str
    as_of: str
    final: bool                      # the place is the final one (R25), else the live rank
    place: int | None
    towns_held: int
    towns_ever: int
    longest_hold: LongestHold | None
    best_steal: BestSteal | None
    medals: list[Medal]              # the medals with a tier
    footprint: list[FootprintTown]
    stats: Stats


@router.get("/players/{player_id}/medals", response_model=PlayerMedals)
async def player_medals(player_id: str, profiles: ProfilesCase) -> dict[str, Any]:
    """Every medal of the season with the player's count, tier and when each tier was earned, recomputed from the
    public feed (docs/medals.md); 404 ``not_found`` for no such player."""
    return await profiles.medals(player_id)


@router.get("/players/{player_id}/footprint", response_model=Footprint)
async def player_footprint(player_id: str, profiles: ProfilesCase) -> dict[str, Any]:
    """Every town the player held this season, ``held`` now or ``lost``, with its GPS claims; 404 ``not_found``."""
    return await profiles.footprint(player_id)


@router.get("/players/{player_id}/recap", response_model=Recap)
async def player_recap(player_id: str, profiles: ProfilesCase) -> dict[str, Any]:
    """The player's season recap: place (final once the season has closed), towns held, longest hold, best steal,
    medals, footprint and statistics; 404 ``not_found``."""
    return await profiles.recap(player_id)


PNG = {200: {"content": {"image/png": {}}, "description": "a PNG image"}}


@router.get("/players/{player_id}/recap.png", response_class=Response, responses=PNG)  # type: ignore[arg-type]
async def player_recap_png(player_id: str, profiles: ProfilesCase) -> Response:
    """The recap as a shareable PNG (made on the server with matplotlib): name, place, towns, medals, the
    footprint map and the claims by hour; 404 ``not_found``."""
    return Response(await profiles.recap_png(player_id), media_type="image/png",
                    headers={"Cache-Control": "public, max-age=60"})


@router.get("/players/{player_id}/stats.png", response_class=Response, responses=PNG)  # type: ignore[arg-type]
async def player_stats_png(player_id: str, profiles: ProfilesCase) -> Response:
    """The player's statistics as a plot: claims by hour of the day, steals given and taken with the players fought
    most; 404 ``not_found``."""
    return Response(await profiles.stats_png(player_id), media_type="image/png",
                    headers={"Cache-Control": "public, max-age=60"})
