"""Seasons (R31, API.md "Seasons"): the catalog, one season, the organizer's new season and its changes, a player
joining, and a season's own copy of the public reads (``/seasons/{id}/leaderboard`` …)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CurrentPlayer, HistoryCase, Organizer, PublicCase, State
from turf_gateway.api.routes.history import PageAfter, PageLimit, PlayerHistory, ReplayPage, TerritoryHistory
from turf_gateway.api.types import IsoQueryTime
from turf_gateway.handlers.seasons import Seasons
from turf_gateway.ports import HISTORY_PAGE

router = APIRouter(tags=["seasons"])

Text = Annotated[str, StringConstraints(strip_whitespace=True, max_length=80)]


class PrizeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place: int
    amount: Annotated[str, StringConstraints(max_length=16)]


class SeasonChanges(BaseModel):
    """Any field of a season but ``id``; dates ``YYYY-MM-DD``, times ``HH:MM`` (checked by the rules, which name the
    field at fault in a sentence). ``limits`` and ``prizes`` default to the last season's."""

    model_config = ConfigDict(extra="forbid")
    name: Text | None = None
    zone: Text | None = None
    first_day: Annotated[str, StringConstraints(max_length=10)] | None = None
    last_day: Annotated[str, StringConstraints(max_length=10)] | None = None
    open_weekdays: Annotated[list[int], Field(max_length=7)] | None = None
    open_time: Annotated[str, StringConstraints(max_length=8)] | None = None
    close_time: Annotated[str, StringConstraints(max_length=8)] | None = None
    limits: dict[str, float] | None = None
    prizes: Annotated[list[PrizeIn], Field(max_length=100)] | None = None


class NewSeason(SeasonChanges):
    id: Annotated[str, StringConstraints(max_length=32)]
    # a throwaway season to try the game on the real clock (R31): never listed to players
    rehearsal: bool = False


async def get_seasons(state: State) -> Seasons:
    return state.seasons


#: the seasons' catalog, the organizer's seasons and joining (R31)
SeasonsCase = Annotated[Seasons, Depends(get_seasons)]


@router.get("/seasons", response_model=S.SeasonList)
async def list_seasons(seasons: SeasonsCase) -> dict[str, Any]:
    """Every season (``upcoming``, ``running`` or ``closed``), newest first; rehearsals are not listed."""
    return await seasons.listing()


@router.get("/seasons/{season_id}", response_model=S.SeasonRecord)
async def one_season(season_id: str, seasons: SeasonsCase) -> dict[str, Any]:
    """One season as the organizer made it; 404 ``not_found``."""
    return await seasons.one(season_id)


@router.post("/admin/seasons", response_model=S.SeasonRecord, status_code=201, tags=["organizer"])
async def create_season(body: NewSeason, org: Organizer, seasons: SeasonsCase) -> dict[str, Any]:
    """Make the next season (R31): 201 the season; 422 ``invalid_input`` naming the field (last day before the
    first, close not after open, a first opening already past, an unknown zone, a prize table that does not add
    up); 409 ``season_overlaps`` when its days overlap another season's; 409 ``conflict`` for an id in use.
    Publishes ``season.created`` with the commitment of its card seed (R12.1)."""
    return await seasons.create(org.id, body.model_dump(exclude_none=True))


@router.patch("/admin/seasons/{season_id}", response_model=S.SeasonRecord, tags=["organizer"])
async def change_season(season_id: str, body: SeasonChanges, org: Organizer, seasons: SeasonsCase) -> dict[str, Any]:
    """Change a season before its first opening: 200 the season; 409 ``season_started`` after it (then only
    corrections, R28); the refusals of ``POST /admin/seasons`` for the fields changed."""
    return await seasons.update(org.id, season_id, body.model_dump(exclude_unset=True))


@router.post("/seasons/{season_id}/join", response_model=S.SeasonJoined)
async def join_season(season_id: str, caller: CurrentPlayer, seasons: SeasonsCase) -> dict[str, Any]:
    """Take part in a season with one action, confirming one's home address (R31, R27): 200 ``{season_id,
    status}``; a repeat changes nothing; 409 ``season_closed`` for a closed season."""
    return await seasons.join(caller, season_id)


# ---- a season's own copy of the public reads ---------------------------------------------------------------------


@router.get("/seasons/{season_id}/leaderboard", response_model=S.Leaderboard)
async def season_leaderboard(season_id: str, seasons: SeasonsCase, public: PublicCase) -> dict[str, Any]:
    """``GET /leaderboard`` of that season (a past one's as it ended, R31)."""
    return await public.leaderboard((await seasons.archive(season_id)).season_id)


@router.get("/seasons/{season_id}/results", response_model=S.Results)
async def season_results(season_id: str, seasons: SeasonsCase, public: PublicCase) -> S.Results:
    """``GET /results`` of that season (409 ``season_not_closed`` while it runs)."""
    return await public.results((await seasons.archive(season_id)).season_id)


@router.get("/seasons/{season_id}/territories/{territory_id}/history", response_model=TerritoryHistory)
async def season_territory_history(season_id: str, territory_id: str, seasons: SeasonsCase, history: HistoryCase,
                                   after_seq: PageAfter = 0, limit: PageLimit = HISTORY_PAGE) -> dict[str, Any]:
    """``GET /territories/{tid}/history`` of that season."""
    season = await seasons.archive(season_id)
    return await history.territory(territory_id, after_seq, limit, season.window)


@router.get("/seasons/{season_id}/players/{player_id}/history", response_model=PlayerHistory)
async def season_player_history(season_id: str, player_id: str, seasons: SeasonsCase, history: HistoryCase,
                                after_seq: PageAfter = 0, limit: PageLimit = HISTORY_PAGE) -> dict[str, Any]:
    """``GET /players/{pid}/history`` of that season."""
    season = await seasons.archive(season_id)
    return await history.player(player_id, after_seq, limit, season.window,
                                season.season.config if season.season is not None else None)


@router.get("/seasons/{season_id}/replay", response_model=ReplayPage)
async def season_replay(season_id: str, seasons: SeasonsCase, history: HistoryCase,
                        start: Annotated[IsoQueryTime | None, Query(alias="from")] = None,
                        end: Annotated[IsoQueryTime | None, Query(alias="to")] = None,
                        after_seq: Annotated[int, Query(ge=0, le=2**63 - 1)] = 0,
                        limit: Annotated[int, Query(ge=1, le=1000)] = 500) -> dict[str, Any]:
    """``GET /replay`` of that season."""
    return await history.replay(start, end, after_seq, limit, (await seasons.archive(season_id)).window)
