"""Sign-in an attacker cannot turn against the owner: the account slow-down is per (account, client) on the real
rate limiter (an embedded Redis), with the sign-in use case on memory stores and argon2's cheap profile.

Threat: password guessing from several addresses while the owner signs in from a new one. With one slow-down slot
per account, an attacker at one try per 50 ms took every slot and the owner's right password was refused 429 for
as long as the attack lasted, which API.md's sign-in contract forbids."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import pytest

from tests.support.servers import redis_server
from turf_common import redisconn
from turf_gateway.adapters import passwords
from turf_gateway.adapters.ratelimit import RateLimiter, parse_limits
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.players import Players
from turf_gateway.ports import NewPlayer
from turf_gateway.testing import MemoryPlayers, MemorySessions, MemoryTables

OWNER = ("owner@example.org", "owner's long passphrase")


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with redis_server(tmp_path_factory, "signin-attack") as url:
        yield url


class _Nothing:
    async def revoke(self, **_: Any) -> None:
        return None

    async def purge(self, *_: Any) -> int:
        return 0


async def _players(redis_url: str, limits: str) -> AsyncIterator[Players]:
    passwords.use_profile("fast")
    redis = redisconn.connect(redis_url)
    tables = MemoryTables()
    store = MemoryPlayers(tables)
    await store.create(NewPlayer("Owner", OWNER[0], "owner", "-", await passwords.hash_password(OWNER[1])))
    limiter = RateLimiter(redis, parse_limits(limits), prefix=f"t{uuid.uuid4().hex[:8]}:")
    n = _Nothing()
    try:
        yield Players(store, MemorySessions(tables), n, None, limiter, None, None, None, None,  # type: ignore[arg-type]
                      n, timedelta(hours=1))   # type: ignore[arg-type]
    finally:
        await redis.aclose()
        passwords.use_profile("default")


@pytest.fixture
async def attacked(redis_url: str) -> AsyncIterator[Players]:
    """Sign-in with the account slowed after 3 failures, one attempt per 10 s per (account, client) then."""
    async for p in _players(redis_url, "sessions_account=3/900,sessions_account_slow=1/10"):
        yield p


async def _code(players: Players, email: str, password: str, ip: str) -> int:
    try:
        await players.sign_in(email, password, ip)
    except ApiError as e:
        return e.status
    return 200


async def test_others_failures_never_refuse_the_owners_right_password_from_a_new_address(attacked: Players) -> None:
    """Six addresses guess until the account is slowed and keep guessing (each try of each address, as fast as
    it can); the owner, from an address the account never signed in from, gets in at the first try."""
    attackers = [f"198.18.0.{i}" for i in range(1, 7)]
    first = [await _code(attacked, OWNER[0], f"guess {ip}", ip) for ip in attackers[:3]]
    assert first == [401] * 3   # the account's failures reach sessions_account
    hammering = [await _code(attacked, OWNER[0], f"guess {i}", ip) for i in range(3) for ip in attackers]
    assert hammering.count(429) >= 9 and set(hammering) <= {401, 429}, hammering   # each address slowed
    assert await _code(attacked, OWNER[0], OWNER[1], "203.0.113.50") == 200
    assert await _code(attacked, OWNER[0], OWNER[1], "2001:db8:7::1") == 200   # another new client, at once


async def test_an_address_guessing_a_slowed_account_waits_its_own_window(attacked: Players) -> None:
    """Past sessions_account, one address gets one attempt per sessions_account_slow window for that account
    (429 with Retry-After), while that address's window holds no one else back."""
    for ip in ("198.18.1.1", "198.18.1.2", "198.18.1.3"):
        assert await _code(attacked, OWNER[0], "guess", ip) == 401
    assert await _code(attacked, OWNER[0], "guess", "198.18.1.4") == 401
    with pytest.raises(ApiError) as slowed:
        await attacked.sign_in(OWNER[0], "guess again", "198.18.1.4")
    assert slowed.value.status == 429 and slowed.value.reason == "rate_limited"
    assert 1 <= int((slowed.value.headers or {})["Retry-After"]) <= 10
    assert await _code(attacked, OWNER[0], "guess", "198.18.1.5") == 401   # its own first attempt


async def test_an_address_gets_a_few_attempts_per_quarter_hour_on_a_slowed_account(redis_url: str) -> None:
    """A botnet's address gets sessions_account_client attempts per quarter hour on a slowed account, however
    long it waits between them (here the per-attempt window is out of the way)."""
    limits = "sessions_account=1/900,sessions_account_slow=100/10,sessions_account_client=2/900"
    async for players in _players(redis_url, limits):
        assert await _code(players, OWNER[0], "guess", "198.18.2.1") == 401
        codes = [await _code(players, OWNER[0], f"guess {i}", "198.18.2.2") for i in range(3)]
        assert codes == [401, 401, 429]
        assert await _code(players, OWNER[0], OWNER[1], "198.18.2.3") == 200
