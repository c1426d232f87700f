"""Cards and trades as use cases (R12–R20): ask the cards service, which decides (and runs a card play's or a
trade's saga with the claims service). A refusal comes back as the service's ApiError (its rule code, R29): 409 for
a rule, 404 for an unknown card or trade; the card stays in the hand."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from turf_common.contracts import subjects
from turf_common.contracts.cards import (
    CancelReply,
    CancelSchedule,
    CardOut,
    HandReply,
    HandRequest,
    PlayCard,
    PlayReply,
    ProposeTrade,
    TradeAction,
    TradeHoldersReply,
    TradeHoldersRequest,
    TradeOut,
    TradeReply,
    TradesReply,
    TradesRequest,
)
from turf_common.contracts.effects import JokerMode
from turf_common.contracts.outlook import OutlookReply, OutlookRequest
from turf_common.rules.cards import CardType
from turf_gateway.api.errors import ApiError
from turf_gateway.ports import Caller, PlayerStore, Services

if TYPE_CHECKING:
    from turf_gateway.handlers.seasons import Seasons

#: seconds to wait for the cards service (a card play runs a saga with claims)
TIMEOUT = 20.0

#: a partner's answer to a proposal, or the proposer's withdrawal (R18), and the subject that asks it
TRADE_ACTIONS = {"accept": subjects.TRADES_ACCEPT, "decline": subjects.TRADES_DECLINE,
                 "withdraw": subjects.TRADES_WITHDRAW}
TradeMove = Literal["accept", "decline", "withdraw"]


@dataclass(frozen=True)
class Partner:
    player_id: str
    display_name: str


@dataclass(frozen=True)
class TradeOptions:
    """Whom a proposal may name now (R18), in the cards service's order, and the territories of the caller and of
    those players in a War dispute now (R14 ``territory_in_dispute``), sorted."""

    partners: list[Partner]
    in_dispute: list[str]


@dataclass
class Cards:
    services: Services
    players: PlayerStore
    seasons: Seasons | None = None   # R31: a player who has not joined the running season plays no card in it

    async def hand(self, player_id: str) -> list[CardOut]:
        """The player's unused cards, ``ready`` or ``reserved`` (R12)."""
        out = await self.services.ask(subjects.CARDS_HAND, HandRequest(player_id=player_id), HandReply, TIMEOUT)
        return out.cards

    async def play(self, caller: Caller, card: CardType, *, territory_id: str | None = None,
                   rival_id: str | None = None, claim_id: str | None = None,
                   mode: JokerMode | None = None) -> PlayReply:
        """Play a card of type ``card`` with its one argument (R13–R20): ``state`` ``consumed``, or ``reserved``
        for a scheduled Freeze or Blockade. The caller's status travels with it: the service refuses a player
        not verified (R27); 409 ``not_joined`` for a player who has not joined the running season (R31)."""
        if self.seasons is not None and (refused := await self.seasons.not_joined(caller)) is not None:
            raise ApiError(refused.reason, refused.message)
        cmd = PlayCard(player_id=caller.id, player_status=caller.status, type=card, territory_id=territory_id,
                       rival_id=rival_id, claim_id=claim_id, mode=mode)
        return await self.services.ask(subjects.CARDS_PLAY, cmd, PlayReply, TIMEOUT)

    async def cancel(self, caller: Caller, card_id: str) -> CancelReply:
        """Cancel a scheduled Freeze or Blockade before it activates: the card is ``ready`` again (R15, R16)."""
        cmd = CancelSchedule(player_id=caller.id, player_status=caller.status, card_id=card_id)
        return await self.services.ask(subjects.CARDS_CANCEL, cmd, CancelReply, TIMEOUT)

    async def propose(self, caller: Caller, offer_territory_id: str, want_territory_id: str) -> TradeOut:
        """Propose the caller's ``offer_territory_id`` for ``want_territory_id`` (R18); the proposal, ``open``."""
        cmd = ProposeTrade(player_id=caller.id, player_status=caller.status,
                           offer_territory_id=offer_territory_id, want_territory_id=want_territory_id)
        return (await self.services.ask(subjects.TRADES_PROPOSE, cmd, TradeReply, TIMEOUT)).trade

    async def trade(self, caller: Caller, move: TradeMove, trade_id: str) -> TradeOut:
        """Accept, decline or withdraw a proposal (R18); the trade as it is then. An accept that can no longer
        happen is refused ``trade_no_longer_valid`` (and the service cancels the proposal)."""
        cmd = TradeAction(player_id=caller.id, player_status=caller.status, trade_id=trade_id)
        return (await self.services.ask(TRADE_ACTIONS[move], cmd, TradeReply, TIMEOUT)).trade

    async def trades(self, player_id: str) -> list[TradeOut]:
        """The player's open proposals, both directions."""
        out = await self.services.ask(subjects.TRADES_LIST, TradesRequest(player_id=player_id), TradesReply,
                                      TIMEOUT)
        return out.trades

    async def trade_options(self, player_id: str) -> TradeOptions:
        """R18: the other verified players holding a ready Trade card now (``cards.trade_holders``) with their
        public display names (R27), and the disputed territories of either side: each one's with a War or reclaim
        window open in its outlook (``claims.outlook``, R14), asked together (the holders of a Trade card are
        few; the play page's Trade form leaves these towns out). Nothing else of their hands is told."""
        out = await self.services.ask(subjects.CARDS_TRADE_HOLDERS, TradeHoldersRequest(player_id=player_id),
                                      TradeHoldersReply)
        names = await self.players.display_names(out.player_ids)
        outlooks = await asyncio.gather(*(
            self.services.ask(subjects.CLAIMS_OUTLOOK, OutlookRequest(player_id=i), OutlookReply)
            for i in [player_id, *out.player_ids]))
        disputed = sorted({t.id for o in outlooks for t in o.territories if t.reclaim_until or t.war_until})
        return TradeOptions([Partner(i, names[i]) for i in out.player_ids], disputed)
