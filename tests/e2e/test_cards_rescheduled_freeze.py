"""R15 regression: a Freeze that lapsed and is scheduled again for a later day must not break that day's start
(its activation event once reused the lapse's event id, so the claims service's day start failed forever)."""

from __future__ import annotations

import time
from datetime import datetime

import httpx

from tests.support.cards import claim, give, hand, play
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"


def test_r15_lapsed_freeze_rescheduled_activates_next_day(stack: Stack, http: httpx.Client, org: Player) -> None:
    a = verified_player(http, org)
    d1 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
    move_clock(org, d1)
    give(stack, a.id, "freeze")                           # the day's deal may hold a Freeze too
    assert claim(a, HOBOKEN, d1).status_code == 201
    assert play(a, "freeze", territory_id=HOBOKEN).status_code == 200
    card = next(c["id"] for c in hand(a) if c["state"] == "reserved")   # the oldest Freeze is played
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": HOBOKEN, "player_id": None,
                                        "reason": "lost it"})
    assert r.status_code == 201
    d2 = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
    move_clock(org, d2)                                   # A no longer owns Hoboken: the Freeze lapses (R15)
    assert {c["id"]: c["state"] for c in hand(a)}[card] == "ready"
    assert claim(a, JERSEY_CITY, d2).status_code == 201
    assert play(a, "freeze", territory_id=JERSEY_CITY).status_code == 200
    assert [c["id"] for c in hand(a) if c["state"] == "reserved"] == [card]   # the same card, again
    r = org.post("/admin/clock", {"now": "2026-10-07T06:00:00-04:00"})
    assert r.status_code == 200, r.text                   # the day start went through
    deadline = time.monotonic() + 10                      # consumed once the cards service hears of it
    while card in {c["id"] for c in hand(a)} and time.monotonic() < deadline:
        time.sleep(0.2)
    assert card not in {c["id"] for c in hand(a)}         # consumed: the Freeze is active today
    b = verified_player(http, org)
    r = claim(b, JERSEY_CITY, datetime.fromisoformat("2026-10-07T06:00:00-04:00"))
    assert r.status_code == 409 and r.json()["reason"] == "frozen"
