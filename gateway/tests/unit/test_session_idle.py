"""Sessions end after a time unused, as well as at their absolute expiry. Threat: a token left on a shared phone
or in an old browser answered for 14 days whether or not anyone used it; the organizer's no sooner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.players import Sessions
from turf_gateway.handlers.session_idle import IdlePolicy
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import NewPlayer
from turf_gateway.testing import MemoryPlayers, MemorySessions, MemoryTables

T0 = datetime(2026, 10, 6, 13, 0, tzinfo=UTC)
POLICY = IdlePolicy(player=timedelta(days=7), organizer=timedelta(hours=12), step=timedelta(hours=1))


def test_a_new_sessions_idle_deadline_depends_on_the_role_and_never_passes_its_expiry() -> None:
    far = T0 + timedelta(days=14)
    assert POLICY.first("player", T0, far) == T0 + timedelta(days=7)
    assert POLICY.first("organizer", T0, far) == T0 + timedelta(hours=12)
    assert POLICY.first("player", T0, T0 + timedelta(days=2)) == T0 + timedelta(days=2)


def test_a_use_moves_the_idle_deadline_at_most_once_a_step_and_never_past_the_expiry() -> None:
    far = T0 + timedelta(days=14)
    assert POLICY.moved("player", T0, far, T0 + timedelta(days=7) - timedelta(minutes=59)) is None
    assert POLICY.moved("player", T0, far, T0 + timedelta(days=6)) == T0 + timedelta(days=7)
    assert POLICY.moved("player", T0, far, None) == T0 + timedelta(days=7)    # a session from before: set now
    near = T0 + timedelta(days=3)
    assert POLICY.moved("player", T0, near, T0 + timedelta(days=2)) == near
    assert POLICY.moved("player", T0, near, near) is None                    # capped: no write again
    assert POLICY.ends(far, T0) == T0 and POLICY.ends(far, None) == far


class _Touches(MemorySessions):
    touched: list[datetime]

    async def touch(self, token_hash: str, idle_until: datetime) -> None:
        self.touched.append(idle_until)
        await super().touch(token_hash, idle_until)


async def _sessions(role: str = "player") -> tuple[Sessions, _Touches, str]:
    tables = MemoryTables()
    players = MemoryPlayers(tables)
    if role == "organizer":
        async def same(_: str) -> bool:
            return True
        await players.ensure_organizer("org@example.org", "hash", same)
        acc = await players.account("org@example.org")
        assert acc is not None
        pid = acc.id
    else:
        pid = await players.create(NewPlayer("Ann", "ann@example.org", "ann_d", "-", "hash"))
    store = _Touches(tables)
    store.touched = []
    return Sessions(store, SessionCache(ttl_s=0), POLICY), store, pid


async def test_a_session_unused_past_its_idle_deadline_is_refused_though_not_expired() -> None:
    sessions, store, pid = await _sessions()
    now = datetime.now(UTC)
    await store.create(token_hash("idle"), pid, now + timedelta(days=10), now - timedelta(seconds=1))
    with pytest.raises(ApiError) as refused:
        await sessions.caller("idle")
    assert refused.value.status == 401 and refused.value.reason == "unauthenticated"


async def test_a_used_session_moves_its_idle_deadline_once_per_step() -> None:
    sessions, store, pid = await _sessions()
    now = datetime.now(UTC)
    await store.create(token_hash("used"), pid, now + timedelta(days=10), now + timedelta(days=1))
    for _ in range(3):
        assert (await sessions.caller("used")).id == pid
    assert len(store.touched) == 1 and store.touched[0] - now >= timedelta(days=7) - timedelta(seconds=5)


async def test_the_organizers_session_idles_out_sooner() -> None:
    sessions, store, pid = await _sessions("organizer")
    now = datetime.now(UTC)
    await store.create(token_hash("org"), pid, now + timedelta(days=10), None)   # from before idle deadlines
    assert (await sessions.caller("org")).role == "organizer"
    assert store.touched and store.touched[0] - now <= timedelta(hours=12, seconds=5)
