"""Medals earned live (docs/medals.md): the notify service's second durable consumer keeps the public territory
changes and, after each batch and at each game day's close, recomputes the medals of the players they name with the
pure rule (:func:`turf_common.rules.medals.compute`). Each tier newly reached is awarded once (keyed by player,
medal and tier; a redelivered change is kept once), told to the player (a notification, so a push) and put on the
stream as ``medal.earned`` (a story on the spectator feed). A medal never changes a score: nothing here is read by
the rules of play."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import Field

from turf_common.contracts import subjects
from turf_common.contracts.claims import TerritoryChanged
from turf_common.contracts.clock import DayClosed
from turf_common.contracts.notify import MedalEarned
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_common.rules.medals import Award, BoardFacts, MedalSet, change_of, compute
from turf_notify import rules
from turf_notify.ports import NotifyStore, NotifyTx

#: what the medals' consumer decodes, by ``type`` (entrypoints.MEDALS_CONSUMED lists the same subjects)
MedalEvent = Annotated[TerritoryChanged | DayClosed, Field(discriminator="type")]
#: delivers one notification in the caller's transaction (and queues its push): NotifyHandlers.deliver
Deliver = Callable[[NotifyTx, rules.Draft], Awaitable[None]]


def event_id(a: Award) -> str:
    """The ``medal.earned`` event id of an award, fixed by what it awards (the stream keeps it once)."""
    return hashlib.sha256(f"medal.earned:{a.key}".encode()).hexdigest()[:32]


@dataclass
class MedalHandlers:
    store: NotifyStore
    relay: OutboxFlush
    season: gametime.SeasonConfig
    board: BoardFacts
    medal_set: MedalSet
    deliver: Deliver

    async def on_event(self, ev: MedalEvent) -> None:
        await self.on_events([ev])

    async def on_events(self, events: Sequence[MedalEvent]) -> None:
        """One transaction a batch: keep the new changes, then award what the players they name (every player at
        a day's close: Landlord counts closes, Avenger a War window run out) have newly reached by the batch's
        last instant; publish after commit."""
        if not events:
            return
        until = max(ev.occurred_at for ev in events)
        async with self.store.tx() as tx:
            changes = [(ev.event_id, c) for ev in events if isinstance(ev, TerritoryChanged)
                       and (c := change_of(ev.model_dump(mode="json"))) is not None]
            kept = await tx.medals.record_changes(changes)
            named = {p for eid, c in changes if eid in kept for p in (c.owner_id, c.previous_owner_id) if p}
            if any(isinstance(ev, DayClosed) for ev in events):
                named |= await tx.medals.medal_players()
            await self._award(tx, named, until)
        await self.relay.flush()

    async def _award(self, tx: NotifyTx, players: set[str], until: datetime) -> None:
        if not players:
            return
        result = compute(await tx.medals.changes_naming(players), self.medal_set, self.board, self.season, until)
        have = await tx.medals.awarded(players)
        new = [a for a in result.awards if a.player_id in players and a.key not in have]
        await tx.medals.add_awards(new)
        defs = self.medal_set.by_id()
        for a in new:
            m = defs[a.medal]
            ev = MedalEarned(event_id=event_id(a), occurred_at=a.at, player_id=a.player_id, medal=a.medal,
                             name=m.name, tier=a.tier, value=a.value, at=a.at)   # type: ignore[arg-type]
            await tx.messages.stage(subjects.MEDAL_EARNED, ev)
            await self.deliver(tx, rules.medal(ev, m.counts))
