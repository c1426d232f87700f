"""Issue 28: the gateway's use cases on fakes (no servers): the session lookup's cache, and an organizer's status
change answering only after the owning services were asked with the event itself (R25, R27, R28)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.players import PlayerApplied, PlayerDisqualified, PlayerVerified
from turf_common.rules import gametime
from turf_gateway.errors import ApiError
from turf_gateway.handlers.players import Players, Sessions, token_hash
from turf_gateway.ports import Caller, StatusChange
from turf_gateway.session_cache import SessionCache
from turf_gateway.testing import NoLimits

M = TypeVar("M", bound=Message)
NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")
ADA = Caller(id="ada", role="player", status="verified", display_name="ada")


class Store:
    """Sessions and players in memory, counting lookups."""

    def __init__(self) -> None:
        self.sessions: dict[str, tuple[Caller, datetime]] = {}
        self.lookups = 0
        self.status = {"ada": "verified", "bo": "pending"}
        self.changes: list[StatusChange] = []

    async def lookup(self, h: str) -> tuple[Caller, datetime] | None:
        self.lookups += 1
        return self.sessions.get(h)

    async def change_status(self, change: StatusChange) -> str:
        self.changes.append(change)
        before, self.status[change.player_id] = self.status[change.player_id], change.new
        return before

    async def display_names(self, ids: list[str]) -> dict[str, str]:
        return {i: i for i in ids}


class Services:
    def __init__(self) -> None:
        self.asked: list[tuple[str, Message]] = []

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        self.asked.append((subject, msg))
        assert reply is PlayerApplied
        return PlayerApplied(player_id=getattr(msg, "player_id", ""))  # type: ignore[return-value]


class Nothing:
    async def revoke(self, **_: Any) -> None:
        return None

    async def flush(self) -> int:
        return 0

    async def now(self) -> datetime:
        return NOW


async def test_issue21_a_session_is_read_once_while_cached_and_refused_unknown_or_expired() -> None:
    store = Store()
    store.sessions[token_hash("good")] = (ADA, datetime.now(UTC) + timedelta(hours=1))
    store.sessions[token_hash("old")] = (ADA, datetime.now(UTC) - timedelta(seconds=1))
    sessions = Sessions(store, SessionCache(ttl_s=60))   # type: ignore[arg-type]
    assert await sessions.caller("good") == ADA and await sessions.caller("good") == ADA
    assert store.lookups == 1
    for token in ("old", "unknown"):
        with pytest.raises(ApiError) as e:
            await sessions.caller(token)
        assert e.value.reason == "unauthenticated"


def players(store: Store, services: Services) -> Players:
    n = Nothing()
    return Players(store, None, n, services, NoLimits(), None, load_board(), n,  # type: ignore[arg-type]
                   gametime.load_season(), n, timedelta(hours=1))   # type: ignore[arg-type]


async def test_r28_a_disqualification_asks_claims_and_scoring_with_the_event_itself_repeats_included() -> None:
    store, services = Store(), Services()
    uc = players(store, services)
    for _ in range(2):   # a repeat finds the player disqualified and asks again, under the same event id
        out = await uc.set_status("org", "ada", "disqualified", "GPS spoofing", "private")
        assert (out.id, out.status) == ("ada", "disqualified")
    assert [s for s, _ in services.asked] == [subjects.CLAIMS_DISQUALIFY, subjects.SCORING_DISQUALIFY] * 2
    events = [m for _, m in services.asked]
    assert all(isinstance(m, PlayerDisqualified) and m.player_id == "ada" and m.at == NOW for m in events)
    assert len({m.event_id for m in events if isinstance(m, PlayerDisqualified)}) == 1
    assert store.changes[0].note == "private" and store.changes[0].post_season is False


async def test_r25_a_verification_asks_scoring_and_a_rejection_asks_nobody() -> None:
    store, services = Store(), Services()
    uc = players(store, services)
    await uc.set_status("org", "bo", "verified", "", None)
    [(subject, ev)] = services.asked
    assert subject == subjects.SCORING_VERIFY and isinstance(ev, PlayerVerified) and ev.display_name == "bo"
    store.status["cy"] = "pending"
    await uc.set_status("org", "cy", "rejected", "outside the area", None)
    assert len(services.asked) == 1
