"""R23 through the public API: a steal in the middle splits a cluster, and a War (R14) restores it."""

from __future__ import annotations

import time
from datetime import datetime

import httpx

from tests.support.cards import claim, give, play
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY, BAYONNE = "3401732250", "3401736000", "3401703580"   # a chain: JC touches both


def score(http: httpx.Client, pid: str, want: tuple[int, int] | None = None) -> tuple[int, int]:
    """(base, outposts) of a player; with ``want``, wait up to 10 s for the read model to catch up."""
    deadline = time.monotonic() + 10
    while True:
        s = next(s for s in http.get("/api/v1/leaderboard").json()["standings"] if s["player_id"] == pid)
        got = (s["base"], s["outposts"])
        if want is None or got == want or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def test_r23_steal_in_the_middle_splits_the_cluster_and_war_restores_it(stack: Stack, http: httpx.Client,
                                                                        org: Player) -> None:
    v, s = verified_player(http, org, "Vic"), verified_player(http, org, "Sam")
    for tid in (HOBOKEN, JERSEY_CITY, BAYONNE):
        r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": tid, "player_id": v.id,
                                            "reason": "test set-up"})
        assert r.status_code == 201, r.text
    assert score(http, v.id, (3, 0)) == (3, 0)
    t = datetime.fromisoformat("2026-10-05T09:00:00-04:00")
    move_clock(org, t)
    r = claim(s, JERSEY_CITY, t)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    assert score(http, v.id, (1, 1)) == (1, 1)         # Hoboken and Bayonne no longer touch
    assert score(http, s.id, (1, 0)) == (1, 0)
    give(stack, v.id, "war")
    r = play(v, "war", territory_id=JERSEY_CITY)
    assert r.status_code == 200, r.text
    assert score(http, v.id, (3, 0)) == (3, 0)         # the cluster is whole again
    assert score(http, s.id, (0, 0)) == (0, 0)
