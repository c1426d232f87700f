"""``GET /season``, the calendar the pages' "How to play" shows (R1–R3, R7, R7.1): this season's 18 game
days Monday–Saturday with their opening and closing instants in New York time, and the configured limits."""

from __future__ import annotations

import httpx

from tests.support.client import API


def test_the_season_route_gives_the_configured_calendar_and_limits(http: httpx.Client) -> None:
    r = http.get(f"{API}/season")
    assert r.status_code == 200, r.text
    s = r.json()
    assert (s["zone"], s["first_day"], s["last_day"], s["opens"], s["closes"]) == (
        "America/New_York", "2026-10-05", "2026-10-24", "06:00", "22:00")
    assert s["open_weekdays"] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    days = s["game_days"]
    assert [d["number"] for d in days] == list(range(1, 19))                 # R2: 18 game days
    assert days[5] == {"number": 6, "date": "2026-10-10", "opens": "2026-10-10T06:00:00-04:00",
                       "closes": "2026-10-10T22:00:00-04:00"}                # a Saturday
    assert days[6]["date"] == "2026-10-12"                                   # Sunday skipped
    assert s["limits"] == {"max_accuracy_m": 100.0, "max_fix_age_s": 120.0, "max_travel_kmh": 200.0}


def test_the_adjacency_graph_in_one_body_with_an_etag(http: httpx.Client) -> None:
    r = http.get(f"{API}/adjacency")
    assert r.status_code == 200, r.text
    graph = r.json()["neighbours"]
    hoboken = http.get(f"{API}/territories/3401732250").json()
    assert graph["3401732250"] == sorted(hoboken["neighbours"]) and len(graph) == len(http.get(f"{API}/board")
                                                                                         .json()["features"])
    assert all(a in graph[b] for a, ns in graph.items() for b in ns)     # R22: adjacency is symmetric
    again = http.get(f"{API}/adjacency", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
