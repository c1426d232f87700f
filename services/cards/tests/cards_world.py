"""A cards service without servers for the unit tests: the use cases wired by ``bootstrap.handlers`` over the
in-memory store, a settable game clock and a scripted claims service."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from turf_cards import bootstrap
from turf_cards.handlers import CardsHandlers
from turf_cards.ports import Card
from turf_cards.testing import MemoryCardsStore
from turf_common.contracts.base import Event, Refusal
from turf_common.contracts.cards import AdjustHand, AdjustReply
from turf_common.contracts.effects import EffectApplied, TradeCheck, TradeFacts
from turf_common.contracts.players import PlayerVerified
from turf_common.rules import gametime
from turf_common.testing import FakeClock, RecordingPublisher

SEED = "unit-test-seed"
#: Monday 5 October 2026, 10:00 in New York: the first game day of the season, open (R3)
OPEN = datetime.fromisoformat("2026-10-05T10:00:00-04:00")
#: before the season: a player verified then draws nothing at verification (R12)
BEFORE = datetime.fromisoformat("2026-10-01T12:00:00-04:00")
#: the same Monday, 23:00: closed
CLOSED = datetime.fromisoformat("2026-10-05T23:00:00-04:00")

Answer = EffectApplied | Refusal | None


@dataclass
class FakeClaims:
    """Claims as the cards service sees it: ``answer(subject, command)`` decides each first request of a command
    id (None: no answer); a repeated command id gets the first answer again, as claims stores it, and is applied
    (counted in :attr:`applied`) once."""

    answer: Callable[[str, dict[str, Any]], Answer] = lambda subject, cmd: EffectApplied(
        command_id=cmd["command_id"], kind=subject.rsplit(".", 1)[-1])
    facts: TradeFacts | Refusal | None = None
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    first: dict[str, Answer] = field(default_factory=dict)
    applied: list[str] = field(default_factory=list)

    async def apply(self, subject: str, command: str) -> Answer:
        cmd = json.loads(command)
        self.sent.append((subject, cmd))
        cid = cmd["command_id"]
        if cid not in self.first:
            out = self.answer(subject, cmd)
            if out is None or (isinstance(out, Refusal) and out.reason == "unavailable"):
                return out                  # nothing decided: the next request decides
            self.first[cid] = out
            if isinstance(out, EffectApplied):
                self.applied.append(cid)
        return self.first[cid]

    async def trade_check(self, q: TradeCheck) -> TradeFacts | Refusal:
        assert self.facts is not None, "no trade facts scripted"
        return self.facts


@dataclass
class World:
    store: MemoryCardsStore
    clock: FakeClock
    claims: FakeClaims
    relay: RecordingPublisher
    h: CardsHandlers

    @property
    def season_id(self) -> str:
        """The configuration file's season (2026), the one these tests play."""
        return self.h.cx.file_season.season_id

    async def hand(self, player_id: str, season_id: str | None = None) -> list[Card]:
        """The player's unused cards of the season (R31: hands are per season; default the file's season)."""
        return await self.store.hand(season_id or self.season_id, player_id)

    def published(self, prefix: str = "") -> list[tuple[str, Event]]:
        return self.relay.events(prefix)

    async def verify(self, player_id: str, at: datetime = OPEN) -> None:
        """``player.verified`` during the season: R12's top-up to 3 cards."""
        await self.h.on_event(PlayerVerified(occurred_at=at, player_id=player_id, at=at))

    async def give(self, player_id: str, *types: str, remove: tuple[str, ...] = ()) -> list[str]:
        """The organizer's ``adjust_hand`` (R28): the ids of the added cards."""
        out = await self.h.hands.adjust(AdjustHand(correction_id=uuid.uuid4().hex, player_id=player_id,
                                                   add=list(types), remove=list(remove)))  # type: ignore[arg-type]
        assert isinstance(out, AdjustReply), out
        return [c.id for c in out.added]

    async def states(self, player_id: str) -> dict[str, str]:
        """Every card of the player (live or not): id → state."""
        return {c.id: c.state for c, _ in self.store.state.cards.values() if c.player_id == player_id}


def world(now: datetime = OPEN, claims: FakeClaims | None = None, deal_wait_s: float = 0.0) -> World:
    """``deal_wait_s``: how long a command waits for its day's deal (R5/R12); most tests deliver no day start, so
    by default none."""
    store, clock, fake = MemoryCardsStore(), FakeClock(now), claims or FakeClaims()
    relay = RecordingPublisher(store.take_staged)
    h = bootstrap.handlers(store=store, clock=clock, claims=fake, relay=relay,
                           season=gametime.load_season(), seed=SEED)
    h.cx.deal_wait_s = deal_wait_s
    return World(store, clock, fake, relay, h)
