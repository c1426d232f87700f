"""The cards store in memory, for unit tests: the same answers as :class:`~turf_cards.adapters.store.SqlCardsStore`
(orderings included: PostgreSQL sorts NULL last), one transaction at a time, each on a copy that replaces the state
when its block ends (so a block that raises leaves nothing, and plain reads see committed state only).
Committed events wait in :attr:`MemoryCardsStore.outbox` until a flush takes them (:meth:`MemoryCardsStore.take_staged`,
for :class:`turf_common.testing.RecordingPublisher`). The clock and publisher fakes are :mod:`turf_common.testing`'s."""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from turf_cards.ports import Card, CardState, Saga, Trade
from turf_common.contracts.base import Event
from turf_common.contracts.cards import TradeState
from turf_common.rules.cards import CardType

LIVE = ("ready", "reserved")


class DuplicateKey(Exception):
    """A write the SQL store's primary keys refuse (IntegrityError there): the unit of work is rolled back."""


def _unique(ok: bool, table: str, key: str) -> None:
    if not ok:
        raise DuplicateKey(f"{table}: {key!r} exists")


@dataclass
class _Account:
    status: str
    verified_at: datetime


@dataclass
class _State:
    """Everything a transaction may change (copied at its start, put back if it raises)."""

    accounts: dict[str, _Account] = field(default_factory=dict)
    players: dict[tuple[str, str], int] = field(default_factory=dict)                # (season, player) → draws
    cards: dict[str, tuple[Card, datetime]] = field(default_factory=dict)           # id → (card, drawn_at)
    trades: dict[str, tuple[Trade, datetime]] = field(default_factory=dict)         # id → (trade, created_at)
    sagas: dict[str, tuple[Saga, datetime, datetime]] = field(default_factory=dict)  # id → (saga, created, updated)
    seasons: dict[str, str] = field(default_factory=dict)                           # season id → commitment
    inbox: set[str] = field(default_factory=set)
    outbox: list[tuple[str, Event]] = field(default_factory=list)


def _draw_order(entry: tuple[Card, datetime]) -> tuple[Any, ...]:
    card, drawn_at = entry
    return drawn_at, card.draw_index is None, card.draw_index or 0, card.id


def _lost(s: _State, territory_id: str, owner_id: str | None) -> list[Trade]:
    owner = owner_id or ""
    return [t for t, _ in s.trades.values() if t.state == "open" and t.saga_id is None and (
        (t.offer_territory_id == territory_id and t.proposer_id != owner)
        or (t.want_territory_id == territory_id and t.partner_id != owner))]


class MemoryCardsStore:
    """:class:`turf_cards.ports.CardsStore` in memory. ``wall`` is the bookkeeping clock (saga age)."""

    def __init__(self) -> None:
        self.state = _State()
        self.sent = 0                  # outbox entries already published
        self._lock = asyncio.Lock()
        self.wall = lambda: datetime.now(UTC)

    @property
    def outbox(self) -> list[tuple[str, Event]]:
        return self.state.outbox

    def take_staged(self) -> list[tuple[str, Event]]:
        """The committed events not yet published, in commit order, now marked published (the outbox relay's part;
        the outbox keeps them, as its event ids answer redeliveries)."""
        fresh = self.outbox[self.sent:]
        self.sent += len(fresh)
        return fresh

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[MemoryCardsTx]:
        async with self._lock:
            work = copy.deepcopy(self.state)
            yield MemoryCardsTx(self, work)
            self.state = work   # commit (not reached when the block raises: nothing of it stays)

    # ---- plain reads
    async def hand(self, season_id: str, player_id: str) -> list[Card]:
        return [c for c, _ in sorted(self.state.cards.values(), key=_draw_order)
                if c.season_id == season_id and c.player_id == player_id and c.state in LIVE]

    async def open_trades(self, player_id: str) -> list[Trade]:
        rows = sorted(self.state.trades.values(), key=lambda e: (e[1], e[0].id))
        return [t for t, _ in rows if t.state == "open" and player_id in (t.proposer_id, t.partner_id)]

    async def trade_lost(self, territory_id: str, owner_id: str | None) -> bool:
        return bool(_lost(self.state, territory_id, owner_id))

    async def trade_holders(self, season_id: str) -> list[str]:
        verified = {p for p, row in self.state.accounts.items() if row.status == "verified"}
        return sorted({c.player_id for c, _ in self.state.cards.values()
                       if c.season_id == season_id and c.card_type == "trade" and c.state == "ready"} & verified)

    async def traded_territories(self, territory_ids: Iterable[str]) -> set[str]:
        ids = set(territory_ids)
        return {tid for t, _ in self.state.trades.values() if t.state == "open"
                for tid in (t.offer_territory_id, t.want_territory_id)} & ids

    async def saga(self, saga_id: str) -> Saga:
        return self.state.sagas[saga_id][0]

    async def has_staged(self, event_id: str) -> bool:
        return any(e.event_id == event_id for _, e in self.state.outbox)

    async def pending_sagas(self, older_than: float) -> list[str]:
        cutoff = self.wall() - timedelta(seconds=older_than)
        rows = sorted(self.state.sagas.values(), key=lambda e: e[1])
        return [s.id for s, _, updated in rows if s.state == "pending" and updated <= cutoff]


