"""The password-hashing queue is fair per client. Threat: a few addresses guessing passwords of made-up emails
filled the whole shared queue, and the organizer's sign-ins (and every registration) were answered 503. Now one
address holds a small share, and the organizer's account and an address the account signed in from before have
places of their own and the next free thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from turf_gateway.adapters import passwords
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.players import Players
from turf_gateway.ports import NewPlayer
from turf_gateway.testing import MemoryPlayers, MemorySessions, MemoryTables, NoLimits


class _Held:
    """Hashes that start, say so, and finish only when let go (by name)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.go: dict[str, threading.Event] = {}

    def __call__(self, name: str) -> str:
        self.started.append(name)
        self.go.setdefault(name, threading.Event()).wait(10)
        return name

    def run(self, name: str, client: str | None, priority: bool = False) -> asyncio.Future[str]:
        self.go.setdefault(name, threading.Event())
        return asyncio.ensure_future(passwords._run(self, name, client=client, priority=priority))

    def release_all(self) -> None:
        for e in self.go.values():
            e.set()


@pytest.fixture
async def held() -> AsyncIterator[_Held]:
    """2 threads, 4 waiting places for anyone, 2 each per client, 2 reserved for priority."""
    passwords.use_profile("fast")
    passwords.configure(4, per_client=2, reserve=2)
    h = _Held()
    try:
        yield h
    finally:
        h.release_all()
        await asyncio.sleep(0.1)
        passwords.configure(passwords.QUEUE)
        passwords.use_profile("default")


async def test_one_address_holds_at_most_its_share_of_the_hashing_queue(held: _Held) -> None:
    taken = [held.run("a1", "198.18.0.1"), held.run("a2", "198.18.0.1")]
    await asyncio.sleep(0.05)
    with pytest.raises(passwords.ClientBusy) as busy:
        await passwords.verify_password(passwords.dummy_hash(), "guess", client="198.18.0.1")
    assert busy.value.status == 429 and busy.value.reason == "rate_limited"
    assert int((busy.value.headers or {})["Retry-After"]) >= 1
    other = asyncio.ensure_future(passwords.verify_password(passwords.dummy_hash(), "x", client="198.18.0.2"))
    await asyncio.sleep(0.05)   # another address is admitted (it waits for a thread)
    held.release_all()
    assert await asyncio.gather(*taken) == ["a1", "a2"] and await other is False


async def test_the_organizer_gets_a_reserved_place_and_the_next_thread_when_strangers_fill_the_queue(
        held: _Held) -> None:
    """Three addresses fill all 6 open places (2 running, 4 waiting); a fourth is refused 503; a priority hash
    (the organizer) is admitted to a reserved place and runs as soon as one thread frees, before the 4 waiting."""
    strangers = [held.run(f"s{i}", f"198.18.1.{i // 2}") for i in range(6)]
    await asyncio.sleep(0.05)
    assert held.started == ["s0", "s1"]
    with pytest.raises(passwords.Busy):
        await passwords.verify_password(passwords.dummy_hash(), "guess", client="198.18.1.9")
    organizer = held.run("organizer", "203.0.113.5", priority=True)
    await asyncio.sleep(0.05)
    held.go["s0"].set()
    await asyncio.sleep(0.1)
    assert held.started[2] == "organizer", held.started
    held.release_all()
    assert await organizer == "organizer" and len(await asyncio.gather(*strangers)) == 6


async def test_a_waiter_that_goes_away_gives_its_turn_to_the_next(held: _Held) -> None:
    running = [held.run("r1", "198.18.2.1"), held.run("r2", "198.18.2.2")]
    await asyncio.sleep(0.05)
    gone, next_ = held.run("gone", "198.18.2.3"), held.run("next", "198.18.2.4")
    await asyncio.sleep(0.05)
    gone.cancel()
    held.go["r1"].set()
    await asyncio.sleep(0.1)
    assert held.started == ["r1", "r2", "next"]   # the thread went past the waiter that left
    held.release_all()
    assert await asyncio.gather(next_, *running) == ["next", "r1", "r2"]
    assert gone.cancelled()


class _Nothing:
    async def revoke(self, **_: Any) -> None:
        return None


async def test_the_organizers_sign_in_is_admitted_while_strangers_fill_the_queue(held: _Held) -> None:
    """The sign-in use case gives the organizer's account priority: with every open place held by strangers, a
    stranger's sign-in is 503 and the organizer's right password is in."""
    tables = MemoryTables()
    store = MemoryPlayers(tables)

    async def same(_: str) -> bool:
        return False

    await store.ensure_organizer("org@example.org", await passwords.hash_password("organizer secret 2026"), same)
    n = _Nothing()
    players = Players(store, MemorySessions(tables), n, None, NoLimits(), None, None, None, None,  # type: ignore[arg-type]
                      n, timedelta(hours=1))   # type: ignore[arg-type]
    strangers = [held.run(f"s{i}", f"198.18.3.{i // 2}") for i in range(6)]
    await asyncio.sleep(0.05)
    with pytest.raises(ApiError) as busy:
        await players.sign_in("nobody@example.org", "guess", "198.18.3.9")
    assert busy.value.status == 503
    signing_in = asyncio.ensure_future(players.sign_in("org@example.org", "organizer secret 2026", "203.0.113.5"))
    await asyncio.sleep(0.05)
    held.go["s0"].set()
    out = await asyncio.wait_for(signing_in, 5)
    assert out.role == "organizer"
    held.release_all()
    await asyncio.gather(*strangers)


class _Remembers(NoLimits):
    """Every address is one the account signed in from before."""

    async def remembers(self, name: str, who: str) -> bool:
        return True


@pytest.mark.parametrize(("limiter", "refused"), [(NoLimits(), 1), (_Remembers(), 0)])
async def test_players_behind_one_nat_who_signed_in_from_it_before_never_count_against_each_other(
        held: _Held, limiter: NoLimits, refused: int) -> None:
    """Three players sign in at once from one address (a campus NAT) while the threads are busy: strangers there
    share the address's 2 places (the third is 429), players the address is known to count each on their own."""
    tables = MemoryTables()
    store = MemoryPlayers(tables)
    for name in ("ann", "bob", "cy"):
        await store.create(NewPlayer(name, f"{name}@example.org", f"{name}_d", "-",
                                     await passwords.hash_password(f"{name}'s long passphrase")))
    n = _Nothing()
    players = Players(store, MemorySessions(tables), n, None, limiter, None, None, None, None,  # type: ignore[arg-type]
                      n, timedelta(hours=1))   # type: ignore[arg-type]
    running = [held.run("r1", None), held.run("r2", None)]
    await asyncio.sleep(0.05)
    signing_in = [asyncio.ensure_future(players.sign_in(f"{name}@example.org", f"{name}'s long passphrase",
                                                        "192.0.2.10")) for name in ("ann", "bob", "cy")]
    await asyncio.sleep(0.05)
    held.release_all()
    outcomes = await asyncio.gather(*signing_in, return_exceptions=True)
    await asyncio.gather(*running)
    assert sum(isinstance(o, ApiError) and o.status == 429 for o in outcomes) == refused, outcomes
