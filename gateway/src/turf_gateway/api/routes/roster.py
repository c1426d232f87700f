"""Who the play page's card forms and colours may name. ``GET /players``: the verified players with their
join order (the map's colour is picked by it); ``GET /me/trade-partners``: R18's possible Trade partners, asked of
the cards service (``cards.trade_holders``). Public names only, never email or address (R27). Documented in
docs/card-forms.md."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from turf_gateway.api.deps import CardsCase, PlayerOnly, PlayersCase
from turf_gateway.ports import ROSTER_PAGE

router = APIRouter(tags=["players"])


class RosterEntry(BaseModel):
    id: str
    display_name: str
    join_index: int = Field(ge=0, description="0 for the first player who registered, 1 for the next, …; never "
                                              "changes, so a player's colour is the same on every page and day")


class Roster(BaseModel):
    players: list[RosterEntry]
    next: int | None = Field(default=None, description="The next page's `after`; null on the last")


class TradePartner(BaseModel):
    player_id: str
    display_name: str


class TradePartners(BaseModel):
    partners: list[TradePartner]
    in_dispute: list[str] = Field(
        description="the caller's and these partners' territories that cannot be traded now (R14 "
                    "territory_in_dispute: a War window open on the thief's town, or a reclaim window on the "
                    "victim's), sorted")


@router.get("/players", response_model=Roster)
async def roster(players: PlayersCase,
                 after: Annotated[int, Query(ge=-1, le=2**31 - 1,
                                             description="the previous page's `next`: join indexes over it")] = -1,
                 limit: Annotated[int, Query(ge=1, le=ROSTER_PAGE)] = ROSTER_PAGE) -> Roster:
    """The verified players (R27: not pending, rejected or disqualified ones, never the organizer) in join order.
    ``join_index`` counts every player's registration, so it stays when an earlier registrant is verified later.
    ``limit`` players a page after join index ``after``; ``next`` is the next page's ``after``."""
    rows, nxt = await players.roster(after, limit)
    return Roster(players=[RosterEntry(id=r.id, display_name=r.display_name, join_index=r.join_index)
                           for r in rows], next=nxt)


@router.get("/me/trade-partners", response_model=TradePartners)
async def trade_partners(caller: PlayerOnly, cards: CardsCase) -> TradePartners:
    """R18: the other verified players holding a ready Trade card now, the only ones a proposal may name
    (``invalid_target`` otherwise), and the territories of the caller and of those players that are in a War
    dispute now (R14, ``territory_in_dispute``). Nothing else of their hands is told."""
    out = await cards.trade_options(caller.id)
    return TradePartners(partners=[TradePartner(player_id=p.player_id, display_name=p.display_name)
                                   for p in out.partners], in_dispute=out.in_dispute)
