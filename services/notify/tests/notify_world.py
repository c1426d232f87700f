"""A notify service on fakes (memory store, fixed game clock, recording senders) for the unit tests."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from turf_common.contracts.players import PlayerVerified
from turf_common.rules import gametime
from turf_common.testing import FakeClock, RecordingPublisher
from turf_notify.handlers import NotifyHandlers
from turf_notify.mailing import Mailing
from turf_notify.testing import MemoryMailQueue, MemoryNotifyStore, RecordingDiscord, RecordingMailer, RecordingPush

SEASON = gametime.load_season()
HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"
TOWNS = {HOBOKEN: "Hoboken", JERSEY_CITY: "Jersey City"}


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


@dataclass
class World:
    h: NotifyHandlers
    store: MemoryNotifyStore
    clock: FakeClock
    push: RecordingPush
    discord: RecordingDiscord
    wall: list[datetime]
    mailing: Mailing
    mailer: RecordingMailer

    async def player(self, pid: str, name: str) -> None:
        """A verified player the roster knows; their "you are verified" notification (R27, tested on its own) is
        left out, so a test sees what it is about."""
        await self.h.on_event(PlayerVerified(occurred_at=at("2026-10-05T06:00:00-04:00"), player_id=pid,
                                             at=at("2026-10-05T06:00:00-04:00"), display_name=name))
        self.store.state.notifications = [(p, n) for p, n in self.store.state.notifications
                                          if not (p == pid and n.kind == "verified")]

    def of(self, pid: str) -> list[tuple[str, str, dict[str, object]]]:
        return [(n.kind, n.message, n.data) for p, n in self.store.state.notifications if p == pid]


def world(game_now: str = "2026-10-05T12:00:00-04:00") -> World:
    store, clock = MemoryNotifyStore(), FakeClock(at(game_now))
    push, discord = RecordingPush(), RecordingDiscord()
    wall = [datetime(2026, 12, 1, 12, 0, tzinfo=UTC)]
    h = NotifyHandlers(store=store, clock=clock, relay=RecordingPublisher(), season=SEASON, towns=TOWNS,
                       push=push, discord=discord, group_seconds=60.0, wall=lambda: wall[0])
    mailer = RecordingMailer()
    mailing = Mailing(MemoryMailQueue(), mailer, "league@example.org", interval_s=0, wall=lambda: wall[0])
    return World(h, store, clock, push, discord, wall, mailing, mailer)
