"""R31 on the real stack: the organizer makes the next season through the API while everything runs; the form is
refused field by field and saves nothing; players carry over and join with one action; GET /clock names the season
in force and the next one; after the season a claim is refused with the next season's opening."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from tests.support.client import Player, move_clock, verified_player

HOBOKEN = (40.7445, -74.0324)
FORM = {"id": "2027", "name": "2027", "zone": "America/New_York", "first_day": "2027-10-04",
        "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00"}
OPEN_2026 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
AFTER_2026 = datetime.fromisoformat("2026-10-26T09:00:00-04:00")


@pytest.fixture(scope="module")
def player(http: httpx.Client, org: Player) -> Player:
    return verified_player(http, org)


@pytest.fixture(scope="module")
def season_2027(org: Player) -> dict[str, object]:
    r = org.post("/admin/seasons", FORM)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_r31_the_organizer_makes_the_next_season_and_it_is_listed_with_its_seed_commitment(
        http: httpx.Client, season_2027: dict[str, object]) -> None:
    first = http.get("/api/v1/seasons/2026").json()
    assert (season_2027["state"], season_2027["first_opening"]) == ("upcoming", "2027-10-04T06:00:00-04:00")
    assert season_2027["prizes"] == first["prizes"] == [{"place": 1, "amount": "50.00"},
                                                        {"place": 2, "amount": "25.00"},
                                                        {"place": 3, "amount": "25.00"}]
    commitment = season_2027["seed_commitment"]
    assert isinstance(commitment, str) and len(commitment) == 64 and commitment != first["seed_commitment"]
    listed = http.get("/api/v1/seasons").json()["seasons"]
    assert [s["id"] for s in listed] == ["2027", "2026"]
    assert http.get("/api/v1/seasons/1999").json()["reason"] == "not_found"


@pytest.mark.parametrize(("change", "status", "reason", "names"), [
    ({"last_day": "2027-10-01"}, 422, "invalid_input", "last_day"),
    ({"close_time": "05:30"}, 422, "invalid_input", "close_time"),
    ({"zone": "Atlantis/Capital"}, 422, "invalid_input", "zone"),
    ({"first_day": "2026-10-20", "last_day": "2026-11-07"}, 409, "season_overlaps", "2026"),
    ({"first_day": "2026-09-01", "last_day": "2026-09-05"}, 422, "invalid_input", "already past"),
])
def test_r31_a_wrong_form_is_refused_naming_what_is_wrong_and_saves_nothing(
        http: httpx.Client, org: Player, change: dict[str, object], status: int, reason: str, names: str) -> None:
    r = org.post("/admin/seasons", FORM | {"id": "2028x"} | change)
    assert (r.status_code, r.json()["reason"]) == (status, reason), r.text
    assert names in r.json()["message"]
    assert http.get("/api/v1/seasons/2028x").status_code == 404


def test_r31_an_id_in_use_is_a_conflict_and_a_player_may_not_make_seasons(
        org: Player, player: Player, season_2027: dict[str, object]) -> None:
    assert org.post("/admin/seasons", FORM).json()["reason"] == "conflict"
    assert player.post("/admin/seasons", FORM | {"id": "mine"}).status_code == 403


def test_r31_accounts_carry_over_a_player_joins_the_next_season_with_one_action(
        player: Player, season_2027: dict[str, object]) -> None:
    assert player.get("/me").json()["seasons"] == ["2026"]     # registering joined the season in force
    r = player.post("/seasons/2027/join")
    assert r.json() == {"season_id": "2027", "status": "verified"}
    assert player.post("/seasons/2027/join").json() == r.json()   # a repeat changes nothing
    assert player.get("/me").json()["seasons"] == ["2026", "2027"]


def test_r31_the_clock_names_the_season_in_force_and_the_next_one(
        http: httpx.Client, season_2027: dict[str, object]) -> None:
    clock = http.get("/api/v1/clock").json()
    assert clock["season_id"] == "2026"
    assert clock["next_season"] == {"id": "2026", "name": "2026", "first_opening": "2026-10-05T06:00:00-04:00"}


def test_r31_a_season_can_be_changed_until_its_first_opening_and_not_after(
        org: Player, season_2027: dict[str, object]) -> None:
    r = org.patch("/admin/seasons/2027", {"last_day": "2027-10-30", "name": "Fall 2027"})
    assert (r.status_code, r.json()["last_day"], r.json()["name"]) == (200, "2027-10-30", "Fall 2027"), r.text
    assert org.patch("/admin/seasons/2027", {"close_time": "04:00"}).json()["reason"] == "invalid_input"
    move_clock(org, OPEN_2026)
    r = org.patch("/admin/seasons/2026", {"name": "Too late"})
    assert (r.status_code, r.json()["reason"]) == (409, "season_started")


def test_r31_after_the_season_a_claim_is_refused_with_the_next_seasons_opening(
        http: httpx.Client, org: Player, player: Player, season_2027: dict[str, object]) -> None:
    move_clock(org, AFTER_2026)
    clock = http.get("/api/v1/clock").json()
    assert (clock["season_state"], clock["season_id"], clock["next_season"]["id"]) == ("closed", "2026", "2027")
    r = player.claim(*HOBOKEN, AFTER_2026)
    assert (r.status_code, r.json()["reason"]) == (409, "season_not_started"), r.text
    assert r.json()["message"].startswith("The Fall 2027 season opens Monday 4 October at 06:00")
    check = player.claim(*HOBOKEN, AFTER_2026, check=True).json()
    assert (check["allowed"], check["reason"]) == (False, "season_not_started")
    assert player.post("/seasons/2026/join").json()["reason"] == "season_closed"
    assert http.get("/api/v1/seasons/2026/leaderboard").json() == http.get("/api/v1/leaderboard").json()
    assert http.get("/api/v1/seasons/2027/leaderboard").json()["reason"] == "season_not_started"
