"""Public: a town's history, a player's season journal, and the replay of the public feed (API.md "History
and replay"), read from the gateway's feed log (:mod:`turf_gateway.handlers.history`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from turf_gateway.api.deps import HistoryCase
from turf_gateway.api.types import IsoQueryTime
from turf_gateway.ports import HISTORY_PAGE

router = APIRouter(tags=["history"])

Kind = Literal["take", "steal", "reinforce", "war_reclaim", "war", "mulligan", "joker", "trade", "correction",
               "disqualification", "withdrawal"]


class TerritoryEvent(BaseModel):
    at: str
    kind: Kind
    player_id: str | None          # the owner after the change; null when the town was left unowned
    previous_owner_id: str | None
    progress: int
    fortified: bool


class TerritoryHistory(BaseModel):
    history: list[TerritoryEvent]
    next_seq: int | None = None    # after_seq of the next page; null on the last


PageAfter = Annotated[int, Query(ge=0, le=2**63 - 1, description="the previous page's next_seq")]
PageLimit = Annotated[int, Query(ge=1, le=HISTORY_PAGE, description="at most this many (feed messages)")]


class JournalEntry(BaseModel):
    """``kind`` a change's kind (the player holds the town after it), ``lost`` (with ``by`` and ``cause``),
    ``card`` (``card_type``, ``state``) or ``trade_accepted`` (``trade_id``, ``partner_id``)."""

    model_config = ConfigDict(extra="allow")
    at: str
    kind: str
    territory_id: str | None


class DayTotals(BaseModel):
    day: str                       # the date in the season's zone
    claims: int
    steals: int                    # steals made
    stolen: int                    # steals suffered
    lost: int                      # towns lost otherwise (War, Trade, correction …)
    fortifications: int
    cards: int
    trades: int


class PlayerHistory(BaseModel):
    history: list[JournalEntry]
    days: list[DayTotals]          # the totals of this page's entries (the whole season on one default page)
    next_seq: int | None = None    # after_seq of the next page; null on the last


class ReplayEvent(BaseModel):
    model_config = ConfigDict(extra="allow")   # the feed message as spectators got it
    seq: int
    type: str
    at: str


class ReplayPage(BaseModel):
    events: list[ReplayEvent]
    next_seq: int | None           # after_seq of the next page; null on the last


@router.get("/territories/{territory_id}/history", response_model=TerritoryHistory)
async def territory_history(territory_id: str, history: HistoryCase, after_seq: PageAfter = 0,
                            limit: PageLimit = HISTORY_PAGE) -> dict[str, Any]:
    """Every change of the town's owner or fortification, oldest first, ``limit`` a page after ``after_seq``
    (``next_seq`` null on the last page); 404 ``not_found`` for no such town."""
    return await history.territory(territory_id, after_seq, limit)


@router.get("/players/{player_id}/history", response_model=PlayerHistory)
async def player_history(player_id: str, history: HistoryCase, after_seq: PageAfter = 0,
                         limit: PageLimit = HISTORY_PAGE) -> dict[str, Any]:
    """The player's public season record, oldest first, with daily totals, ``limit`` feed messages a page after
    ``after_seq`` (``next_seq`` null on the last page); 404 ``not_found`` for no such player."""
    return await history.player(player_id, after_seq, limit)


@router.get("/replay", response_model=ReplayPage)
async def replay(history: HistoryCase,
                 start: Annotated[IsoQueryTime | None, Query(alias="from")] = None,
                 end: Annotated[IsoQueryTime | None, Query(alias="to")] = None,
                 after_seq: Annotated[int, Query(ge=0, le=2**63 - 1)] = 0,
                 limit: Annotated[int, Query(ge=1, le=1000)] = 500) -> dict[str, Any]:
    """The public feed of ``from`` <= at < ``to`` (either open), in stream order, ``limit`` messages a page after
    ``after_seq``; ``next_seq`` is the next page's ``after_seq``, null on the last page."""
    return await history.replay(start, end, after_seq, limit)
