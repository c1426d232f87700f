"""The cards service's use cases (R12–R20), by topic: :mod:`~turf_cards.hands` (hands, seeded draws, the seed,
corrections), :mod:`~turf_cards.plays` (plays and cancels), :mod:`~turf_cards.trades` (R18) and the saga engine
they share (:mod:`~turf_cards.saga`), over one store. :class:`CardsHandlers` puts them together and takes the
events of the service's one durable consumer, in stream order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from turf_cards.context import Cards
from turf_cards.hands import Hands
from turf_cards.plays import Plays
from turf_cards.ports import ClaimsEffects
from turf_cards.saga import Sagas
from turf_cards.trades import Trades
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import DayStarted, SeasonEnded, SeasonStarted
from turf_common.contracts.effects import ProtectionResolved
from turf_common.contracts.players import PlayerDisqualified, PlayerVerified
from turf_common.contracts.seasons import SeasonJoined

#: What the ``cards`` consumer takes, told apart by ``type`` (the subject).
CardsEvent = Annotated[
    SeasonStarted | DayStarted | SeasonEnded | PlayerVerified | PlayerDisqualified | ProtectionResolved
    | TerritoryChanged | SeasonJoined,
    Field(discriminator="type")]


@dataclass
class CardsHandlers:
    cx: Cards
    hands: Hands
    plays: Plays
    trades: Trades
    sagas: Sagas

    @classmethod
    def create(cls, cx: Cards, claims: ClaimsEffects) -> CardsHandlers:
        """The use cases over ``cx``'s ports, each saga kind completed by the use case that starts it."""
        sagas = Sagas(cx, claims)
        plays, trades = Plays(cx, sagas), Trades(cx, sagas, claims)
        hands = Hands(cx, sagas)
        sagas.completions.update({"play": plays.complete_play, "cancel": plays.complete_cancel,
                                  "trade": trades.complete_trade, "withdraw": hands.complete_withdraw})
        sagas.followups["trade"] = trades.after_trade
        return cls(cx=cx, hands=hands, plays=plays, trades=trades, sagas=sagas)

    async def on_event(self, ev: CardsEvent) -> None:
        """One event of the durable consumer, then its staged events published. Each is applied once (an inbox
        record, or for ``territory.changed`` because a cancelled proposal is no longer open)."""
        if isinstance(ev, DayStarted):
            await self.hands.day_started(ev)
        elif isinstance(ev, PlayerVerified):
            await self.hands.player_verified(ev)
        elif isinstance(ev, SeasonJoined):
            await self.hands.season_joined(ev)
        elif isinstance(ev, PlayerDisqualified):
            await self.hands.player_disqualified(ev)
        elif isinstance(ev, ProtectionResolved):
            await self.plays.protection_resolved(ev)
        elif isinstance(ev, TerritoryChanged):
            if not await self.trades.territory_changed(ev):
                return   # nothing staged: no outbox flush
        elif isinstance(ev, SeasonStarted):
            await self.hands.season_started(ev)
        elif isinstance(ev, SeasonEnded):
            await self.hands.season_ended(ev)
        await self.cx.relay.flush()

    def batch(self, events: Sequence[CardsEvent]) -> Callable[[CardsEvent], Awaitable[None]]:
        """:meth:`on_event` for the events of one fetched batch, in order, with one read for all its
        ``territory.changed`` instead of one each: at the first of them, which of the batch's territories an open
        proposal involves. A change of any other territory cannot cancel a proposal (R18). The read comes after
        every event of the batch was published, so it sees every proposal made before any of those changes; and
        proposals only close, never reopen, so one closed after the read is found closed by :meth:`on_event`."""
        changed = {e.territory_id for e in events if isinstance(e, TerritoryChanged)}
        traded: set[str] | None = None

        async def handle(ev: CardsEvent) -> None:
            nonlocal traded
            if isinstance(ev, TerritoryChanged):
                if traded is None:
                    traded = await self.cx.store.traded_territories(changed)
                if ev.territory_id not in traded:
                    return
            await self.on_event(ev)

        return handle
