"""The gateway's edges, without servers: the per-address limits' key of a client (IPv6 by its /64),
the spectator socket's Origin allow-list, and the bounded password-hashing queue."""

from __future__ import annotations

import asyncio

import pytest

from turf_gateway.adapters import passwords
from turf_gateway.adapters.ratelimit import address_key
from turf_gateway.api.middleware.security import origin_allowed


@pytest.mark.parametrize(("host", "key"), [
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::ffff", "2001:db8:1:2::/64"),        # one subscriber's prefix: one client
    ("2001:db8:1:3::1", "2001:db8:1:3::/64"),           # the next /64: another
    ("fe80::1%eth0", "fe80::/64"),
    ("::ffff:203.0.113.7", "203.0.113.7"),              # IPv4-mapped: the IPv4 address
    ("203.0.113.7", "203.0.113.7"),
    ("testclient", "testclient"),
])
def test_ipv6_clients_are_keyed_by_their_64(host: str, key: str) -> None:
    assert address_key(host) == key


HOSTS = ["127.0.0.1", "localhost", "turf.example.org", "*.turf.example.org", "*"]
CORS = ["https://partner.example"]


@pytest.mark.parametrize(("origin", "host", "taken"), [
    (None, "127.0.0.1:8000", True),                           # no Origin: not a browser
    ("http://127.0.0.1:8000", "127.0.0.1:8000", True),        # the gateway's own page
    ("https://turf.example.org", "turf.example.org", True),
    ("https://eu.turf.example.org", "turf.example.org", True),  # a name of TURF_ALLOWED_HOSTS
    ("https://partner.example", "turf.example.org", True),      # TURF_CORS_ORIGINS
    ("https://partner.example/", "turf.example.org", False),    # an Origin has no path
    ("https://evil.example", "turf.example.org", False),        # the "*" of TURF_ALLOWED_HOSTS admits no page
    ("null", "turf.example.org", False),
    ("https://turf.example.org.evil.example", "turf.example.org", False),
    ("file://", "127.0.0.1:8000", False),
])
def test_spectator_origins(origin: str | None, host: str, taken: bool) -> None:
    scheme = "ws" if host.startswith("127.") else "wss"   # the loopback gateway on http, the others behind TLS
    assert origin_allowed(origin, host, HOSTS, CORS, scheme) is taken


async def test_the_hashing_queue_is_bounded_and_the_organizers_start_is_not() -> None:
    """With 2 threads and 1 waiting, a 4th hash at once is refused 503 with Retry-After (the 3 taken finish);
    ``bounded=False`` (the organizer's password at start) always queues. Before: every hash queued."""
    passwords.use_profile("fast")
    passwords.configure(1)
    try:
        hold = asyncio.Event()

        def slow(_: str) -> str:
            asyncio.run_coroutine_threadsafe(hold.wait(), loop).result(10)
            return "done"

        loop = asyncio.get_running_loop()
        taken = [asyncio.ensure_future(passwords._run(slow, "x")) for _ in range(3)]
        await asyncio.sleep(0.05)
        with pytest.raises(passwords.Busy) as busy:
            await passwords.verify_password(passwords.dummy_hash(), "x")
        assert busy.value.status == 503 and busy.value.reason == "unavailable"
        assert int((busy.value.headers or {})["Retry-After"]) >= 1
        unbounded = asyncio.ensure_future(passwords.hash_password("organizer", bounded=False))
        hold.set()
        assert await asyncio.gather(*taken) == ["done"] * 3
        assert (await unbounded).startswith("$argon2id$")
        assert await passwords.verify_password(passwords.dummy_hash(), "x") is False   # room again
    finally:
        passwords.configure(passwords.QUEUE)
        passwords.use_profile("default")
