"""Ports of the cards service: its store (one unit of work over hands, sagas and trades), the game clock, the claims
service's card effects; the outbox relay's port is :class:`turf_common.outbox.OutboxFlush`.

The store's rows are the plain records below. Every ``*_for_update`` read locks what it returns until the
transaction ends; reads outside a transaction (:class:`CardsStore`'s own methods) lock nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal, Protocol

from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.cards import TradeState
from turf_common.contracts.effects import EffectApplied, TradeCheck, TradeFacts
from turf_common.rules.cards import CardType

SagaKind = Literal["play", "cancel", "trade", "withdraw"]
CardState = Literal["ready", "reserved", "consumed", "removed"]


@dataclass(frozen=True)
class Card:
    """One card. ``state``: ready | reserved (a saga holds it, or a scheduled Freeze/Blockade) | consumed |
    removed (a correction); ``draw_index`` is None for a card a correction added; ``season_id``: the season whose
    hand holds it (R31: each season has its own hands)."""

    id: str
    player_id: str
    card_type: CardType
    state: CardState
    draw_index: int | None = None
    saga_id: str | None = None
    scheduled_for: date | None = None
    season_id: str = ""


@dataclass(frozen=True)
class Trade:
    """One trade proposal (R18). ``state``: open | accepted | declined | cancelled; ``saga_id``: an acceptance in
    flight."""

    id: str
    proposer_id: str
    partner_id: str
    offer_territory_id: str
    want_territory_id: str
    state: TradeState
    reason: str | None = None
    saga_id: str | None = None


@dataclass(frozen=True)
class Saga:
    """One play, cancel or trade acceptance (DESIGN "Sagas for cards"). ``id`` is also the claims command id;
    ``subject`` and ``command`` (its JSON) are what is sent to claims, again on recovery. ``state``: pending | done
    | refused; ``reply``: the JSON answered to the player once completed. ``trade_id``: the proposal of a trade
    acceptance; for a ``withdraw`` (a correction withdrawing a scheduled card, R28), the correction's id."""

    id: str
    kind: SagaKind
    player_id: str
    card_type: CardType
    card_ids: list[str]
    subject: str
    command: str
    trade_id: str | None = None
    state: str = "pending"
    reply: str | None = None


class Messages(Protocol):
    """The inbox (each event handled once) and the outbox (events published once committed, and kept)."""

    async def first_time(self, event_id: str, subject: str) -> bool:
        """Record ``event_id`` as handled; False if it already was (a redelivery)."""
        ...

    async def stage(self, subject: str, event: Event) -> None:
        """Queue ``event`` for publication once this transaction commits (the outbox)."""
        ...

    async def staged(self, event_id: str) -> str | None:
        """The JSON of an event staged by an earlier transaction (kept in the outbox), or None."""
        ...


class Season(Protocol):
    """The season's seed commitment (R12.1)."""

    async def record_season(self, season_id: str, commitment: str) -> str:
        """Record the season's seed commitment once (a second call changes nothing); returns the recorded one."""
        ...


class Players(Protocol):
    """The players the cards service knows: accounts verified or disqualified (shared by all seasons, R31), the
    seasons each joined, and their draw count in each (R12)."""

    async def verified_players(self, season_id: str) -> list[str]:
        """Ids of the players who joined the season and are verified (not disqualified), sorted: those it deals to
        (R12, R31)."""
        ...

    async def player_known(self, player_id: str) -> bool:
        """The account was verified or disqualified here."""
        ...

    async def is_verified(self, player_id: str) -> bool: ...

    async def add_player(self, player_id: str, verified_at: datetime) -> None:
        """A newly verified account (it takes part in no season yet: :meth:`join`)."""
        ...

    async def disqualify(self, player_id: str, at: datetime) -> None:
        """Mark the account disqualified (recorded even if never verified here)."""
        ...

    async def join(self, season_id: str, player_id: str, at: datetime) -> bool:
        """The player takes part in the season, with no draws yet; False (nothing changed) if they already did."""
        ...

    async def joined(self, season_id: str, player_id: str) -> bool: ...

    async def draws_for_update(self, season_id: str, player_id: str) -> int:
        """The player's next draw index in the season (R12), locked; the player joined it."""
        ...

    async def set_draws(self, season_id: str, player_id: str, draws: int) -> None: ...


class Hands(Protocol):
    """The cards in players' hands and their states (R12-R20); one hand changes at a time (``lock_hand``). A hand is
    a player's cards of one season (R31): the reads by player take the season."""

    async def lock_hand(self, player_id: str) -> None:
        """Serialise changes to one player's hand until the transaction ends."""
        ...

    async def unused(self, season_id: str, player_id: str) -> int:
        """R12: the player's unused cards (ready + reserved) in the season."""
        ...

    async def add_card(self, season_id: str, card_id: str, player_id: str, card_type: CardType,
                       draw_index: int | None, reason: str, at: datetime) -> None:
        """A new ready card in the player's hand of the season, drawn (``draw_index``) or added by a correction
        (None)."""
        ...

    async def card_for_update(self, card_id: str) -> Card | None: ...

    async def oldest_ready_for_update(self, season_id: str, player_id: str, card_type: CardType) -> Card | None:
        """The ready card of the type a play takes: first drawn (then by draw index, then id)."""
        ...

    async def oldest_trade_card_for_update(self, season_id: str, player_id: str) -> str | None:
        """Id of the ready Trade card an acceptance reserves: first drawn (then by draw index)."""
        ...

    async def newest_ready_for_update(self, season_id: str, player_id: str, card_type: CardType) -> str | None:
        """Id of the ready card of the type a correction removes: last drawn (then by id)."""
        ...

    async def newest_scheduled_for_update(self, season_id: str, player_id: str, card_type: CardType) -> str | None:
        """Id of the reserved card of the type a correction removes once no ready one is left (R28): a scheduled
        Freeze/Blockade (``scheduled_for`` set) that no saga holds, last drawn first (then by id)."""
        ...

    async def has_trade_card(self, season_id: str, player_id: str) -> bool:
        """R18: the player holds a ready Trade card in the season."""
        ...

    async def set_card(self, card_id: str, state: CardState, at: datetime, **columns: str | date | None) -> None:
        """Set the card's state (and ``saga_id`` / ``scheduled_for`` when given; the others stay)."""
        ...

    async def clear_card_saga(self, card_id: str) -> None:
        """The card is no longer held by a saga; its state stays."""
        ...

    async def unschedule(self, card_id: str, at: datetime) -> None:
        """A reserved (scheduled) card back to ready, free of saga and schedule; any other state stays."""
        ...


