"""R27 registration with a geocoder, R28 disqualification, and the organizer's player routes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest

from tests.support.client import (
    Player,
    leaderboard_ids,
    move_clock,
    organizer,
    register,
    sign_in,
    until,
    verified_player,
)
from tests.support.stackfix import running_stack
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY = (40.7440, -74.0320), (40.7280, -74.0770)
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    d = tmp_path_factory.mktemp("players")
    table = d / "addresses.csv"
    table.write_text("address,lat,lon\n"
                     "\"1 Hudson Pl, Hoboken, NJ\",40.7359,-74.0291\n"
                     "\"1 Main St, Philadelphia, PA\",39.9526,-75.1652\n"
                     # one address written two ways, geocoded to one point (as the census geocoder does)
                     "\"1 Washington St, Hoboken, NJ\",40.7370,-74.0298\n"
                     "\"1 Washington Street, Hoboken, NJ\",40.7370,-74.0298\n")
    with running_stack(d, TURF_GEOCODER=f"table:{table}") as s:
        yield s


def _register(http: httpx.Client, address: str, tag: str) -> httpx.Response:
    return http.post("/api/v1/players", json={"name": f"N {tag}", "email": f"{tag}@example.org", "discord": tag,
                                              "home_address": address, "password": "long enough pw"})


def test_r27_geocoded_inside_board_is_verified_outside_is_pending_not_in_board(http: httpx.Client,
                                                                               org: Player) -> None:
    r = _register(http, "1 Hudson Pl., Hoboken, NJ", "inside_one")
    assert r.status_code == 201 and r.json()["status"] == "verified"
    r = _register(http, "1 Main St, Philadelphia, PA", "outside_one")
    assert r.status_code == 201 and r.json()["status"] == "pending"
    me = sign_in(http, "outside_one@example.org", "long enough pw").get("/me").json()
    assert me["status"] == "pending" and me["status_reason"] == "not_in_board"
    r = _register(http, "99 Nowhere Rd", "unknown_one")
    me = sign_in(http, "unknown_one@example.org", "long enough pw").get("/me").json()
    assert (r.json()["status"], me["status_reason"]) == ("pending", "address_not_found")


def test_r27_same_address_is_flagged_not_refused(http: httpx.Client, org: Player) -> None:
    a = _register(http, "1 HUDSON PL, HOBOKEN NJ", "twin_a")
    b = _register(http, "1 Hudson Pl, Hoboken, NJ", "twin_b")
    assert a.status_code == b.status_code == 201
    players = {p["id"]: p for p in org.get("/admin/players").json()["players"]}
    assert b.json()["id"] in players[a.json()["id"]]["same_address_as"]
    assert a.json()["id"] in players[b.json()["id"]]["same_address_as"]


def test_r27_one_address_written_two_ways_is_one_household(http: httpx.Client, org: Player) -> None:
    """The duplicate check compared address strings: "1 Washington St" and "1 Washington Street" passed. Both
    geocoded, the points decide; flagged, not refused (R27)."""
    a = _register(http, "1 Washington St, Hoboken, NJ", "street_a")
    b = _register(http, "1 Washington Street, Hoboken, NJ", "street_b")
    assert (a.status_code, a.json()["status"], b.status_code, b.json()["status"]) == (201, "verified", 201, "verified")
    players = {p["id"]: p for p in org.get("/admin/players").json()["players"]}
    assert players[a.json()["id"]]["same_address_as"] == [b.json()["id"]]
    assert players[b.json()["id"]]["same_address_as"] == [a.json()["id"]]


def test_r7_1_a_first_fix_far_from_the_geocoded_home_is_flagged_for_the_organizer(
        http: httpx.Client, org: Player) -> None:
    """The gateway hands claims the home geocoded at registration (R27) with each fix, so the day's first fix far
    from it is evidence for the organizer (R7.1), never a refusal."""
    r = _register(http, "1 Hudson Pl, Hoboken, NJ", "far_home")
    assert r.json()["status"] == "verified"
    p = sign_in(http, "far_home@example.org", "long enough pw")
    now = datetime.fromisoformat(org.get("/clock").json()["now"])
    assert p.claim(41.7004, -73.9210, now, check=True).status_code == 200     # Poughkeepsie, ~108 km north
    (flag,) = [f for f in org.get("/admin/flags").json()["flags"] if f["player_id"] == p.id]
    assert flag["kind"] == "day_start_jump" and flag["evidence"]["home"] == {"lat": 40.7359, "lon": -74.0291}
    assert flag["evidence"]["last"] is None and flag["evidence"]["home_km"] > 100


def test_r28_disqualification_frees_territories_and_leaves_standings(http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    cheat_id, cheat_email, cheat_pw = register(http)
    assert org.post(f"/admin/players/{cheat_id}/verify", {"reason": "test"}).status_code == 200
    cheat = sign_in(http, cheat_email, cheat_pw)
    other = verified_player(http, org)
    assert cheat.claim(*HOBOKEN, T0).status_code == 201
    assert other.claim(*JERSEY_CITY, T0).status_code == 201
    assert leaderboard_ids(http, lambda ids: ids >= {cheat.id, other.id}) >= {cheat.id, other.id}
    r = org.post(f"/admin/players/{cheat.id}/disqualify", {"reason": "GPS spoofing"})
    assert r.status_code == 200 and r.json()["status"] == "disqualified"
    # claims frees the territories on player.disqualified, after the route has answered
    hob = until(lambda: http.get("/api/v1/territories/3401732250").json(), lambda t: t["owner_id"] is None)
    assert hob["owner_id"] is None and hob["progress"] == 0
    ids = leaderboard_ids(http, lambda ids: cheat.id not in ids and other.id in ids)
    assert cheat.id not in ids and other.id in ids
    # the disqualification ended the player's sessions
    r = cheat.claim(*HOBOKEN, T0)
    assert r.status_code == 401 and r.json()["reason"] == "unauthenticated", r.text
    # nor may they sign in again (before: 200 and a new token, with which checks and pushes answered)
    r = http.post("/api/v1/sessions", json={"email": cheat_email, "password": cheat_pw})
    assert r.status_code == 403 and r.json()["reason"] == "not_eligible", r.text
    assert http.get(f"/api/v1/players/{cheat.id}").json()["status"] == "disqualified"
    # a disqualification is final
    r = org.post(f"/admin/players/{cheat.id}/verify", {"reason": "oops"})
    assert r.status_code == 409


def test_reject_and_organizer_only(http: httpx.Client, org: Player) -> None:
    pid, email, pw = register(http)
    p = sign_in(http, email, pw)
    assert p.post(f"/admin/players/{pid}/verify", {"reason": "me"}).status_code == 403
    assert http.post(f"/api/v1/admin/players/{pid}/verify", json={"reason": "x"}).status_code == 401
    assert org.post(f"/admin/players/{pid}/reject", {"reason": "fake address"}).json()["status"] == "rejected"
    assert p.get("/me").json()["status"] == "rejected"
    assert org.post("/admin/players/nope/verify", {"reason": "x"}).status_code == 404
    assert organizer(http).get("/admin/players").status_code == 200
