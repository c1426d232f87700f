"""R25/R28 (amended) end to end under the manual clock: the final results list every verified player (one who owns
nothing at 0, winning no prize), and a correction after the close — here the winner's disqualification — recomputes
them (the winner gone, the prizes moved up) and publishes ``season.final_results`` again."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from tests.support.client import Player, move_clock, until, verified_player
from tests.support.spectator import Spectator
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY, NEWARK = (40.7440, -74.0320), (40.7280, -74.0770), (40.7357, -74.1724)
MON = datetime.fromisoformat("2026-10-05T08:00:00-04:00")
TUE = datetime.fromisoformat("2026-10-06T08:00:00-04:00")
CLOSE = datetime.fromisoformat("2026-10-24T22:00:00-04:00")


def places(res: dict[str, Any]) -> dict[str, tuple[int, int, str]]:
    return {s["player_id"]: (s["place"], s["total"], s["prize"]) for s in res["standings"]}


def test_r25_r28_disqualifying_the_winner_after_the_close_recomputes_and_republishes_the_results(
        http: httpx.Client, org: Player, stack: Stack) -> None:
    a, b, z = (verified_player(http, org, n) for n in ("Ann", "Ben", "Zed"))
    move_clock(org, MON)
    assert a.claim(*HOBOKEN, MON).status_code == 201
    assert b.claim(*NEWARK, MON).status_code == 201
    move_clock(org, TUE)
    assert a.claim(*JERSEY_CITY, TUE).status_code == 201
    spectator = Spectator.of(stack.base_url)
    spectator.wait_for(lambda m: m["type"] == "snapshot")
    move_clock(org, CLOSE)

    res = until(lambda: http.get("/api/v1/results").json(), lambda r: len(r.get("standings", [])) == 3)
    first = places(res)
    assert set(first) == {a.id, b.id, z.id} and org.id not in first
    # R25: Zed is verified and owns nothing: in the results at 0, third (a paid place under R26) but no prize
    assert first[z.id] == (3, 0, "0.00")
    winner, runner_up = sorted((a.id, b.id), key=lambda p: first[p][0])
    assert (first[winner][0], first[winner][2]) == (1, "50.00")
    assert (first[runner_up][0], first[runner_up][2]) == (2, "25.00")
    spectator.wait_for(lambda m: m["type"] == "season.final_results"
                       and {s["player_id"] for s in m["results"]["standings"]} == set(first))

    r = org.post(f"/admin/players/{winner}/disqualify", {"reason": "GPS spoofing found after the close"})
    assert r.status_code == 200, r.text
    # the results are a read model: they follow the disqualification without the route waiting for them
    res = until(lambda: http.get("/api/v1/results").json(),
                lambda r: winner not in places(r) and places(r).get(runner_up, (0,))[0] == 1)
    after = places(res)
    assert winner not in after
    assert (after[runner_up][0], after[runner_up][2]) == (1, "50.00")   # the prize moved up
    assert after[z.id][0] == 2 and after[z.id][1:] == (0, "0.00")        # a total of 0 still wins nothing
    # and season.final_results was published again, without the disqualified winner
    again = spectator.wait_for(lambda m: m["type"] == "season.final_results"
                               and winner not in {s["player_id"] for s in m["results"]["standings"]})
    assert {s["player_id"]: s["prize"] for s in again["results"]["standings"]}[runner_up] == "50.00"
    lb = http.get("/api/v1/leaderboard").json()
    assert winner not in {s["player_id"] for s in lb["standings"]}
