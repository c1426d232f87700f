from __future__ import annotations

import hashlib
from datetime import datetime

import httpx

from tests.support.cards import give, hand, play
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def test_smoke(stack: Stack, http: httpx.Client, org: Player) -> None:
    a = verified_player(http, org)
    # R12.1 (amended): the commitment is public from the first start on, before the season and the first draw
    assert http.get("/api/v1/clock").json()["seed_commitment"] == hashlib.sha256(
        stack.env["TURF_SEED"].encode()).hexdigest()
    move_clock(org, T0)
    assert len(hand(a)) == 3, hand(a)
    assert len(http.get("/api/v1/clock").json()["seed_commitment"]) == 64
    (jid,) = give(stack, a.id, "joker")
    r = play(a, "joker", mode="random")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["type"] == "joker" and body["state"] == "consumed" and body["effect"]["territory_id"]
    assert jid not in [c["id"] for c in hand(a)] or body["card_id"] != jid
