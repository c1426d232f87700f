"""The authorization matrix: every route × {anonymous, player, another player, organizer}."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from tests.support.client import API, Player, move_clock, register, sign_in
from tests.support.stackfix import ORGANIZER


@pytest.fixture(scope="module")
def player(http: httpx.Client) -> Player:
    _, email, pw = register(http)
    return sign_in(http, email, pw)


ROUTES = [  # method, path, body; who may: "any" (public), "self" (signed in), "player" (signed in, not the
    # organizer, who is not a player: R27), "org"
    ("GET", "/clock", None, "any"), ("GET", "/board", None, "any"), ("GET", "/leaderboard", None, "any"),
    ("GET", "/corrections", None, "any"), ("GET", "/territories/3401732250", None, "any"),
    ("GET", "/me", None, "self"), ("GET", "/me/hand", None, "self"), ("GET", "/trades", None, "player"),
    ("POST", "/claims/check", {"lat": 40.744, "lon": -74.032, "accuracy_m": 5,
                               "fix_time": "2026-10-05T07:00:00-04:00"}, "self"),
    ("GET", "/admin/flags", None, "org"), ("GET", "/admin/players", None, "org"),
    ("GET", "/admin/corrections", None, "org"),
    ("POST", "/admin/clock", {"now": "2026-10-05T05:30:00-04:00"}, "org"),
]


@pytest.mark.parametrize("method,path,body,who", ROUTES)
def test_authorization_matrix(http: httpx.Client, player: Player, method: str, path: str, body: object,
                              who: str) -> None:
    anon = http.request(method, API + path, json=body)
    as_player = http.request(method, API + path, json=body, headers=player.auth)
    org = sign_in(http, *ORGANIZER)
    as_org = http.request(method, API + path, json=body, headers=org.auth)
    expect_anon = {"any": 200, "self": 401, "player": 401, "org": 401}[who]
    expect_player = {"any": 200, "self": 200, "player": 200, "org": 403}[who]
    assert (anon.status_code, as_player.status_code) == (expect_anon, expect_player), (anon.text, as_player.text)
    assert as_org.status_code == (403 if who == "player" else 200), as_org.text
    if anon.status_code >= 400:
        assert anon.json()["reason"] == "unauthenticated"


def test_players_cannot_act_on_each_others_cards_or_trades(http: httpx.Client) -> None:
    org = sign_in(http, *ORGANIZER)
    a, b = _verified(http, org), _verified(http, org)
    move_clock(org, datetime.fromisoformat("2026-10-05T07:00:00-04:00"))   # hands are dealt at day start
    hand = a.get("/me/hand").json()["cards"]
    assert len(hand) == 3
    for c in hand:
        r = b.http.delete(f"{API}/cards/{c['id']}/schedule", headers=b.auth)
        assert r.status_code == 404 and r.json()["reason"] == "not_found"
    r = b.post("/trades/does-not-exist/accept")
    assert r.status_code == 404, r.text
    r = b.post("/cards/play", {"type": "mulligan", "claim_id": "someone-elses"})
    assert r.status_code in (404, 409) and r.json()["reason"] != "ok"


def _verified(http: httpx.Client, org: Player) -> Player:
    pid, email, pw = register(http)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "t"}).status_code == 200
    return sign_in(http, email, pw)


def test_a_signed_out_token_is_refused_by_every_route_that_needs_one(http: httpx.Client) -> None:
    """DELETE /sessions: 401 without a token; 204 with one, which every authenticated route then
    refuses 401 ``unauthenticated``. Before, there was no sign-out (405) and a token lived until it expired."""
    _, email, pw = register(http)
    p = sign_in(http, email, pw)
    assert http.delete(API + "/sessions").status_code == 401
    assert http.delete(API + "/sessions", headers=p.auth).status_code == 204
    for method, path, body, who in ROUTES:
        if who != "any":
            r = http.request(method, API + path, json=body, headers=p.auth)
            assert (r.status_code, r.json()["reason"]) == (401, "unauthenticated"), (path, r.text)
