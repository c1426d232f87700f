"""Gateways answer sessions from memory for a few seconds, and forget them at once — in every gateway —
on sign-out, disqualification and verification. Two gateways on one stack; the cache is set to ten minutes, so a
refusal seen here within two seconds comes from the revocation, never from an entry running out."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest

from tests.support.cards import point
from tests.support.client import API, Player, move_clock, organizer, register, sign_in, until
from tests.support.stackfix import running_stack
from turfwar.embedded import free_port
from turfwar.stack import Stack

HOBOKEN = "3401732250"
MONDAY_0700 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("sessions21"), TURF_SESSION_CACHE_S="600") as s:
        port = free_port()
        s.proc_env["gateway#2"] = {"TURF_HTTP_PORT": str(port)}
        s.start_process("gateway#2")
        s.extra_urls = {"gateway#2": f"http://127.0.0.1:{port}"}   # type: ignore[attr-defined]
        _wait_up(f"http://127.0.0.1:{port}")
        yield s


def _wait_up(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError("the second gateway did not answer /health")


@pytest.fixture(scope="module")
def http2(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.extra_urls["gateway#2"], timeout=60) as c:  # type: ignore[attr-defined]
        yield c


def on(http: httpx.Client, p: Player) -> Player:
    """The same session, through another gateway."""
    return Player(http, p.token, p.id)


def test_a_sign_out_on_one_gateway_is_refused_at_once_by_the_other(
        http: httpx.Client, http2: httpx.Client) -> None:
    _, email, pw = register(http)
    p, other = sign_in(http, email, pw), sign_in(http, email, pw)
    assert on(http2, p).get("/me").status_code == 200        # now in the second gateway's cache
    assert on(http2, other).get("/me").status_code == 200
    assert p.delete("/sessions").status_code == 204           # signed out through the first
    gone = until(lambda: on(http2, p).get("/me"), lambda r: r.status_code == 401, timeout=2.0)
    assert gone.status_code == 401 and gone.json()["reason"] == "unauthenticated"
    assert p.get("/me").status_code == 401
    assert on(http2, other).get("/me").status_code == 200     # only that token: the other session goes on


def test_r28_a_disqualification_ends_the_cached_sessions_on_every_gateway(
        http: httpx.Client, http2: httpx.Client) -> None:
    org = organizer(http)
    pid, email, pw = register(http)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "t"}).status_code == 200
    p = sign_in(http, email, pw)
    assert p.get("/me").status_code == 200 and on(http2, p).get("/me").status_code == 200
    assert org.post(f"/admin/players/{pid}/disqualify", {"reason": "spoofing"}).status_code == 200
    for via in (p, on(http2, p)):
        gone = until(lambda v=via: v.get("/me"), lambda r: r.status_code == 401, timeout=2.0)
        assert gone.status_code == 401, gone.text


def test_r27_a_verification_is_seen_at_once_by_the_other_gateway(
        http: httpx.Client, http2: httpx.Client) -> None:
    """A pending player's check is refused for want of verification (R27); once the organizer verifies them through
    the first gateway, the second answers with the new status, not the cached one."""
    org = organizer(http)
    move_clock(org, MONDAY_0700)
    pid, email, pw = register(http)
    p2 = on(http2, sign_in(http, email, pw))
    before = p2.claim(*point(HOBOKEN), MONDAY_0700, check=True)
    assert before.status_code == 200 and before.json()["allowed"] is False, before.text
    refused_for = before.json()["reason"]
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "t"}).status_code == 200
    after = until(lambda: p2.claim(*point(HOBOKEN), MONDAY_0700, check=True),
                  lambda r: r.status_code == 200 and r.json()["allowed"] is True, timeout=2.0)
    assert after.json() == {"territory": after.json()["territory"], "allowed": True, "reason": None,
                            "message": None}, (refused_for, after.text)


def test_the_cache_answers_repeat_requests_without_the_database(stack: Stack, http: httpx.Client) -> None:
    """Sessions in the cache are answered even while PostgreSQL's session row is gone behind the gateway's back
    (deleted by hand here): within the cache's seconds the gateway does not ask the database again."""
    import psycopg

    _, email, pw = register(http)
    p = sign_in(http, email, pw)
    assert p.get("/players/" + p.id).status_code == 200
    assert p.http.get(API + "/me/hand", headers=p.auth).status_code in (200, 503)   # cached by this lookup
    with psycopg.connect(stack.env["TURF_DATABASE_URL"], autocommit=True) as c:
        c.execute("DELETE FROM gateway.sessions WHERE player_id = %s", (p.id,))
    assert p.http.get(API + "/me/hand", headers=p.auth).status_code != 401
