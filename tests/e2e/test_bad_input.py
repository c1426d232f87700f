"""Bad input on claim and registration routes: 422/413 with a reason, never 500, nothing changes."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from tests.support.client import Player, verified_player

FIX_TIME = datetime.fromisoformat("2026-10-05T07:00:00-04:00").isoformat()
GOOD = {"lat": 40.744, "lon": -74.032, "accuracy_m": 5.0, "fix_time": FIX_TIME}


@pytest.fixture(scope="module")
def player(http: httpx.Client, org: Player) -> Player:
    return verified_player(http, org)


@pytest.mark.parametrize("body", [
    GOOD | {"lat": "forty"},
    GOOD | {"lat": "40.744"},
    GOOD | {"lon": None},
    GOOD | {"lat": 91.0},
    GOOD | {"lon": -180.5},
    GOOD | {"accuracy_m": -1},
    GOOD | {"fix_time": "yesterday"},
    GOOD | {"fix_time": "2026-10-05T07:00:00"},   # no offset: ambiguous time
    GOOD | {"fix_time": "9999-12-31T23:59:59-14:00"},   # year 10000 in UTC
    GOOD | {"fix_time": "0001-01-01T00:00:00+14:00"},
    {k: v for k, v in GOOD.items() if k != "lat"},
    [],
    "just a string",
])
def test_malformed_claim_is_invalid_input(http: httpx.Client, player: Player, body: object) -> None:
    before = http.get("/api/v1/board").json()
    for path in ("/claims", "/claims/check"):
        r = player.post(path, body)
        assert r.status_code == 422, (path, body, r.text)
        assert r.json()["reason"] == "invalid_input" and r.json()["message"]
    assert http.get("/api/v1/board").json() == before


@pytest.mark.parametrize("raw", ['{"lat": NaN, "lon": -74.03, "accuracy_m": 5, "fix_time": "' + FIX_TIME + '"}',
                                 '{"lat": Infinity, "lon": -74.03, "accuracy_m": 5, "fix_time": "' + FIX_TIME + '"}',
                                 '{"lat": 40.7, "lon": -74.03, ',
                                 "not json at all"])
def test_non_finite_and_broken_json(http: httpx.Client, player: Player, raw: str) -> None:
    r = http.post("/api/v1/claims", content=raw, headers=player.auth | {"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["reason"] == "invalid_input", r.text


def test_huge_body_is_413(http: httpx.Client, player: Player) -> None:
    r = http.post("/api/v1/claims", content=b'{"x": "' + b"a" * 70_000 + b'"}',
                  headers=player.auth | {"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["reason"] == "payload_too_large"
    r = http.post("/api/v1/players", content=b'{"name": "' + b"a" * 70_000 + b'"}',
                  headers={"Content-Type": "application/json"})
    assert r.status_code == 413


@pytest.mark.parametrize("patch", [
    {"email": "not-an-email"}, {"email": ""}, {"discord": "x"}, {"discord": "has space"},
    {"home_address": "   "}, {"name": ""}, {"password": "short"}, {"extra": 1},
])
def test_bad_registration(http: httpx.Client, patch: dict[str, object]) -> None:
    body = {"name": "N", "email": "ok@example.org", "discord": "okname", "home_address": "1 Main St",
            "password": "long enough pw"} | patch
    r = http.post("/api/v1/players", json=body)
    assert r.status_code == 422 and r.json()["reason"] == "invalid_input", r.text
    # nothing was created: the same email can still sign up... but not sign in with the bad attempt
    r = http.post("/api/v1/sessions", json={"email": "ok@example.org", "password": "long enough pw"})
    assert r.status_code == 401


def test_duplicate_registration_is_refused_case_insensitively(http: httpx.Client) -> None:
    body = {"name": "Dup", "email": "Dup.User@Example.org", "discord": "dup_user", "home_address": "2 Main St",
            "password": "long enough pw"}
    assert http.post("/api/v1/players", json=body).status_code == 201
    r = http.post("/api/v1/players", json=body | {"email": "dup.user@example.ORG", "discord": "other_one"})
    assert r.status_code == 409 and r.json()["reason"] == "email_taken"
    r = http.post("/api/v1/players", json=body | {"email": "new@example.org", "discord": "DUP_USER"})
    assert r.status_code == 409 and r.json()["reason"] == "discord_taken"


def test_auth_required(http: httpx.Client, player: Player) -> None:
    assert http.post("/api/v1/claims", json=GOOD).status_code == 401
    assert http.get("/api/v1/me", headers={"Authorization": "Bearer nope"}).json()["reason"] == "unauthenticated"
    r = player.post("/admin/clock", {"now": FIX_TIME})
    assert r.status_code == 403 and r.json()["reason"] == "forbidden"


def test_unknown_territory_is_404(http: httpx.Client) -> None:
    r = http.get("/api/v1/territories/0000000000")
    assert r.status_code == 404 and r.json()["reason"] == "not_found"


@pytest.mark.parametrize("patch", [{"name": "a\u0000b"}, {"home_address": "x\u0000"}])
def test_nul_bytes_are_invalid_input_not_an_outage(http: httpx.Client, patch: dict[str, object]) -> None:
    body = {"name": "N", "email": "nul@example.org", "discord": "nul_user", "home_address": "1 Main St",
            "password": "long enough pw"} | patch
    r = http.post("/api/v1/players", json=body)
    assert r.status_code == 422 and r.json()["reason"] == "invalid_input", r.text
    r = http.post("/api/v1/sessions", json={"email": "a\u0000@example.org", "password": "x"})
    assert r.status_code in (401, 422)
    assert http.get("/api/v1/players/%00").status_code in (404, 422)


def test_chunked_body_over_64k_is_413(http: httpx.Client, player: Player) -> None:
    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(20):
            yield b"x" * 4096

    r = http.post("/api/v1/claims", content=chunks(), headers=player.auth | {"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["reason"] == "payload_too_large"


@pytest.mark.parametrize("raw", [b"[" * 20000, b'{"lat": "\xff\xfe"}'])
def test_unparseable_bodies_are_422(http: httpx.Client, player: Player, raw: bytes) -> None:
    r = http.post("/api/v1/claims", content=raw, headers=player.auth | {"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["reason"] == "invalid_input", r.text


def test_numbers_are_not_times(http: httpx.Client, player: Player, org: Player) -> None:
    assert player.post("/claims", GOOD | {"fix_time": 1759662000}).status_code == 422
    assert org.post("/admin/clock", {"now": 12345}).status_code == 422


def test_check_answer_has_exactly_the_contract_fields(player: Player) -> None:
    r = player.post("/claims/check", GOOD)
    assert r.status_code == 200 and set(r.json()) == {"territory", "allowed", "reason", "message"}
    assert set(r.json()["territory"]) == {"id", "name", "owner_id"}


def test_a_far_future_fix_leaves_the_players_trail_readable(http: httpx.Client, org: Player) -> None:
    """The fix of year 10000 UTC was stored and every later check or claim of that player answered 503."""
    p = verified_player(http, org)
    assert p.post("/claims/check", GOOD | {"fix_time": "9999-12-31T23:59:59-14:00"}).status_code == 422
    r = p.post("/claims/check", GOOD)
    assert r.status_code == 200, r.text
