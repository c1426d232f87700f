"""The gateway's use cases on fakes (no servers): the session lookup's cache, and an organizer's status
change answering only after the owning services were asked with the event itself (R25, R27, R28)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.notify import QueueMail
from turf_common.contracts.players import PlayerApplied, PlayerDisqualified, PlayerVerified
from turf_common.rules import gametime
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.handlers.players import Players, Sessions
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import Caller, NewPlayer, StatusChange
from turf_gateway.testing import MemoryAccountTokens, MemoryPlayers, MemorySessions, MemoryTables, NoLimits

M = TypeVar("M", bound=Message)
NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")


class CountingSessions(MemorySessions):
    """The memory sessions, counting lookups."""

    lookups = 0

    async def lookup(self, token_hash: str) -> tuple[Caller, datetime] | None:
        self.lookups += 1
        return await super().lookup(token_hash)


async def registered(tables: MemoryTables, *names: str, verified: tuple[str, ...] = ()) -> dict[str, str]:
    """Players ``names`` (their display name the name) in ``tables``, those in ``verified`` verified; ids by name."""
    store = MemoryPlayers(tables)
    ids = {n: await store.create(NewPlayer(n.title(), f"{n}@example.com", n, "-", "hash")) for n in names}
    for n in verified:
        await store.change_status(StatusChange(ids[n], "verified", "org", "", None, NOW, False))
    tables.outbox.clear()
    return ids


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


async def test_a_session_is_read_once_while_cached_and_refused_unknown_or_expired() -> None:
    tables = MemoryTables()
    ada = (await registered(tables, "ada", verified=("ada",)))["ada"]
    store = CountingSessions(tables)
    await store.create(token_hash("good"), ada, datetime.now(UTC) + timedelta(hours=1))
    await store.create(token_hash("old"), ada, datetime.now(UTC) - timedelta(seconds=1))
    sessions = Sessions(store, SessionCache(ttl_s=60))
    caller = Caller(id=ada, role="player", status="verified", display_name="ada")
    assert await sessions.caller("good") == caller and await sessions.caller("good") == caller
    assert store.lookups == 1
    for token in ("old", "unknown"):
        with pytest.raises(ApiError) as e:
            await sessions.caller(token)
        assert e.value.reason == "unauthenticated"


def players(tables: MemoryTables, services: Services) -> Players:
    n = Nothing()
    return Players(MemoryPlayers(tables), MemorySessions(tables), n, services, NoLimits(), None,  # type: ignore[arg-type]
                   load_board(), n, gametime.load_season(), n, timedelta(hours=1))   # type: ignore[arg-type]


async def test_r28_a_disqualification_asks_claims_and_scoring_with_the_event_itself_repeats_included() -> None:
    tables, services = MemoryTables(), Services()
    ada = (await registered(tables, "ada", verified=("ada",)))["ada"]
    uc = players(tables, services)
    for _ in range(2):   # a repeat finds the player disqualified and asks again, under the same event id
        out = await uc.set_status("org", ada, "disqualified", "GPS spoofing", "private")
        assert (out.id, out.status) == (ada, "disqualified")
    assert [s for s, _ in services.asked] == [subjects.CLAIMS_DISQUALIFY, subjects.SCORING_DISQUALIFY] * 2
    events = [m for _, m in services.asked]
    assert all(isinstance(m, PlayerDisqualified) and m.player_id == ada and m.at == NOW for m in events)
    assert len({m.event_id for m in events if isinstance(m, PlayerDisqualified)}) == 1
    # the note is the organizer's (the correction's request), once; the season is open
    [rec] = tables.corrections
    assert (rec.request, rec.post_season) == ({"player_id": ada, "note": "private"}, False)


async def test_r25_a_verification_asks_scoring_and_a_rejection_asks_nobody() -> None:
    tables, services = MemoryTables(), Services()
    ids = await registered(tables, "bo", "cy")
    uc = players(tables, services)
    await uc.set_status("org", ids["bo"], "verified", "", None)
    [(subject, ev)] = services.asked
    assert subject == subjects.SCORING_VERIFY and isinstance(ev, PlayerVerified) and ev.display_name == "bo"
    await uc.set_status("org", ids["cy"], "rejected", "outside the area", None)
    assert len(services.asked) == 1


async def test_r27_a_verification_by_the_organizer_mails_the_player_once_with_the_play_pages_link() -> None:
    tables, services = MemoryTables(), Services()
    ids = await registered(tables, "bo", "cy")
    uc = players(tables, services)
    uc.accounts = Accounts(uc.players, MemoryAccountTokens(tables), Nothing(), services, NoLimits(),  # type: ignore[arg-type]
                           "https://turf.example", relay=Nothing())
    for _ in range(2):   # a repeat finds the player verified: no second mail
        await uc.set_status("org", ids["bo"], "verified", "", None)
    await uc.set_status("org", ids["cy"], "rejected", "outside the area", None)
    mails = [m for s, m in tables.outbox if s == subjects.NOTIFY_MAIL]
    assert [(m.to, m.kind, m.name, m.link) for m in mails if isinstance(m, QueueMail)] == [
        ("bo@example.com", "verified", "Bo", "https://turf.example/")]
