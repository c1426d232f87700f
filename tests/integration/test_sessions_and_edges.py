"""Sessions and the gateway's edges, on the real stack: sign-out and revoked tokens, sign-in throttling
per account *and* client (API.md), Host names (DNS rebinding), /metrics for loopback
only, trusted proxies, websocket caps, and a new organizer password ending the old sessions.

The stack believes X-Forwarded-For from 127.0.0.2 only (TURF_FORWARDED_ALLOW_IPS): a client bound to 127.0.0.2
plays a reverse proxy on another address and names each request's client; requests from 127.0.0.1 are direct."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from datetime import datetime

import httpx
import psycopg
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from tests.support.client import API, organizer, register, sign_in, verified_player
from tests.support.proxied import PROXY, sign_in_via
from tests.support.spectator import Spectator
from tests.support.stackfix import ORGANIZER, running_stack
from turfwar.stack import Stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("sessions"), TURF_RATE_LIMITS="sessions_email=3/60",
                       TURF_FORWARDED_ALLOW_IPS=PROXY, TURF_WS_MAX_PER_IP="2", TURF_WS_MAX_TOTAL="100",
                       ) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(stack: Stack) -> Iterator[httpx.Client]:
    """A client on 127.0.0.2, the trusted reverse proxy: its X-Forwarded-For names the client."""
    with httpx.Client(base_url=stack.base_url, timeout=60,
                      transport=httpx.HTTPTransport(local_address=PROXY)) as c:
        yield c



def test_sign_out_revokes_the_token(http: httpx.Client) -> None:
    _, email, pw = register(http)
    p, other = sign_in(http, email, pw), sign_in(http, email, pw)
    assert p.get("/me").status_code == 200
    r = http.delete(API + "/sessions", headers=p.auth)
    assert r.status_code == 204, r.text
    gone = p.get("/me")
    assert gone.status_code == 401 and gone.json()["reason"] == "unauthenticated"
    assert http.delete(API + "/sessions", headers=p.auth).status_code == 401   # signed out once
    assert other.get("/me").status_code == 200   # only that token: the player's other session goes on


def test_r28_a_disqualified_players_tokens_are_revoked(http: httpx.Client) -> None:
    org = organizer(http)
    pid, email, pw = register(http)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "t"}).status_code == 200
    phone, laptop = sign_in(http, email, pw), sign_in(http, email, pw)
    assert phone.get("/me").status_code == 200 and laptop.get("/me").status_code == 200
    r = org.post(f"/admin/players/{pid}/disqualify", {"reason": "spoofing"})
    assert r.status_code == 200, r.text
    for p in (phone, laptop):
        gone = p.get("/me")
        assert gone.status_code == 401 and gone.json()["reason"] == "unauthenticated"


@pytest.mark.parametrize("who", ["player", "organizer"])
def test_an_attacker_is_throttled_and_the_owner_still_signs_in_from_another_client(
        http: httpx.Client, proxy: httpx.Client, who: str) -> None:
    """API.md: a client that keeps failing gets 429 with Retry-After; nobody else's failures ever refuse the right
    password from another client. Before: the account's failures from anyone locked the owner out for a minute."""
    email, pw = ORGANIZER if who == "organizer" else register(http)[1:]
    attacker = f"203.0.113.{uuid.uuid4().int % 250 + 1}"
    codes = [sign_in_via(proxy, attacker, email, f"guess {i}").status_code for i in range(3)]
    assert codes == [401, 401, 401]
    r = sign_in_via(proxy, attacker, email, "guess 4")
    assert r.status_code == 429 and r.json()["reason"] == "rate_limited"
    assert 1 <= int(r.headers["Retry-After"]) <= 61
    assert sign_in_via(proxy, attacker, email, pw).status_code == 429   # the attacker, even with the right password
    # the owner, from elsewhere behind the proxy and directly
    r = sign_in_via(proxy, "198.51.100.20", email, pw)
    assert r.status_code == 200, r.text
    assert http.post(API + "/sessions", json={"email": email, "password": pw}).status_code == 200


def test_foreign_host_names_are_refused(http: httpx.Client, stack: Stack) -> None:
    """DNS rebinding: a page on evil.example re-resolved to 127.0.0.1 sends Host: evil.example → 400."""
    r = http.get(API + "/clock", headers={"Host": "evil.example"})
    assert r.status_code == 400 and r.json()["reason"] == "invalid_input"
    assert http.get(API + "/clock", headers={"Host": f"localhost:{stack.http_port}"}).status_code == 200
    assert http.get("/health", headers={"Host": "10.1.2.3:8000"}).status_code == 200   # orchestrators' probes
    # the websocket too, refused before it opens (403): a socket to the gateway, speaking for evil.example
    sock = socket.create_connection(("127.0.0.1", stack.http_port))
    with pytest.raises(InvalidHandshake):
        with connect(f"ws://evil.example:{stack.http_port}{API}/ws/scores", sock=sock, open_timeout=5) as ws:
            ws.recv(timeout=5)
    with socket.create_connection(("127.0.0.1", stack.http_port)) as raw:   # two Host headers: neither wins
        raw.sendall(f"GET {API}/clock HTTP/1.1\r\nHost: 127.0.0.1:{stack.http_port}\r\nHost: evil.example\r\n"
                    "Connection: close\r\n\r\n".encode())
        assert raw.recv(64).startswith(b"HTTP/1.1 400")


def test_metrics_answer_loopback_clients_only(http: httpx.Client, proxy: httpx.Client) -> None:
    assert http.get("/metrics").status_code == 200
    # X-Forwarded-For from an untrusted peer (127.0.0.1 is not the configured proxy) is ignored
    assert http.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 200
    assert proxy.get("/metrics").status_code == 200   # the proxy's own request: loopback
    r = proxy.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})   # an outsider through the proxy
    assert r.status_code == 404, r.text


