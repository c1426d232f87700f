"""The walking skeleton end to end: a claim on a real town flows gateway → geo-verify → claims → scoring → spectator
websocket, on real NATS, PostgreSQL and Redis, with the manual clock."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.client import Player, move_clock, verified_player
from tests.support.spectator import Spectator
from turfwar.stack import Stack

# also run on the containers backend in CI (deploy/ci/containers-tests.sh)
pytestmark = pytest.mark.containers

# this stack's services start the plain way (python -m), as in a container, so that path stays tested
STACK_ENV = {"TURF_LAUNCH": "exec"}

HOBOKEN = (40.7440, -74.0320)        # Church Square Park, Hoboken
JERSEY_CITY = (40.7280, -74.0770)    # Lincoln Park area, Jersey City
HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"


def standing(lb: dict[str, Any], pid: str) -> dict[str, Any] | None:
    return next((s for s in lb["standings"] if s["player_id"] == pid), None)


def test_claim_flows_end_to_end(stack: Stack, http: httpx.Client, org: Player) -> None:
    a = verified_player(http, org, "Alice")
    b = verified_player(http, org, "Bob")
    t0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
    events = move_clock(org, t0)["events"]
    assert events[:3] == ["season_started:2026-10-05", "week_started:2026-10-05", "day_started:2026-10-05"]
    clock = http.get("/api/v1/clock").json()
    assert clock["open"] is True and clock["game_day"] == 1 and clock["season_state"] == "running"

    spectator = Spectator.of(stack.base_url)
    snap = spectator.wait_for(lambda m: m["type"] == "snapshot")
    assert "standings" in snap["leaderboard"]

    check = a.claim(*HOBOKEN, t0, check=True)
    assert check.status_code == 200, check.text
    assert check.json()["territory"]["name"] == "Hoboken" and check.json()["allowed"] is True

    r = a.claim(*HOBOKEN, t0)
    assert r.status_code == 201, r.text
    assert r.json() | {"claim_id": None} == {"claim_id": None, "territory_id": HOBOKEN_ID, "kind": "take",
                                             "owner_id": a.id, "progress": 1, "fortified": False,
                                             "claims_left_today": 0}

    r = b.claim(*HOBOKEN, t0)  # R10: A's claim locks Hoboken for the rest of the day
    assert r.status_code == 409 and r.json()["reason"] == "locked_today", r.text
    assert r.json()["message"]

    r = b.claim(*JERSEY_CITY, t0)
    assert r.status_code == 201 and r.json()["kind"] == "take" and r.json()["territory_id"] == JERSEY_CITY_ID

    for tid, owner in ((HOBOKEN_ID, a.id), (JERSEY_CITY_ID, b.id)):
        spectator.wait_for(lambda m, tid=tid, owner=owner: m["type"] == "territory.changed"
                           and m["territory_id"] == tid and m["owner_id"] == owner)
    upd = spectator.wait_for(lambda m: m["type"] == "score.updated" and m["territory_id"] == JERSEY_CITY_ID)
    # a delta: Bob's new standing, named, without rank (clients re-rank), not the whole leaderboard
    mine = next(c for c in upd["changes"] if c["player_id"] == b.id)
    assert (mine["base"], mine["outposts"]) == (1, 0) and mine["display_name"].startswith("p_")
    assert "rank" not in mine and "leaderboard" not in upd and set(upd["side_quests"]) == {
        "lord_of_the_seas", "hungry_hungry_hippo", "social_butterfly"}

    lb = http.get("/api/v1/leaderboard").json()
    assert standing(lb, a.id)["base"] == 1 and standing(lb, b.id)["base"] == 1
    assert standing(lb, a.id)["display_name"] and "@" not in json.dumps(lb)

    # the next game day A steals Jersey City, next to Hoboken: one cluster of two
    t1 = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
    assert "day_started:2026-10-06" in move_clock(org, t1)["events"]
    r = a.claim(*JERSEY_CITY, t1)
    assert r.status_code == 201 and r.json()["kind"] == "steal" and r.json()["owner_id"] == a.id, r.text
    spectator.wait_for(lambda m: m["type"] == "score.updated" and m["territory_id"] == JERSEY_CITY_ID
                       and a.id in m["players"])   # the read model caught up
    lb = http.get("/api/v1/leaderboard").json()
    assert standing(lb, a.id)["base"] == 2 and standing(lb, a.id)["rank"] == 1
    assert standing(lb, b.id)["base"] == 0
    spectator.wait_for(lambda m: m["type"] == "territory.changed" and m["territory_id"] == JERSEY_CITY_ID
                       and m["owner_id"] == a.id)
    board = http.get("/api/v1/board").json()
    props = {f["properties"]["id"]: f["properties"] for f in board["features"]}
    assert props[JERSEY_CITY_ID]["owner_id"] == a.id and props[HOBOKEN_ID]["owner_id"] == a.id
    spectator.ws.close()

    # a spectator who arrives now finds the recent stories with the snapshot, oldest first: the feed is not empty
    late = Spectator.of(stack.base_url)
    recent = late.wait_for(lambda m: m["type"] == "snapshot")["recent"]
    changes = [(m["territory_id"], m["owner_id"]) for m in recent if m["type"] == "territory.changed"]
    assert changes[-3:] == [(HOBOKEN_ID, a.id), (JERSEY_CITY_ID, b.id), (JERSEY_CITY_ID, a.id)]
    assert all(m["type"] != "score.updated" for m in recent)
    late.ws.close()