class Sagas(Protocol):
    """Card plays in flight: each asks claims for its effect, then is finished once (the saga)."""

    async def add_saga(self, saga: Saga) -> None:
        """Record a new pending saga (stamped with the wall time, for recovery's age)."""
        ...

    async def saga_for_update(self, saga_id: str) -> Saga: ...

    async def finish_saga(self, saga_id: str, state: str, reply: str) -> None:
        """``state`` done | refused, ``reply`` the answer's JSON."""
        ...


class Trades(Protocol):
    """Trade proposals (R18): open, held by an acceptance in flight, closed."""

    async def add_trade(self, trade_id: str, proposer_id: str, partner_id: str, offer_territory_id: str,
                        want_territory_id: str, at: datetime) -> Trade:
        """A new open proposal, as stored."""
        ...

    async def trade_for_update(self, trade_id: str) -> Trade | None: ...

    async def open_trade_on(self, territory_a: str, territory_b: str) -> Trade | None:
        """The open proposal on the two territories (either way round), if any; the pair stays locked until the
        transaction ends, so two proposals on it never both find none (one open proposal per pair)."""
        ...

    async def set_trade_saga(self, trade_id: str, saga_id: str | None) -> None: ...

    async def close_trade(self, trade_id: str, state: TradeState, reason: str | None, at: datetime) -> Trade:
        """Close the proposal (accepted | declined | cancelled, with ``reason``); the row as stored after."""
        ...

    async def open_trades_for_update(self, player_id: str | None = None) -> list[Trade]:
        """Every open proposal, or those of ``player_id`` (either side)."""
        ...

    async def idle_open_trades_for_update(self, players: Iterable[str]) -> list[Trade]:
        """Open proposals without an acceptance in flight, of any of ``players`` (either side)."""
        ...

    async def trades_lost_for_update(self, territory_id: str, owner_id: str | None) -> list[Trade]:
        """R18: open proposals without an acceptance in flight whose territory ``territory_id`` is now owned by
        ``owner_id``, not by the party that offered or was asked for it."""
        ...


class CardsTx(Protocol):
    """One transaction of the cards store: commits when its block ends, rolls back if it raises. It exposes the
    store's roles (each use case names the ones it needs), all over the one transaction."""

    @property
    def messages(self) -> Messages: ...

    @property
    def season(self) -> Season: ...

    @property
    def players(self) -> Players: ...

    @property
    def hands(self) -> Hands: ...

    @property
    def sagas(self) -> Sagas: ...

    @property
    def trades(self) -> Trades: ...


class CardsStore(Protocol):
    """The cards service's store: plain reads, and :meth:`begin` for a unit of work."""

    def begin(self) -> AbstractAsyncContextManager[CardsTx]: ...

    async def hand(self, season_id: str, player_id: str) -> list[Card]:
        """The player's unused cards (ready + reserved) of the season, in draw order."""
        ...

    async def open_trades(self, player_id: str) -> list[Trade]:
        """The player's open proposals, both directions, oldest first."""
        ...

    async def trade_holders(self, season_id: str) -> list[str]:
        """R18: ids of the verified players holding a ready Trade card in the season, sorted."""
        ...

    async def trade_lost(self, territory_id: str, owner_id: str | None) -> bool:
        """Whether :meth:`CardsTx.trades_lost_for_update` would find anything (a read that locks nothing)."""
        ...

    async def traded_territories(self, territory_ids: Iterable[str]) -> set[str]:
        """Which of ``territory_ids`` an open proposal offers or asks for (one read for a batch of ownership
        changes: the others cannot cancel anything)."""
        ...

    async def saga(self, saga_id: str) -> Saga: ...

    async def has_staged(self, event_id: str) -> bool:
        """Whether a committed transaction staged the event ``event_id`` (the outbox keeps published events)."""
        ...

    async def pending_sagas(self, older_than: float) -> list[str]:
        """Ids of the sagas pending for more than ``older_than`` seconds (wall time), oldest first."""
        ...


class Clock(Protocol):
    """The game clock."""

    async def now(self) -> datetime:
        """The current game instant (aware)."""
        ...


class ClaimsEffects(Protocol):
    """The claims service, asked for card effects (``claims.effect.*``) and trade facts (``claims.trade_check``)."""

    async def apply(self, subject: str, command: str) -> EffectApplied | Refusal | None:
        """Send the effect command ``command`` (its JSON) to ``subject``: what claims answered, or None when it did
        not answer in time or the answer could not be read. Claims answers a repeated ``command_id`` with its first
        answer, so this may be sent again."""
        ...

    async def trade_check(self, q: TradeCheck) -> TradeFacts | Refusal:
        """Ownership and disputes of a trade's two territories. Raises
        :class:`turf_common.bus.BusError` when claims does not answer."""
        ...