def test_per_address_limits_count_the_client_behind_a_trusted_proxy(
        http: httpx.Client, proxy: httpx.Client) -> None:
    """Behind the proxy, two clients' failures are counted apart (the proxy's address is not everyone's); from an
    untrusted peer a forged X-Forwarded-For changes nothing."""
    _, email, pw = register(http)
    for i in range(3):   # three failures from three forged addresses: all one client, 127.0.0.1
        bad = http.post(API + "/sessions", json={"email": email, "password": "no"},
                        headers={"X-Forwarded-For": f"192.0.2.{i + 1}"})
        assert bad.status_code == 401
    r = http.post(API + "/sessions", json={"email": email, "password": pw},
                  headers={"X-Forwarded-For": "192.0.2.99"})
    assert r.status_code == 429, r.text
    assert sign_in_via(proxy, "192.0.2.99", email, pw).status_code == 200


def test_websockets_are_capped_per_client(stack: Stack) -> None:
    url = stack.base_url.replace("http", "ws") + API + "/ws/scores"
    a, b = connect(url, open_timeout=10), connect(url, open_timeout=10)
    try:
        for ws in (a, b):
            assert '"snapshot"' in str(ws.recv(timeout=10))
        third = connect(url, open_timeout=10)
        with pytest.raises(ConnectionClosed) as closed:
            third.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    finally:
        a.close()
        b.close()
    time.sleep(0.3)
    with connect(url, open_timeout=10) as again:   # a closed socket frees its place
        assert '"snapshot"' in str(again.recv(timeout=10))


def test_r28_the_private_note_never_reaches_the_public(stack: Stack, http: httpx.Client) -> None:
    """A disqualification's and a correction's ``reason`` is public (GET /corrections, the feed); the organizer's
    ``note`` is on GET /admin/corrections only. Before, there was no private field (422 for ``note``)."""
    org = organizer(http)
    cheat, other = verified_player(http, org), verified_player(http, org)
    watcher = Spectator.of(stack.base_url)
    try:
        r = org.post(f"/admin/players/{cheat.id}/disqualify",
                     {"reason": "Rule 11: location spoofing", "note": "SECRET-1 reported by a housemate"})
        assert r.status_code == 200, r.text
        r = org.post("/admin/corrections", {"action": "adjust_score", "player_id": other.id, "points": 5,
                                            "reason": "GPS outage in Hoboken", "note": "SECRET-2 phoned me"})
        assert r.status_code == 201, r.text
        seen = [watcher.wait_for(lambda m, pid=pid: m.get("type") == "correction.applied"
                                 and m.get("player_id") == pid) for pid in (cheat.id, other.id)]
    finally:
        watcher.ws.close()
    assert [m["reason"] for m in seen] == ["Rule 11: location spoofing", "GPS outage in Hoboken"]
    public = http.get(API + "/corrections")
    assert "Rule 11: location spoofing" in public.text and "GPS outage" in public.text
    assert "SECRET" not in public.text and "SECRET" not in json.dumps(seen)
    mine = {c["player_id"]: c for c in org.get("/admin/corrections").json()["corrections"]}
    assert mine[cheat.id]["note"] == "SECRET-1 reported by a housemate"
    assert mine[other.id]["note"] == "SECRET-2 phoned me"


def test_a_repeated_idempotency_key_with_another_claim_body_is_refused(http: httpx.Client) -> None:
    """A repeated key returns the first answer only to the same body; another body is 422 invalid_input, not the
    first answer replayed."""
    p = verified_player(http, organizer(http))
    at = datetime.fromisoformat("2026-10-05T05:00:00-04:00")   # the game is closed: a refusal is an answer too
    first = p.claim(40.744, -74.032, at, key="k-1")
    assert first.status_code == 409, first.text
    moved = p.claim(40.7357, -74.1724, at, key="k-1")
    assert (moved.status_code, moved.json()["reason"]) == (422, "invalid_input"), moved.text
    again = p.claim(40.744, -74.032, at, key="k-1")
    assert (again.status_code, again.json()) == (first.status_code, first.json())


def test_zz_a_new_organizer_password_ends_the_old_sessions(stack: Stack, http: httpx.Client) -> None:
    """Last in the module: the gateway restarts with another TURF_ORGANIZER_PASSWORD. Expired sessions are
    purged at the start too."""
    old = organizer(http)
    assert old.get("/admin/players").status_code == 200
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as db:
        db.execute("INSERT INTO gateway.sessions (token_hash, player_id, expires_at) VALUES "
                   "('expired-session', %s, now() - interval '1 hour')", (register(http)[0],))
    stack.kill("gateway", 15)
    stack.proc_env["gateway"] = {"TURF_ORGANIZER_PASSWORD": "a new organizer password"}
    try:
        stack.restart("gateway")
        r = old.get("/admin/players")
        assert r.status_code == 401 and r.json()["reason"] == "unauthenticated"
        new = sign_in(http, ORGANIZER[0], "a new organizer password")
        assert new.get("/admin/players").status_code == 200
        with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as db:
            assert db.execute("SELECT count(*) FROM gateway.sessions WHERE expires_at <= now()").fetchone() == (0,)
        stack.kill("gateway", 15)
    finally:
        stack.proc_env.pop("gateway", None)
    stack.restart("gateway")   # back to the fixture's password (another change)
    kept = sign_in(http, *ORGANIZER)
    stack.kill("gateway", 15)
    stack.restart("gateway")   # the same password again: the session stays
    assert kept.get("/admin/players").status_code == 200
