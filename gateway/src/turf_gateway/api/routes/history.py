"""Issue 19, public: a town's history, a player's season journal, and the replay of the public feed (API.md "History
and replay"), read from the gateway's feed log (history_store.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from turf_gateway import history, history_store
from turf_gateway.api.deps import State
from turf_gateway.api.types import IsoQueryTime
from turf_gateway.errors import ApiError

router = APIRouter(tags=["history"])

Kind = Literal["take", "steal", "reinforce", "war_reclaim", "war", "mulligan", "joker", "trade", "correction",
               "disqualification"]


class TerritoryEvent(BaseModel):
    at: str
    kind: Kind
    player_id: str | None          # the owner after the change; null when the town was left unowned
    previous_owner_id: str | None
    progress: int
    fortified: bool


class TerritoryHistory(BaseModel):
    history: list[TerritoryEvent]


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
    days: list[DayTotals]


class ReplayEvent(BaseModel):
    model_config = ConfigDict(extra="allow")   # the feed message as spectators got it
    seq: int
    type: str
    at: str


class ReplayPage(BaseModel):
    events: list[ReplayEvent]
    next_seq: int | None           # after_seq of the next page; null on the last


@router.get("/territories/{territory_id}/history", response_model=TerritoryHistory)
async def territory_history(territory_id: str, state: State) -> dict[str, Any]:
    """Every change of the town's owner or fortification, oldest first; 404 ``not_found`` for no such town."""
    if territory_id not in state.board.territories:
        raise ApiError("not_found", "No territory with that id.")
    changes = await history_store.territory_changes(state, territory_id)
    return {"history": [history.territory_entry(m) for m in changes]}


@router.get("/players/{player_id}/history", response_model=PlayerHistory)
async def player_history(player_id: str, state: State) -> dict[str, Any]:
    """The player's public season record, oldest first, with daily totals; 404 ``not_found`` for no such player."""
    if await state.player_store.standing(player_id) is None:
        raise ApiError("not_found", "No such player.")
    entries = [e for m in await history_store.player_messages(state, player_id)
               if (e := history.journal_entry(player_id, m)) is not None]
    return {"history": entries, "days": history.daily_totals(entries, state.season.tz)}


@router.get("/replay", response_model=ReplayPage)
async def replay(state: State,
                 start: Annotated[IsoQueryTime | None, Query(alias="from")] = None,
                 end: Annotated[IsoQueryTime | None, Query(alias="to")] = None,
                 after_seq: Annotated[int, Query(ge=0, le=2**63 - 1)] = 0,
                 limit: Annotated[int, Query(ge=1, le=1000)] = 500) -> dict[str, Any]:
    """The public feed of ``from`` <= at < ``to`` (either open), in stream order, ``limit`` messages a page after
    ``after_seq``; ``next_seq`` is the next page's ``after_seq``, null on the last page."""
    if start is not None and end is not None and end < start:
        raise ApiError("invalid_input", "`to` is before `from`.")
    events, next_seq = await history_store.replay_page(state, start, end, after_seq, limit)
    return {"events": events, "next_seq": next_seq}
