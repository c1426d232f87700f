"""Issue 39: ``GET /me/hand`` asks the cards service once and then answers from the gateway's memory, until something
that may change the hand forgets it: the player's own play, cancel or trade move here, a move of the manual clock
(a day start deals, R5, R12), and the feed's card and trade events naming them (from any gateway), on fakes."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.cards import CardOut, HandReply, PlayReply, TradeOut, TradeReply
from turf_common.contracts.clock import ClockSet
from turf_gateway.errors import ApiError
from turf_gateway.feed.relay import forget_changed_hands
from turf_gateway.handlers.cards import Cards
from turf_gateway.handlers.clock import ManualClock
from turf_gateway.ports import Caller
from turf_gateway.session_cache import SessionCache
from turf_gateway.testing import MemoryPlayers

M = TypeVar("M", bound=Message)
ADA = Caller(id="ada", role="player", status="verified", display_name="Ada")
NOW = datetime.fromisoformat("2026-10-06T06:00:00-04:00")


class CardsService:
    """Answers hands (each read counted, the hand as it is now), plays (or refuses them) and trade accepts."""

    def __init__(self) -> None:
        self.hands: dict[str, list[str]] = {"ada": ["war", "joker"], "bob": ["trade"]}
        self.reads: dict[str, int] = {}
        self.refuse = False

    async def ask(self, subject: str, msg: Any, reply: type[M], timeout: float = 5.0) -> M:
        if subject == subjects.CARDS_HAND:
            self.reads[msg.player_id] = self.reads.get(msg.player_id, 0) + 1
            cards = [CardOut(id=f"{msg.player_id}-{i}", type=t, state="ready")   # type: ignore[arg-type]
                     for i, t in enumerate(self.hands[msg.player_id])]
            return HandReply(player_id=msg.player_id, cards=cards)  # type: ignore[return-value]
        if subject == subjects.CARDS_PLAY:
            if self.refuse:
                raise ApiError("conflict", "refused")
            self.hands[msg.player_id].remove(msg.type)
            return PlayReply(card_id="c", type=msg.type, state="consumed", effect={})  # type: ignore[return-value]
        if subject == subjects.TRADES_ACCEPT:   # the proposer's Trade card is used (R18)
            self.hands["bob"].remove("trade")
            return TradeReply(trade=TradeOut(id=msg.trade_id, state="accepted", proposer_id="bob",  # type: ignore[return-value]
                                             partner_id=msg.player_id, offer_territory_id="a", want_territory_id="b"))
        assert subject == subjects.CLOCK_SET
        self.hands["ada"].append("freeze")   # the day start's draw (R12)
        return ClockSet(now=NOW, events=["clock.day_started"])  # type: ignore[return-value]


def case() -> tuple[Cards, CardsService]:
    service = CardsService()
    return Cards(service, MemoryPlayers(), hands=SessionCache(ttl_s=60)), service   # type: ignore[arg-type]


def types(cards: list[CardOut]) -> list[str]:
    return [c.type for c in cards]


async def test_a_hand_is_asked_once_and_a_play_forgets_it_refused_or_not() -> None:
    uc, service = case()
    assert types(await uc.hand("ada")) == types(await uc.hand("ada")) == ["war", "joker"]
    assert service.reads == {"ada": 1}
    await uc.play(ADA, "joker", mode="random")
    assert types(await uc.hand("ada")) == ["war"]
    service.refuse = True
    with pytest.raises(ApiError):
        await uc.play(ADA, "war", territory_id="t")
    await uc.hand("ada")
    assert service.reads == {"ada": 3}


async def test_r18_an_accepted_trade_forgets_both_players_hands() -> None:
    uc, service = case()
    await uc.hand("ada"), await uc.hand("bob")
    await uc.trade(ADA, "accept", "trade-1")
    assert types(await uc.hand("bob")) == []   # the proposer's Trade card, used
    await uc.hand("ada")
    assert service.reads == {"ada": 2, "bob": 2}


async def test_r12_a_manual_clock_move_forgets_every_hand_its_day_start_dealt_to() -> None:
    uc, service = case()
    await uc.hand("ada")

    async def idle() -> None:
        return None

    move = ManualClock(service, MemoryPlayers(), idle, hands=uc.hands)  # type: ignore[arg-type]
    await move.move("org", NOW)
    assert types(await uc.hand("ada")) == ["war", "joker", "freeze"]


async def test_the_feeds_card_events_forget_the_hands_of_the_players_they_name() -> None:
    uc, service = case()
    await uc.hand("ada"), await uc.hand("bob")
    state: Any = SimpleNamespace(feed=SimpleNamespace(forget_hands=uc.forget_hands))
    forget_changed_hands(state, subjects.CARD_DRAWN, {"type": subjects.CARD_DRAWN, "player_id": "bob"})
    await uc.hand("ada"), await uc.hand("bob")
    assert service.reads == {"ada": 1, "bob": 2}
    forget_changed_hands(state, subjects.TERRITORY_CHANGED, {"owner_id": "ada"})   # not about hands
    await uc.hand("ada")
    assert service.reads == {"ada": 1, "bob": 2}
    forget_changed_hands(state, subjects.CORRECTION_APPLIED, {"action": "set_owner"})   # every hand
    await uc.hand("ada"), await uc.hand("bob")
    assert service.reads == {"ada": 2, "bob": 3}
