"""Cards and trades as use cases (R12–R20): ask the cards service, which decides (and runs a card play's or a
trade's saga with the claims service). A refusal comes back as the service's ApiError (its rule code, R29): 409 for
a rule, 404 for an unknown card or trade; the card stays in the hand.

Issue 39: a player's hand is kept in the session cache's memory (``GET /me/hand`` asks the cards service once, then
not again while it holds) and forgotten by whatever may change it: here, this gateway's own card plays, schedule
cancels and trade moves, at once; a move of the manual clock (a day start deals, R5, R12) and an organizer's
correction (their use cases); in every gateway, the feed's card and trade events naming the player
(:mod:`turf_gateway.feed.relay`); and the player's status changes, with their sessions."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

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
from turf_gateway.ports import Caller, PlayerStore, Services
from turf_gateway.session_cache import SessionCache

#: seconds to wait for the cards service (a card play runs a saga with claims)
TIMEOUT = 20.0

#: a partner's answer to a proposal, or the proposer's withdrawal (R18), and the subject that asks it
TRADE_ACTIONS = {"accept": subjects.TRADES_ACCEPT, "decline": subjects.TRADES_DECLINE,
                 "withdraw": subjects.TRADES_WITHDRAW}
TradeMove = Literal["accept", "decline", "withdraw"]
HAND = "hand"   # the session cache's fact kind


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
    hands: SessionCache[Any] | None = None   # issue 39: the hands kept (None: asked every time)

    async def hand(self, player_id: str) -> list[CardOut]:
        """The player's unused cards, ``ready`` or ``reserved`` (R12)."""
        kept = self.hands.fact(player_id, HAND) if self.hands is not None else None
        if kept is not None:
            return kept   # type: ignore[no-any-return]
        generation = self.hands.generation if self.hands is not None else 0
        out = await self.services.ask(subjects.CARDS_HAND, HandRequest(player_id=player_id), HandReply, TIMEOUT)
        if self.hands is not None:
            self.hands.keep_fact(player_id, HAND, out.cards, generation)
        return out.cards

    def forget_hands(self, player_ids: list[str] | None = None) -> None:
        """Forget the kept hands of ``player_ids`` (None: everyone's): they may have changed."""
        if self.hands is not None:
            self.hands.evict_fact(HAND, player_ids)

    async def play(self, caller: Caller, card: CardType, *, territory_id: str | None = None,
                   rival_id: str | None = None, claim_id: str | None = None,
                   mode: JokerMode | None = None) -> PlayReply:
        """Play a card of type ``card`` with its one argument (R13–R20): ``state`` ``consumed``, or ``reserved``
        for a scheduled Freeze or Blockade. The caller's status travels with it: the service refuses a player
        not verified (R27)."""
        cmd = PlayCard(player_id=caller.id, player_status=caller.status, type=card, territory_id=territory_id,
                       rival_id=rival_id, claim_id=claim_id, mode=mode)
        try:
            return await self.services.ask(subjects.CARDS_PLAY, cmd, PlayReply, TIMEOUT)
        finally:   # refused or not answered in time, the saga may still have moved the card
            self.forget_hands([caller.id])

    async def cancel(self, caller: Caller, card_id: str) -> CancelReply:
        """Cancel a scheduled Freeze or Blockade before it activates: the card is ``ready`` again (R15, R16)."""
        cmd = CancelSchedule(player_id=caller.id, player_status=caller.status, card_id=card_id)
        try:
            return await self.services.ask(subjects.CARDS_CANCEL, cmd, CancelReply, TIMEOUT)
        finally:
            self.forget_hands([caller.id])

    async def propose(self, caller: Caller, offer_territory_id: str, want_territory_id: str) -> TradeOut:
        """Propose the caller's ``offer_territory_id`` for ``want_territory_id`` (R18); the proposal, ``open``."""
        cmd = ProposeTrade(player_id=caller.id, player_status=caller.status,
                           offer_territory_id=offer_territory_id, want_territory_id=want_territory_id)
        return (await self.services.ask(subjects.TRADES_PROPOSE, cmd, TradeReply, TIMEOUT)).trade

    async def trade(self, caller: Caller, move: TradeMove, trade_id: str) -> TradeOut:
        """Accept, decline or withdraw a proposal (R18); the trade as it is then. An accept that can no longer
        happen is refused ``trade_no_longer_valid`` (and the service cancels the proposal)."""
        cmd = TradeAction(player_id=caller.id, player_status=caller.status, trade_id=trade_id)
        try:
            trade = (await self.services.ask(TRADE_ACTIONS[move], cmd, TradeReply, TIMEOUT)).trade
        finally:
            self.forget_hands([caller.id])
        self.forget_hands([trade.proposer_id, trade.partner_id])   # an accept uses the proposer's Trade card (R18)
        return trade

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
