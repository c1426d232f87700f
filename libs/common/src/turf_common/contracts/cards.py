"""The cards service's commands (request/reply from the gateway) and events (R12–R20)."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Event, Message
from turf_common.contracts.claims import PlayerStatus
from turf_common.contracts.effects import JokerMode, JokerPick
from turf_common.rules.cards import CardType

CardState = Literal["ready", "reserved"]
TradeState = Literal["open", "accepted", "declined", "cancelled"]


# ---- commands -------------------------------------------------------------------------------------
class HandRequest(Message):
    """``cards.hand``"""

    player_id: str


class CardOut(Message):
    id: str
    type: CardType
    state: Literal["ready", "reserved", "consumed", "removed"]


class HandReply(Message):
    ok: Literal[True] = True
    player_id: str
    cards: list[CardOut]


class PlayCard(Message):
    """``cards.play``: the gateway has checked the arguments' shape for the type (API.md)."""

    player_id: str
    player_status: PlayerStatus
    type: CardType
    territory_id: str | None = None
    rival_id: str | None = None
    claim_id: str | None = None
    mode: JokerMode | None = None


class PlayReply(Message):
    ok: Literal[True] = True
    card_id: str
    type: CardType
    state: Literal["consumed", "reserved"]
    effect: dict[str, Any]


class CancelSchedule(Message):
    """``cards.cancel``: take back a scheduled Freeze/Blockade before it activates."""

    player_id: str
    player_status: PlayerStatus
    card_id: str


class CancelReply(Message):
    ok: Literal[True] = True
    card_id: str
    type: CardType
    state: CardState


class ProposeTrade(Message):
    """``trades.propose``"""

    player_id: str
    player_status: PlayerStatus
    offer_territory_id: str
    want_territory_id: str


class TradeAction(Message):
    """``trades.accept`` / ``trades.decline`` / ``trades.withdraw``"""

    player_id: str
    player_status: PlayerStatus
    trade_id: str


class TradeOut(Message):
    id: str
    state: TradeState
    proposer_id: str
    partner_id: str
    offer_territory_id: str
    want_territory_id: str


class TradeReply(Message):
    ok: Literal[True] = True
    trade: TradeOut


class TradesRequest(Message):
    """``trades.list``: the player's open proposals, both directions."""

    player_id: str


class TradesReply(Message):
    ok: Literal[True] = True
    trades: list[TradeOut]


class TradeHoldersRequest(Message):
    """``cards.trade_holders``: the verified players a Trade may be proposed to now (R18: the partner
    holds a ready Trade card), ``player_id`` (the asker) left out."""

    player_id: str


class TradeHoldersReply(Message):
    ok: Literal[True] = True
    player_ids: list[str]   # sorted; nothing else of their hands


class AdjustHand(Message):
    """``cards.adjust`` (R28, organizer correction ``adjust_hand``): add cards of the given types; remove cards of
    the given types, ready ones first, then reserved (scheduled) ones, whose schedule is withdrawn. Idempotent by
    ``correction_id``."""

    correction_id: str = Field(min_length=1, max_length=64)
    player_id: str
    add: list[CardType] = Field(default_factory=list)
    remove: list[CardType] = Field(default_factory=list)


class AdjustReply(Message):
    ok: Literal[True] = True
    correction_id: str
    player_id: str
    added: list[CardOut]
    removed: list[CardOut]
    cards: list[CardOut]   # the hand after


class SeedRequest(Message):
    """``cards.seed``"""


class SeedReply(Message):
    ok: Literal[True] = True
    season_id: str
    commitment: str | None   # from the first start on (R12.1)
    seed: str | None         # revealed at season end


# ---- events ---------------------------------------------------------------------------------------
class CardDrawn(Event):
    """``card.drawn``: the player's ``draw_index``-th card of the season (0-based), replayable from the seed."""

    type: Literal["card.drawn"] = "card.drawn"
    season_id: str
    player_id: str
    card_id: str
    card_type: CardType
    draw_index: int
    reason: Literal["week_start", "day_start", "verification", "correction"]


class HandsDealt(Event):
    """``card.dealt``: the day-start deal of ``game_day`` (R12), staged before its ``card.drawn`` events: every
    player dealt to, with the unused cards (ready + reserved) each held before and the number drawn, so the audit
    can check the top-up rule as well as each draw."""

    type: Literal["card.dealt"] = "card.dealt"
    season_id: str
    game_day: date
    reason: Literal["week_start", "day_start"]
    hands: dict[str, int]
    draws: dict[str, int]


class CardPlayed(Event):
    """``card.played``: a play took effect (``state`` consumed) or was scheduled (``state`` reserved)."""

    type: Literal["card.played"] = "card.played"
    season_id: str
    player_id: str
    card_id: str
    card_type: CardType
    state: Literal["consumed", "reserved"]
    play_id: str
    effect: dict[str, Any] = Field(default_factory=dict)
    joker: JokerPick | None = None
    cards: list[str] = Field(default_factory=list)  # a Trade consumes one card of each party: both ids


class CardConsumed(Event):
    """``card.consumed``: a scheduled Freeze/Blockade took effect at its day start."""

    type: Literal["card.consumed"] = "card.consumed"
    season_id: str
    player_id: str
    card_id: str
    card_type: CardType
    reason: str


class CardReturned(Event):
    """``card.returned``: a scheduled card came back to the hand (cancelled, or lapsed at activation)."""

    type: Literal["card.returned"] = "card.returned"
    season_id: str
    player_id: str
    card_id: str
    card_type: CardType
    reason: Literal["cancelled", "lapsed"]


class HandAdjusted(Event):
    """``card.adjusted``: an organizer correction added or removed cards (not draws: no seed involved)."""

    type: Literal["card.adjusted"] = "card.adjusted"
    season_id: str
    correction_id: str
    player_id: str
    added: list[CardOut]
    removed: list[CardOut]


class SeedCommitted(Event):
    """``card.seed_committed``: SHA-256 of the season's seed, at season start, before the first draw."""

    type: Literal["card.seed_committed"] = "card.seed_committed"
    season_id: str
    commitment: str


class SeedRevealed(Event):
    """``card.seed_revealed``: the season's seed, at season end; ``turfwar audit draws`` replays from it."""

    type: Literal["card.seed_revealed"] = "card.seed_revealed"
    season_id: str
    commitment: str
    seed: str


class TradeEvent(Event):
    """``trade.proposed`` / ``trade.accepted`` / ``trade.declined`` / ``trade.cancelled``."""

    type: Literal["trade.proposed", "trade.accepted", "trade.declined", "trade.cancelled"]

    trade_id: str
    proposer_id: str
    partner_id: str
    offer_territory_id: str
    want_territory_id: str
    state: TradeState
    reason: str | None = None
    at: AwareDatetime