class MemoryCardsTx:
    """:class:`turf_cards.ports.CardsTx` on a working copy of a :class:`MemoryCardsStore`'s state, which becomes
    the store's when the block ends (the store is held meanwhile: one transaction at a time)."""

    def __init__(self, store: MemoryCardsStore, work: _State) -> None:
        self.store, self.s = store, work
        # every role of the unit of work (ports.CardsTx) is served by this one object
        self.messages = self.season = self.players = self.hands = self.sagas = self.trades = self

    async def first_time(self, event_id: str, subject: str) -> bool:
        if event_id in self.s.inbox:
            return False
        self.s.inbox.add(event_id)
        return True

    async def stage(self, subject: str, event: Event) -> None:
        self.s.outbox.append((subject, event))

    async def staged(self, event_id: str) -> str | None:
        return next((e.model_dump_json() for _, e in self.s.outbox if e.event_id == event_id), None)

    async def lock_hand(self, player_id: str) -> None:
        pass   # one transaction at a time already

    async def record_season(self, season_id: str, commitment: str) -> str:
        return self.s.seasons.setdefault(season_id, commitment)

    # ---- players
    async def verified_players(self, season_id: str) -> list[str]:
        return sorted(p for s, p in self.s.players if s == season_id
                      and self.s.accounts.get(p, _Account("", datetime.min)).status == "verified")

    async def player_known(self, player_id: str) -> bool:
        return player_id in self.s.accounts

    async def is_verified(self, player_id: str) -> bool:
        row = self.s.accounts.get(player_id)
        return row is not None and row.status == "verified"

    async def add_player(self, player_id: str, verified_at: datetime) -> None:
        _unique(player_id not in self.s.accounts, "accounts", player_id)
        self.s.accounts[player_id] = _Account("verified", verified_at)

    async def disqualify(self, player_id: str, at: datetime) -> None:
        row = self.s.accounts.setdefault(player_id, _Account("disqualified", at))
        row.status = "disqualified"

    async def join(self, season_id: str, player_id: str, at: datetime) -> bool:
        if (season_id, player_id) in self.s.players:
            return False
        self.s.players[(season_id, player_id)] = 0
        return True

    async def joined(self, season_id: str, player_id: str) -> bool:
        return (season_id, player_id) in self.s.players

    async def draws_for_update(self, season_id: str, player_id: str) -> int:
        return self.s.players[(season_id, player_id)]

    async def set_draws(self, season_id: str, player_id: str, draws: int) -> None:
        if (season_id, player_id) in self.s.players:   # an UPDATE of no row changes nothing
            self.s.players[(season_id, player_id)] = draws

    # ---- cards
    async def unused(self, season_id: str, player_id: str) -> int:
        return sum(1 for c, _ in self.s.cards.values()
                   if c.season_id == season_id and c.player_id == player_id and c.state in LIVE)

    async def add_card(self, season_id: str, card_id: str, player_id: str, card_type: CardType,
                       draw_index: int | None, reason: str, at: datetime) -> None:
        _unique(card_id not in self.s.cards, "cards", card_id)
        self.s.cards[card_id] = (Card(card_id, player_id, card_type, "ready", draw_index, season_id=season_id), at)

    async def card_for_update(self, card_id: str) -> Card | None:
        entry = self.s.cards.get(card_id)
        return None if entry is None else entry[0]

    def _ready(self, season_id: str, player_id: str, card_type: str) -> list[tuple[Card, datetime]]:
        return sorted((e for e in self.s.cards.values()
                       if e[0].season_id == season_id and e[0].player_id == player_id
                       and e[0].card_type == card_type and e[0].state == "ready"), key=_draw_order)

    async def oldest_ready_for_update(self, season_id: str, player_id: str, card_type: CardType) -> Card | None:
        ready = self._ready(season_id, player_id, card_type)
        return ready[0][0] if ready else None

    async def oldest_trade_card_for_update(self, season_id: str, player_id: str) -> str | None:
        ready = self._ready(season_id, player_id, "trade")
        return ready[0][0].id if ready else None

    async def newest_ready_for_update(self, season_id: str, player_id: str, card_type: CardType) -> str | None:
        ready = sorted(self._ready(season_id, player_id, card_type), key=lambda e: e[0].id)
        ready.sort(key=lambda e: e[1], reverse=True)   # drawn_at descending, then id ascending
        return ready[0][0].id if ready else None

    async def newest_scheduled_for_update(self, season_id: str, player_id: str, card_type: CardType) -> str | None:
        held = sorted((e for e in self.s.cards.values() if e[0].season_id == season_id and e[0].player_id == player_id
                       and e[0].card_type == card_type and e[0].state == "reserved"
                       and e[0].scheduled_for is not None and e[0].saga_id is None), key=lambda e: e[0].id)
        held.sort(key=lambda e: e[1], reverse=True)   # drawn_at descending, then id ascending
        return held[0][0].id if held else None

    async def has_trade_card(self, season_id: str, player_id: str) -> bool:
        return bool(self._ready(season_id, player_id, "trade"))

    def _update_card(self, card_id: str, **changes: Any) -> None:
        entry = self.s.cards.get(card_id)
        if entry is not None:
            self.s.cards[card_id] = (replace(entry[0], **changes), entry[1])

    async def set_card(self, card_id: str, state: CardState, at: datetime, **columns: str | date | None) -> None:
        self._update_card(card_id, state=state, **columns)

    async def clear_card_saga(self, card_id: str) -> None:
        self._update_card(card_id, saga_id=None)

    async def unschedule(self, card_id: str, at: datetime) -> None:
        entry = self.s.cards.get(card_id)
        if entry is not None and entry[0].state == "reserved":
            self._update_card(card_id, state="ready", saga_id=None, scheduled_for=None)

    # ---- sagas
    async def add_saga(self, saga: Saga) -> None:
        _unique(saga.id not in self.s.sagas, "sagas", saga.id)
        now = self.store.wall()
        self.s.sagas[saga.id] = (saga, now, now)

    async def saga_for_update(self, saga_id: str) -> Saga:
        return self.s.sagas[saga_id][0]

    async def finish_saga(self, saga_id: str, state: str, reply: str) -> None:
        saga, created, _ = self.s.sagas[saga_id]
        self.s.sagas[saga_id] = (replace(saga, state=state, reply=reply), created, self.store.wall())

    # ---- trades
    async def add_trade(self, trade_id: str, proposer_id: str, partner_id: str, offer_territory_id: str,
                        want_territory_id: str, at: datetime) -> Trade:
        _unique(trade_id not in self.s.trades, "trades", trade_id)
        trade = Trade(trade_id, proposer_id, partner_id, offer_territory_id, want_territory_id, "open")
        self.s.trades[trade_id] = (trade, at)
        return trade

    async def trade_for_update(self, trade_id: str) -> Trade | None:
        entry = self.s.trades.get(trade_id)
        return None if entry is None else entry[0]

    async def open_trade_on(self, territory_a: str, territory_b: str) -> Trade | None:
        pair = {territory_a, territory_b}
        return next((t for t, _ in self.s.trades.values() if t.state == "open"
                     and {t.offer_territory_id, t.want_territory_id} == pair), None)

    async def set_trade_saga(self, trade_id: str, saga_id: str | None) -> None:
        trade, created = self.s.trades[trade_id]
        self.s.trades[trade_id] = (replace(trade, saga_id=saga_id), created)

    async def close_trade(self, trade_id: str, state: TradeState, reason: str | None, at: datetime) -> Trade:
        trade, created = self.s.trades[trade_id]
        closed = replace(trade, state=state, reason=reason, saga_id=None)
        self.s.trades[trade_id] = (closed, created)
        return closed

    async def open_trades_for_update(self, player_id: str | None = None) -> list[Trade]:
        return [t for t, _ in self.s.trades.values() if t.state == "open"
                and (player_id is None or player_id in (t.proposer_id, t.partner_id))]

    async def idle_open_trades_for_update(self, players: Iterable[str]) -> list[Trade]:
        ps = set(players)
        return [t for t, _ in self.s.trades.values() if t.state == "open" and t.saga_id is None
                and (t.proposer_id in ps or t.partner_id in ps)]

    async def trades_lost_for_update(self, territory_id: str, owner_id: str | None) -> list[Trade]:
        return _lost(self.s, territory_id, owner_id)
