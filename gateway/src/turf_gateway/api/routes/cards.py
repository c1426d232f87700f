"""Cards and trades (R12–R20): the caller's hand, card plays, cancelling a scheduled card, trade proposals.
The gateway checks the shape of the input; the cards service decides (and runs the sagas with claims). The organizer
is not a player (R27): card plays, schedules and every ``/trades`` route answer it 403 ``forbidden``."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, StringConstraints, model_validator

from turf_common.contracts.cards import CardOut
from turf_common.rules.cards import CardType
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CardsCase, CurrentPlayer, PlayerOnly
from turf_gateway.api.responses import ModelResponse

router = APIRouter(tags=["cards"])

Id = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
PathId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]

# the argument each card type takes (API.md); any other argument is malformed input
ARGUMENT: dict[str, str | None] = {"freeze": "territory_id", "blockade": "rival_id", "war": "territory_id",
                                   "double_trouble": None, "mulligan": "claim_id", "joker": "mode"}


class PlayBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: CardType
    territory_id: Id | None = None
    rival_id: Id | None = None
    claim_id: Id | None = None
    mode: Literal["random", "cluster_edge"] | None = None

    @model_validator(mode="after")
    def _arguments(self) -> PlayBody:
        if self.type == "trade":
            raise ValueError("a Trade card is played by proposing a trade: POST /trades")
        wanted = ARGUMENT[self.type]
        given = {k for k in ("territory_id", "rival_id", "claim_id", "mode") if getattr(self, k) is not None}
        if wanted is not None and wanted not in given:
            raise ValueError(f"{self.type} needs {wanted}")
        extra = given - {wanted}
        if extra:
            raise ValueError(f"{self.type} takes no {', '.join(sorted(extra))}")
        return self


class TradeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    offer_territory_id: Id
    want_territory_id: Id


def _cards(cards: list[CardOut]) -> list[S.Card]:
    # a hand holds no removed card (only a correction's reply names one)
    return [S.Card(id=c.id, type=c.type, state=c.state) for c in cards]  # type: ignore[arg-type]


@router.get("/me/hand", response_model=S.Hand)
async def hand(caller: CurrentPlayer, cards: CardsCase) -> S.Hand:
    """The caller's unused cards: ``{cards: [{id, type, state}]}``, state ``ready`` or ``reserved`` (R12)."""
    return S.Hand(cards=_cards(await cards.hand(caller.id)))


@router.post("/cards/play", response_model=S.CardPlayed)
async def play(body: PlayBody, caller: PlayerOnly, cards: CardsCase) -> S.CardPlayed:
    """Play a card (R13–R20). 200 ``{card_id, type, state, effect}``; ``state`` ``consumed``, or ``reserved`` for a
    scheduled Freeze/Blockade. A refusal is 409 with its rule code and leaves the card in the hand."""
    out = await cards.play(caller, body.type, territory_id=body.territory_id, rival_id=body.rival_id,
                           claim_id=body.claim_id, mode=body.mode)
    return S.CardPlayed(card_id=out.card_id, type=out.type, state=out.state, effect=out.effect)


@router.delete("/cards/{card_id}/schedule", response_model=S.ScheduleCancelled)
async def cancel(card_id: PathId, caller: PlayerOnly, cards: CardsCase) -> S.ScheduleCancelled:
    """Cancel a scheduled Freeze or Blockade before it activates: the card is ``ready`` again (R15, R16)."""
    out = await cards.cancel(caller, card_id)
    return S.ScheduleCancelled(id=out.card_id, type=out.type, state=out.state)


@router.post("/trades", status_code=201, response_model=S.TradeOut,
             responses={201: {"model": S.TradeOut, "description": "Proposed"}})
async def propose(body: TradeBody, caller: PlayerOnly, cards: CardsCase) -> ModelResponse:
    """Propose own territory for a territory of a player who holds a Trade card (R18). 201 ``{id, state}``."""
    trade = await cards.propose(caller, body.offer_territory_id, body.want_territory_id)
    return ModelResponse(trade, S.TradeOut, 201)   # as POST /claims (api/responses.py)


@router.post("/trades/{trade_id}/accept", response_model=S.TradeOut)
async def accept(trade_id: PathId, caller: PlayerOnly, cards: CardsCase) -> S.TradeOut:
    """The partner accepts: owners swap, fortification travels, one Trade card of each is consumed (R18);
    409 ``trade_no_longer_valid`` (and the proposal is cancelled) when that can no longer happen."""
    trade = await cards.trade(caller, "accept", trade_id)
    return S.TradeOut(id=trade.id, state=trade.state)


@router.post("/trades/{trade_id}/decline", response_model=S.TradeOut)
async def decline(trade_id: PathId, caller: PlayerOnly, cards: CardsCase) -> S.TradeOut:
    trade = await cards.trade(caller, "decline", trade_id)
    return S.TradeOut(id=trade.id, state=trade.state)


@router.post("/trades/{trade_id}/withdraw", response_model=S.TradeOut)
async def withdraw(trade_id: PathId, caller: PlayerOnly, cards: CardsCase) -> S.TradeOut:
    trade = await cards.trade(caller, "withdraw", trade_id)
    return S.TradeOut(id=trade.id, state=trade.state)


@router.get("/trades", response_model=S.Trades)
async def trades(caller: PlayerOnly, cards: CardsCase) -> S.Trades:
    """The caller's open proposals, both directions."""
    mine = await cards.trades(caller.id)
    return S.Trades(trades=[S.Trade(**tr.model_dump(exclude={"schema_version"})) for tr in mine])
