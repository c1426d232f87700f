"""R31 end to end on a stack of its own (it moves the manual clock to 2027): 2026 is played a little and closes; the
organizer makes 2027 through the API; a returning player joins it, another does not; at 2027's first opening the
board is empty (the returning player's claim of the town they held in 2026 is a first claim), the 2027 leaderboard
has no 2026 points, 2026's results and board answer as at its end, and the player who did not join is refused
``not_joined`` and is absent from the 2027 leaderboard."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.client import Player, move_clock, until, verified_player

API = "/api/v1"
HOBOKEN, NEWARK = (40.7440, -74.0320), (40.7357, -74.1724)
MON_2026 = datetime.fromisoformat("2026-10-05T08:00:00-04:00")
AFTER_2026 = datetime.fromisoformat("2026-10-26T09:00:00-04:00")
OPEN_2027 = datetime.fromisoformat("2027-10-04T06:00:00-04:00")
IN_2027 = datetime.fromisoformat("2027-10-04T07:00:00-04:00")
FORM = {"id": "2027", "name": "2027", "zone": "America/New_York", "first_day": "2027-10-04",
        "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00", "close_time": "22:00"}


def totals(board: dict[str, Any]) -> dict[str, int]:
    return {s["player_id"]: s["total"] for s in board["standings"]}


@pytest.fixture(scope="module")
def played(http: httpx.Client, org: Player) -> dict[str, Any]:
    """2026 played and closed, 2027 made, Ann joined it and Ben did not; what 2026 showed at its end."""
    ann, ben = verified_player(http, org, "Ann"), verified_player(http, org, "Ben")
    move_clock(org, MON_2026)
    first = ann.claim(*HOBOKEN, MON_2026)
    assert first.status_code == 201, first.text
    assert ben.claim(*NEWARK, MON_2026).status_code == 201
    move_clock(org, AFTER_2026)
    results = until(lambda: http.get(API + "/results").json(), lambda r: len(r.get("standings", [])) == 2)
    board = until(lambda: http.get(API + "/leaderboard").json(),
                  lambda b: set(totals(b)) == {ann.id, ben.id} and all(totals(b).values()))
    # what 2026 shows at its end: the replay and Ann's record, read again under /seasons/2026 once 2027 runs
    replay = until(lambda: http.get(API + "/replay").json(), lambda r: len(r.get("events", [])) >= 2)
    record = http.get(API + f"/players/{ann.id}/history").json()
    made = org.post("/admin/seasons", FORM)
    assert made.status_code == 201, made.text
    joined = ann.post("/seasons/2027/join")
    assert joined.json() == {"season_id": "2027", "status": "verified"}, joined.text
    assert ann.get("/me").json()["seasons"] == ["2026", "2027"]   # the session reads them again after the join
    assert ben.get("/me").json()["seasons"] == ["2026"]
    move_clock(org, IN_2027)
    town = first.json()["territory_id"]
    # 2027's board as it opened, then Ann's claim of the town she held in 2026 (each test reads what it needs, so
    # none depends on another having run first)
    opened = {"owner": http.get(API + f"/territories/{town}").json()["owner_id"],
              "history": http.get(API + f"/territories/{town}/history").json()["history"]}
    return {"ann": ann, "ben": ben, "town": town, "results": results, "board": board, "opened": opened,
            "replay": replay, "record": record,
            "claim_2027": ann.claim(*HOBOKEN, IN_2027)}


def test_r31_the_clock_names_2027_as_the_season_in_force_at_its_first_opening(
        http: httpx.Client, played: dict[str, Any]) -> None:
    clock = http.get(API + "/clock").json()
    assert (clock["season_id"], clock["season_state"], clock["next_season"]) == ("2027", "running", None)


def test_r31_a_player_who_did_not_join_is_refused_not_joined(played: dict[str, Any]) -> None:
    ben: Player = played["ben"]
    r = ben.claim(*NEWARK, IN_2027)
    assert (r.status_code, r.json()["reason"]) == (409, "not_joined"), r.text
    assert "2027" in r.json()["message"]
    check = ben.claim(*NEWARK, IN_2027, check=True).json()
    assert (check["allowed"], check["reason"]) == (False, "not_joined")
    card = ben.post("/cards/play", {"type": "freeze", "territory_id": played["town"]})
    assert card.json()["reason"] == "not_joined", card.text


def test_r31_a_players_footprint_is_of_the_season_in_force(http: httpx.Client, played: dict[str, Any]) -> None:
    ben: Player = played["ben"]
    # Ben held Newark in 2026 and plays no part in 2027: his 2027 footprint is empty
    assert http.get(API + f"/players/{ben.id}/footprint").json()["towns"] == []


def test_r31_2026s_results_and_board_answer_as_at_its_end(http: httpx.Client, played: dict[str, Any]) -> None:
    assert http.get(API + "/seasons/2026/results").json() == played["results"]
    assert http.get(API + "/seasons/2026/leaderboard").json() == played["board"]
    assert http.get(API + "/seasons/2026/replay").json() == played["replay"]
    assert http.get(API + f"/seasons/2026/players/{played['ann'].id}/history").json() == played["record"]
    assert http.get(API + "/seasons/1999/results").status_code == 404
    history = until(lambda: http.get(API + f"/seasons/2026/territories/{played['town']}/history").json(),
                    lambda h: h.get("history"))["history"]
    assert [h["player_id"] for h in history] == [played["ann"].id]


def test_r31_the_2027_board_is_empty_and_a_returning_players_claim_is_a_first_claim(played: dict[str, Any]) -> None:
    assert played["opened"] == {"owner": None, "history": []}   # no 2026 owner; 2027's own history
    r = played["claim_2027"]
    assert r.status_code == 201, r.text
    assert (r.json()["territory_id"], r.json()["kind"], r.json()["progress"]) == (played["town"], "take", 1)


def test_r31_the_2027_leaderboard_has_no_2026_points_and_not_the_player_who_did_not_join(
        http: httpx.Client, played: dict[str, Any]) -> None:
    ann, ben = played["ann"], played["ben"]
    board = until(lambda: http.get(API + "/leaderboard").json(), lambda b: ann.id in totals(b))
    assert ben.id not in totals(board)
    # 2026 had Ben leading two side quests and Ann one: 2027 holds only Ann's morning (one town, every quest hers)
    assert [(s["player_id"], s["base"]) for s in board["standings"]] == [(ann.id, 1)]
    assert {q: v["leaders"] for q, v in board["side_quests"].items()} == {
        q: [ann.id] for q in played["board"]["side_quests"]}
    assert http.get(API + "/seasons/2027/leaderboard").json()["standings"] == board["standings"]
