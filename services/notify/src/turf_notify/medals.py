"""Medals earned live (docs/medals.md): the notify service's second durable consumer keeps the public territory
changes and, after each batch and at each game day's close, recomputes the medals of the players they name with the
pure rule (:func:`turf_common.rules.medals.compute`). Each tier newly reached is awarded once (keyed by player,
medal and tier; a redelivered change is kept once), told to the player (a notification, so a push) and put on the
stream as ``medal.earned`` (a story on the spectator feed). A medal never changes a score: nothing here is read by
the rules of play.

R31: each season's medals are its own: a change counts in the season it belongs to (the one in force at its
instant), a day's close in its season, and a new season starts with no medals; the tiers of a past season stay."""

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
from turf_common.seasonbook import SeasonBook
from turf_notify import rules
from turf_notify.ports import NotifyStore, NotifyTx

#: what the medals' consumer decodes, by ``type`` (entrypoints.MEDALS_CONSUMED lists the same subjects)
MedalEvent = Annotated[TerritoryChanged | DayClosed, Field(discriminator="type")]
#: delivers one notification in the caller's transaction (and queues its push): NotifyHandlers.deliver
Deliver = Callable[[NotifyTx, rules.Draft], Awaitable[None]]


def event_id(a: Award, season_id: str | None = None) -> str:
    """The ``medal.earned`` event id of an award, fixed by what it awards (the stream keeps it once): of the
    configuration file's season (``season_id`` None) as before seasons, of another with its season."""
    key = a.key if season_id is None else f"{season_id}:{a.key}"
    return hashlib.sha256(f"medal.earned:{key}".encode()).hexdigest()[:32]


@dataclass
class MedalHandlers:
    store: NotifyStore
    relay: OutboxFlush
    #: R31: the seasons played (a book, or one season: a book of it)
    season: gametime.SeasonConfig | SeasonBook
    board: BoardFacts
    medal_set: MedalSet
    deliver: Deliver
    #: the season whose award event ids are those of before seasons (the configuration file's); None: the book's
    #: first
    home: str | None = None

    def __post_init__(self) -> None:
        self.book = self.season if isinstance(self.season, SeasonBook) else SeasonBook.of(self.season)
        if self.home is None:
            self.home = self.book.configs[0].season_id

    def season_of(self, ev: MedalEvent) -> str:
        """The season an event belongs to: the one it names, else the one in force at its instant."""
        named = getattr(ev, "season_id", None)
        return named if isinstance(named, str) and named else self.book.config_at(ev.occurred_at).season_id

    async def on_event(self, ev: MedalEvent) -> None:
        await self.on_events([ev])

    async def on_events(self, events: Sequence[MedalEvent]) -> None:
        """One transaction a batch: keep the new changes, then award what the players they name (every player at
        a day's close: Landlord counts closes, Avenger a War window run out) have newly reached by the batch's
        last instant of their season; publish after commit."""
        if not events:
            return
        await self.book.caught_up_to(max(ev.occurred_at for ev in events))
        by_season: dict[str, list[MedalEvent]] = {}
        for ev in events:
            by_season.setdefault(self.season_of(ev), []).append(ev)
        for season in by_season:   # the catalog read before the transaction: no round trip inside it
            await self.book.holding(season)
        async with self.store.tx() as tx:
            for season, evs in by_season.items():
                await self._season(tx, season, evs)
        await self.relay.flush()

    async def _season(self, tx: NotifyTx, season: str, events: Sequence[MedalEvent]) -> None:
        until = max(ev.occurred_at for ev in events)
        changes = [(ev.event_id, c) for ev in events if isinstance(ev, TerritoryChanged)
                   and (c := change_of(ev.model_dump(mode="json"))) is not None]
        kept = await tx.medals.record_changes(season, changes)
        named = {p for eid, c in changes if eid in kept for p in (c.owner_id, c.previous_owner_id) if p}
        if any(isinstance(ev, DayClosed) for ev in events):
            named |= await tx.medals.medal_players(season)
        await self._award(tx, season, named, until)

    async def _award(self, tx: NotifyTx, season: str, players: set[str], until: datetime) -> None:
        if not players:
            return
        cfg = self.book.get(season) or self.book.config_at(until)
        result = compute(await tx.medals.changes_naming(season, players), self.medal_set, self.board, cfg, until)
        have = await tx.medals.awarded(season, players)
        new = [a for a in result.awards if a.player_id in players and a.key not in have]
        await tx.medals.add_awards(season, new)
        defs = self.medal_set.by_id()
        for a in new:
            m = defs[a.medal]
            ev = MedalEarned(event_id=event_id(a, None if season == self.home else season), occurred_at=a.at,
                             player_id=a.player_id, medal=a.medal, name=m.name,
                             tier=a.tier, value=a.value, at=a.at, season_id=season)   # type: ignore[arg-type]
            await tx.messages.stage(subjects.MEDAL_EARNED, ev)
            await self.deliver(tx, rules.medal(ev, m.counts))
