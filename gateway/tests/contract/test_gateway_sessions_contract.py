"""The gateway's sessions by token hash, one contract for the memory fake and PostgreSQL (see
conftest.py): a lookup answers the caller as the players table has them now and the expiry in UTC; purge removes
what expired by the instant given."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from gateway_backends import Backend
from sqlalchemy.exc import IntegrityError

from turf_gateway.ports import Caller, NewPlayer, Point, StatusChange
from turf_gateway.testing import DuplicateKey

NOW = datetime(2026, 10, 6, 13, 0, tzinfo=UTC)
EDT = timezone(timedelta(hours=-4))


async def ann(backend: Backend) -> str:
    return await backend.players.create(NewPlayer("Ann", "ann@example.com", "ann_d", "ann street 1", "hash"))


async def test_a_session_is_looked_up_with_its_caller_and_expiry_in_utc(backend: Backend) -> None:
    pid, sessions = await ann(backend), backend.sessions
    await sessions.create("h1", pid, datetime(2026, 10, 6, 10, 0, tzinfo=EDT))
    found = await sessions.lookup("h1")
    assert found == (Caller(pid, "player", "pending", "ann_d", None), NOW + timedelta(hours=1), None)
    assert found is not None and found[1].utcoffset() == timedelta(0)
    assert await sessions.lookup("h2") is None
    # R27: the caller as stored now, the private home included (R7.1 compares the day's first fix with it)
    await backend.players.place(pid, "ann street 1", Point(40.744, -74.032), None, NOW)
    assert await sessions.lookup("h1") == (Caller(pid, "player", "verified", "ann_d", Point(40.744, -74.032)),
                                           NOW + timedelta(hours=1), None)


async def test_a_session_of_no_stored_player_is_not_found(backend: Backend) -> None:
    await backend.sessions.create("h1", "nobody", NOW)
    assert await backend.sessions.lookup("h1") is None


async def test_a_token_hash_is_one_session(backend: Backend) -> None:
    pid = await ann(backend)
    await backend.sessions.create("h1", pid, NOW)
    with pytest.raises((IntegrityError, DuplicateKey)):
        await backend.sessions.create("h1", pid, NOW + timedelta(hours=1))
    assert await backend.sessions.lookup("h1") == (Caller(pid, "player", "pending", "ann_d"), NOW, None)


async def test_delete_ends_one_session_and_an_unknown_one_is_no_error(backend: Backend) -> None:
    pid, sessions = await ann(backend), backend.sessions
    await sessions.create("h1", pid, NOW)
    await sessions.create("h2", pid, NOW)
    await sessions.delete("h1")
    await sessions.delete("h1")
    await sessions.delete("unknown")
    assert await sessions.lookup("h1") is None
    assert await sessions.lookup("h2") is not None


async def test_purge_removes_the_sessions_expired_by_now_and_counts_them(backend: Backend) -> None:
    pid, sessions = await ann(backend), backend.sessions
    for h, at in (("gone", NOW - timedelta(seconds=1)), ("edge", NOW), ("kept", NOW + timedelta(microseconds=1))):
        await sessions.create(h, pid, at)
    assert await sessions.purge(NOW) == 2             # expired at the instant itself is expired
    assert await sessions.lookup("gone") is None and await sessions.lookup("edge") is None
    assert await sessions.lookup("kept") is not None
    assert await sessions.purge(NOW) == 0


async def test_a_disqualified_players_sessions_end(backend: Backend) -> None:
    pid = await ann(backend)
    await backend.sessions.create("h1", pid, NOW)
    await backend.players.change_status(StatusChange(pid, "disqualified", "org", "spoofing", None, NOW, False))
    assert await backend.sessions.lookup("h1") is None


async def test_a_sessions_idle_deadline_is_kept_moved_and_purged(backend: Backend) -> None:
    """A session's idle deadline (session_idle.py) is stored in UTC, moved by a use (touch), and a session whose
    idle deadline passed is purged like an expired one, whatever its absolute expiry."""
    pid, sessions = await ann(backend), backend.sessions
    far = NOW + timedelta(days=14)
    await sessions.create("idle", pid, far, datetime(2026, 10, 6, 10, 0, tzinfo=EDT))
    await sessions.create("used", pid, far, NOW)
    found = await sessions.lookup("idle")
    assert found is not None and found[1:] == (far, NOW + timedelta(hours=1))
    await sessions.touch("used", NOW + timedelta(days=7))
    await sessions.touch("unknown", NOW)   # no error
    found = await sessions.lookup("used")
    assert found is not None and found[2] == NOW + timedelta(days=7)
    assert await sessions.purge(NOW + timedelta(hours=1)) == 1
    assert await sessions.lookup("idle") is None and await sessions.lookup("used") is not None
