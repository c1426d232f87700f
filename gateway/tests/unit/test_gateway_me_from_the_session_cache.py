"""``GET /me`` reads the player's profile from the session cache's memory, kept as long as a session entry
and dropped with the player's sessions by the status changes that alone change it (the revocation every gateway
hears), on fakes."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, TypeVar

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import PlayerReply
from turf_common.rules import gametime
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.adapters.session_revocation import NatsRevocations
from turf_gateway.handlers.players import Players
from turf_gateway.ports import Caller, NewPlayer, PlayerRow
from turf_gateway.testing import MemoryPlayers, MemoryTables, NoLimits
from turf_gateway.testing import MemorySessions as Sessions

M = TypeVar("M", bound=Message)
NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")


class Nothing:
    """No rate limits, relay or revocations of interest: the clock's now, nothing flushed."""

    async def flush(self) -> int:
        return 0

    async def now(self) -> datetime:
        return NOW


async def pending(tables: MemoryTables, name: str) -> str:
    """A registered player waiting for the organizer (R27): they sign in and read GET /me."""
    return await MemoryPlayers(tables).create(NewPlayer(name.title(), f"{name}@example.com", name, "-", "hash"))


class CountingPlayers(MemoryPlayers):
    reads = 0

    async def get(self, player_id: str) -> PlayerRow | None:
        self.reads += 1
        return await super().get(player_id)


class Claims:
    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        assert subject == subjects.CLAIMS_PLAYER
        return PlayerReply(player_id=msg.player_id, claims_left_today=1)  # type: ignore[attr-defined,return-value]


class Broker:
    """The bus the revocation is told on (recorded, not sent)."""

    def __init__(self) -> None:
        self.published: list[tuple[bytes, str]] = []

    async def publish(self, data: bytes, subject: str) -> None:
        self.published.append((data, subject))


class Clock:
    t = 100.0

    def __call__(self) -> float:
        return self.t


def case(tables: MemoryTables, cache: SessionCache[Any]) -> tuple[Players, CountingPlayers]:
    store, n = CountingPlayers(tables), Nothing()
    uc = Players(store, Sessions(tables), NatsRevocations(Broker(), cache), Claims(), NoLimits(),  # type: ignore[arg-type]
                 None, load_board(), n, gametime.load_season(), n, timedelta(hours=1), profiles=cache)  # type: ignore[arg-type]
    return uc, store


async def test_r27_me_reads_the_profile_once_while_kept_and_again_after_a_status_change() -> None:
    tables = MemoryTables()
    ada = await pending(tables, "ada")
    clock = Clock()
    cache: SessionCache[Any] = SessionCache(ttl_s=60, clock=clock)
    uc, store = case(tables, cache)
    caller = Caller(id=ada, role="player", status="pending", display_name="ada")
    first, second = await uc.me(caller), await uc.me(caller)
    assert first == second and first.status == "pending" and first.claims_left_today == 1
    assert store.reads == 1
    # the organizer rejects her: the change drops what was kept (every gateway hears it), the next read is true
    await uc.set_status("org", ada, "rejected", "not a resident", None)
    assert (await uc.me(caller)).status == "rejected"
    assert store.reads == 2
    clock.t += 61   # and nothing is kept longer than the cache's time
    await uc.me(caller)
    assert store.reads == 3


def test_a_profile_read_before_an_eviction_is_not_kept() -> None:
    cache: SessionCache[str] = SessionCache(ttl_s=60, clock=Clock())
    began = cache.generation
    cache.evict_player("p1")   # the player's status changed while the read was on its way
    cache.keep_profile("p1", "old row", began)
    assert cache.profile("p1") is None
    cache.keep_profile("p1", "new row", cache.generation)
    assert cache.profile("p1") == "new row"
    cache.evict_token("some token")   # a sign-out keeps the player's profile (another device is signed in)
    assert cache.profile("p1") == "new row"
    off: SessionCache[str] = SessionCache(ttl_s=0)
    off.keep_profile("p1", "row", off.generation)
    assert off.profile("p1") is None
