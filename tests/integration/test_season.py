"""R25/R26 through the public API: the season closes, ownership locks, final results with prizes."""

from __future__ import annotations

from datetime import datetime

import httpx

from tests.support.client import Player, leaderboard, move_clock, verified_player

HOBOKEN, JERSEY_CITY, NEWARK = (40.7440, -74.0320), (40.7280, -74.0770), (40.7357, -74.1724)


def test_r25_r26_season_close_locks_and_pays(http: httpx.Client, org: Player) -> None:
    r = http.get("/api/v1/results")
    assert r.status_code == 409 and r.json()["reason"] == "season_not_closed"
    a, b = verified_player(http, org, "Ann"), verified_player(http, org, "Ben")
    mon = datetime.fromisoformat("2026-10-05T08:00:00-04:00")
    move_clock(org, mon)
    assert a.claim(*HOBOKEN, mon).status_code == 201
    assert b.claim(*NEWARK, mon).status_code == 201
    sat = datetime.fromisoformat("2026-10-24T21:00:00-04:00")   # the last game day
    move_clock(org, sat)
    assert a.claim(*JERSEY_CITY, sat).status_code == 201
    live = leaderboard(http, lambda lb: any(s["player_id"] == a.id and s["base"] == 2 for s in lb["standings"]))
    move_clock(org, datetime.fromisoformat("2026-10-24T22:00:00-04:00"))   # the instant the season closes

    r = b.claim(*JERSEY_CITY, datetime.fromisoformat("2026-10-24T22:00:00-04:00"))
    assert r.status_code == 409 and r.json()["reason"] == "season_closed"
    res = http.get("/api/v1/results").json()
    assert res["final"] is True
    by = {s["player_id"]: s for s in res["standings"]}
    lv = {s["player_id"]: s for s in live["standings"]}
    for pid in (a.id, b.id):
        assert by[pid]["base"] == lv[pid]["base"] and by[pid]["bonuses"] == lv[pid]["bonuses"]
        assert by[pid]["total"] == by[pid]["base"] + by[pid]["bonuses"]
    assert by[a.id]["base"] == 2 and by[b.id]["base"] == 1
    ordered = sorted(res["standings"], key=lambda s: s["place"])
    assert ordered[0]["total"] > ordered[1]["total"]
    assert [s["prize"] for s in ordered] == ["50.00", "25.00"]
    assert "@" not in r.text + str(res)
