"""Sign-in and the gateway's per-address limits, on the real stack with argon2 at its real cost: failures
counted before the hash (a concurrent burst is throttled as surely as a sequential one), an account guessed from
many addresses slowed but never locked, disqualified and rejected
players refused, pending players kept from push subscriptions, a rate limit on PUT /me/push, IPv6 clients counted
by their /64, the spectator socket's Origin allow-list and its throttled resends. The bounded hashing queue
is in test_argon2_bursts_keep_the_gateway_answering.py (alone on the machine).

The stack believes X-Forwarded-For from 127.0.0.2 only: a client bound there plays a reverse proxy and names each
request's client address."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from datetime import datetime

import httpx
import psycopg
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.support.client import API, move_clock, organizer, register, sign_in, verified_player
from tests.support.proxied import PROXY, any_address, burst, proxied, sign_in_via
from tests.support.stackfix import running_stack
from turfwar.stack import Stack

# sessions_account_slow's window: one attempt per SLOW_S from an address the account does not know; long enough
# that two guesses, each hashed at argon2's real cost, fall in one window on a loaded machine
SLOW_S = 20


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("signin29"), TURF_PASSWORD_HASH="default",
                       TURF_RATE_LIMITS=f"sessions_email=4/60,sessions_account=12/60,sessions_account_slow=1/{SLOW_S},"
                                        "push_player=3/3600,resends_ip=2/60",
                       TURF_FORWARDED_ALLOW_IPS=PROXY, TURF_WS_MAX_PER_IP="2",
                       TURF_CORS_ORIGINS="https://turfwar.example") as s:
        yield s


@pytest.fixture(scope="module")
def proxy(stack: Stack) -> Iterator[httpx.Client]:
    yield from proxied(stack)





def test_concurrent_wrong_passwords_count_as_surely_as_sequential_ones(
        stack: Stack, http: httpx.Client, proxy: httpx.Client) -> None:
    """40 wrong passwords at once for one account from one address: at most ``sessions_email`` (4) are tried,
    the rest 429. Before, the count was read before the hash and written after: all 40 got 401."""
    _, email, pw = register(http)
    attacker = any_address()
    answers = burst(stack, 40, lambda c, i: sign_in_via(c, attacker, email, f"guess {i}"))
    codes = [r.status_code for r in answers]
    assert codes.count(401) <= 4 and codes.count(429) >= 36, codes
    assert all(r.json()["reason"] == "rate_limited" and int(r.headers["Retry-After"]) >= 1
               for r in answers if r.status_code == 429)
    assert sign_in_via(proxy, any_address(), email, pw).status_code == 200   # the owner, elsewhere


def test_an_account_guessed_from_many_addresses_slows_down_and_its_owner_still_gets_in(
        http: httpx.Client, proxy: httpx.Client) -> None:
    """Past ``sessions_account`` (12 failures from any addresses), each address the account never signed in from
    gets one attempt per ``sessions_account_slow`` window (``SLOW_S``) for it; the owner's known address is not slowed,
    and the owner on a new address gets in at once: the slow-down is per (account, client), so the guesses of
    others never hold the owner back. Before, 12 addresses made 12 guesses each a minute."""
    _, email, pw = register(http)
    home = any_address()
    assert sign_in_via(proxy, home, email, pw).status_code == 200   # the owner's address, known from now on
    assert [sign_in_via(proxy, any_address(), email, "guess").status_code for _ in range(12)] == [401] * 12
    guesser = any_address()
    assert sign_in_via(proxy, guesser, email, "guess 13").status_code == 401   # one attempt in this window…
    slowed = sign_in_via(proxy, guesser, email, "guess 14")                    # …and no second from that address
    assert slowed.status_code == 429 and slowed.json()["reason"] == "rate_limited", slowed.text
    assert 1 <= int(slowed.headers["Retry-After"]) <= SLOW_S
    assert sign_in_via(proxy, home, email, pw).status_code == 200   # the owner at home: not slowed
    # the owner travelling: not held back either
    assert sign_in_via(proxy, any_address(), email, pw).status_code == 200


def test_disqualified_and_rejected_players_cannot_sign_in(http: httpx.Client) -> None:
    """API.md (amended): 403 ``not_eligible`` for their right password, 401 for a wrong one (the status is told only
    to whoever knows the password); a pending player signs in. Before: 200 and a new token."""
    org = organizer(http)
    pending, rejected, cheat = register(http), register(http), register(http)
    assert org.post(f"/admin/players/{rejected[0]}/reject", {"reason": "fake address"}).status_code == 200
    assert org.post(f"/admin/players/{cheat[0]}/disqualify", {"reason": "spoofing"}).status_code == 200
    for _, email, pw in (rejected, cheat):
        r = http.post(API + "/sessions", json={"email": email, "password": pw})
        assert r.status_code == 403 and r.json()["reason"] == "not_eligible" and r.json()["message"], r.text
        assert http.post(API + "/sessions", json={"email": email, "password": "wrong"}).status_code == 401
    assert sign_in(http, *pending[1:]).get("/me").json()["status"] == "pending"


ENDPOINT = "http://127.0.0.1:9/push/"   # a loopback receiver (manual-clock rehearsal); nothing is sent here
KEYS = {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
        "auth": "tBHItJI5svbpez7KI4CCXg"}


def _push_rows(stack: Stack, player_id: str) -> list[tuple[str, str]]:
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as db:
        return db.execute("SELECT endpoint, auth FROM notify.subscriptions WHERE player_id = %s ORDER BY endpoint",
                          (player_id,)).fetchall()


def test_push_subscriptions_pending_players_none_a_re_put_updates_and_the_route_is_rate_limited(
        stack: Stack, http: httpx.Client) -> None:
    """A pending player's PUT /me/push is 409 ``not_eligible`` (as their claims); a verified player's same endpoint
    saved again is one subscription with the new keys; a 4th PUT within the hour is 429 (``push_player``=3/h).
    Before: a pending player subscribed, and there was no limit."""
    pending = sign_in(http, *register(http)[1:])
    r = pending.put("/me/push", {"endpoint": ENDPOINT + "p", "keys": KEYS})
    assert r.status_code == 409 and r.json()["reason"] == "not_eligible", r.text
    assert _push_rows(stack, pending.id) == []
    p = verified_player(http, organizer(http))
    assert p.put("/me/push", {"endpoint": ENDPOINT + "a", "keys": KEYS}).status_code == 204
    again = {**KEYS, "auth": "AAAAAAAAAAAAAAAAAAAAAA"}
    assert p.put("/me/push", {"endpoint": ENDPOINT + "a", "keys": again}).status_code == 204
    assert _push_rows(stack, p.id) == [(ENDPOINT + "a", "AAAAAAAAAAAAAAAAAAAAAA")]
    assert p.put("/me/push", {"endpoint": ENDPOINT + "b", "keys": KEYS}).status_code == 204
    r = p.put("/me/push", {"endpoint": ENDPOINT + "c", "keys": KEYS})
    assert r.status_code == 429 and r.json()["reason"] == "rate_limited" and "Retry-After" in r.headers, r.text
    assert len(_push_rows(stack, p.id)) == 2


def test_an_ipv6_client_is_counted_by_its_64(http: httpx.Client, proxy: httpx.Client) -> None:
    """Failed sign-ins from five addresses of one /64 count as one client's (``sessions_email``=4): the 5th is
    429; another /64 is another client. Before: each address was a client of its own."""
    _, email, pw = register(http)
    codes = [sign_in_via(proxy, f"2001:db8:29:1::{i + 1:x}", email, "guess").status_code for i in range(5)]
    assert codes == [401, 401, 401, 401, 429], codes
    assert sign_in_via(proxy, "2001:db8:29:1:ffff::9", email, pw).status_code == 429
    assert sign_in_via(proxy, "2001:db8:29:2::1", email, pw).status_code == 200


def _ws(stack: Stack, query: str = "", origin: str | None = None, client: str | None = None) -> ClientConnection:
    """A spectator socket; ``client``: the address the trusted proxy names for it."""
    sock = socket.create_connection(("127.0.0.1", stack.http_port), source_address=(PROXY, 0))
    headers = {"X-Forwarded-For": client} if client else None
    return connect(f"ws://127.0.0.1:{stack.http_port}{API}/ws/scores{query}", sock=sock, open_timeout=10,
                   additional_headers=headers, origin=origin)  # type: ignore[arg-type]


def _closed_1008(ws: ClientConnection) -> bool:
    try:
        ws.recv(timeout=10)
    except ConnectionClosed as closed:
        return closed.rcvd is not None and closed.rcvd.code == 1008
    return False


def test_spectator_sockets_of_one_ipv6_64_share_the_per_address_cap(stack: Stack) -> None:
    a, b = _ws(stack, client="2001:db8:29:3::1"), _ws(stack, client="2001:db8:29:3::2")
    try:
        for ws in (a, b):
            assert '"snapshot"' in str(ws.recv(timeout=10))
        assert _closed_1008(_ws(stack, client="2001:db8:29:3:abcd::3"))   # TURF_WS_MAX_PER_IP=2 for the /64
        with _ws(stack, client="2001:db8:29:4::1") as other:                # another /64
            assert '"snapshot"' in str(other.recv(timeout=10))
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize(("origin", "taken"), [
    (None, True),                               # not a browser
    ("same", True),                             # the gateway's own pages
    ("https://turfwar.example", True),          # TURF_CORS_ORIGINS
    ("localhost", True),                        # a name of TURF_ALLOWED_HOSTS, the gateway's scheme and port
    ("http://localhost:1", False),              # another port of that name: another program on the machine
    ("https://evil.example", False),
    ("null", False),                            # a sandboxed frame, a file
])
def test_the_spectator_socket_takes_only_allowed_origins(stack: Stack, origin: str | None,
                                                                 taken: bool) -> None:
    """Before: any page of any site opened the socket (and counted against its visitors' address); and then any
    port or scheme of an allowed name."""
    if origin in ("same", "localhost"):
        origin = f"http://{'127.0.0.1' if origin == 'same' else 'localhost'}:{stack.http_port}"
    with _ws(stack, origin=origin, client=any_address()) as ws:
        if taken:
            assert '"snapshot"' in str(ws.recv(timeout=10))
        else:
            assert _closed_1008(ws)


def test_since_resends_are_throttled_per_address(stack: Stack, http: httpx.Client) -> None:
    """``resends_ip``=2/min: a third ``?since=`` within the minute gets a snapshot, which reads nothing back from
    the stream. Before: every reconnect with ``since`` read up to TURF_WS_RESEND_MAX entries."""
    org = organizer(http)
    with _ws(stack, client="203.0.113.28") as live:
        assert live.recv(timeout=10)
        assert org.post("/admin/announcements", {"title": "t", "body": "b"}).status_code == 201
        while (m := json.loads(live.recv(timeout=10)))["type"] != "announcement.published":
            pass
        seq = m["seq"]
    firsts = []
    for _ in range(3):
        with _ws(stack, f"?since={seq - 1}", client="203.0.113.29") as ws:
            firsts.append(json.loads(ws.recv(timeout=10))["type"])
    assert firsts == ["announcement.published", "announcement.published", "snapshot"], firsts
    with _ws(stack, f"?since={seq - 1}", client="203.0.113.30") as ws:   # another address: resent
        assert '"announcement.published"' in str(ws.recv(timeout=10))


def test_zz_a_pending_player_neither_claims_checks_nor_trades(http: httpx.Client) -> None:
    """Last in the module (it opens the game day). A pending player signed in is refused the game's moves with R8's
    ``not_eligible``: a claim and a trade proposal 409, a check answers ``allowed: false`` with that reason (API.md:
    a check's answer is 200; its fix joins no trail). These held before the sign-in limits too; with the refused push
    subscription above they are everything a pending player may not do, in one place."""
    move_clock(organizer(http), datetime.fromisoformat("2026-10-05T07:00:00-04:00"))
    pending = sign_in(http, *register(http)[1:])
    at = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
    check = pending.claim(40.744, -74.032, at, check=True)
    assert check.status_code == 200 and check.json()["reason"] == "not_eligible", check.text
    claim = pending.claim(40.744, -74.032, at)
    assert claim.status_code == 409 and claim.json()["reason"] == "not_eligible", claim.text
    trade = pending.post("/trades", {"offer_territory_id": "3401732250", "want_territory_id": "3401736000"})
    assert trade.status_code == 409 and trade.json()["reason"] == "not_eligible", trade.text
