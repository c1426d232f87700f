"""GET /me/territories (the play page's countdowns) on the real stack: a territory's streak and lock after a take, the
next day's streak, the victim's War deadline after a steal counted in game hours (R4, R14), the attacker's reclaim
window after the War, and the organizer's empty answer. The tests share one manual clock and run in order."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.cards import claim, give, play
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

HOBOKEN = "3401732250"


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


@pytest.fixture(scope="module")
def p(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    return {name: verified_player(http, org, name) for name in ("V", "A")}


def mine(pl: Player) -> dict[str, Any]:
    r = pl.get("/me/territories")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_unauthenticated_is_refused(http: httpx.Client) -> None:
    r = http.get("/api/v1/me/territories")
    assert r.status_code == 401 and r.json()["reason"] == "unauthenticated", r.text


def test_a_take_shows_progress_claimed_today_and_the_lock(org: Player, p: dict[str, Player]) -> None:
    now = at("2026-10-05T07:00:00-04:00")
    move_clock(org, now)
    assert mine(p["V"]) == {"now": "2026-10-05T07:00:00-04:00", "territories": [], "war_deadlines": [],
                            "reclaim_windows": [], "mulligan_claims": []}
    r = claim(p["V"], HOBOKEN, now)
    assert r.status_code == 201
    # R19: today's claim is what a Mulligan may undo
    assert mine(p["V"])["mulligan_claims"] == [{"claim_id": r.json()["claim_id"], "territory_id": HOBOKEN,
                                                "name": "Hoboken", "kind": "take", "at": "2026-10-05T07:00:00-04:00"}]
    assert mine(p["V"])["territories"] == [{
        "id": HOBOKEN, "name": "Hoboken", "progress": 1, "fortified": False, "streak": "claimed",
        "claim_day": "2026-10-05", "claim_opens": "2026-10-05T06:00:00-04:00",
        "claim_closes": "2026-10-05T22:00:00-04:00", "next_progress": None, "claimed_today": True,
        "keeps_streak_today": False, "frozen_today": False, "locked_today": True, "reclaim_holder_id": None,
        "reclaim_until": None, "war_by": None, "war_until": None}]


def test_after_the_close_the_streak_looks_at_the_next_game_day(org: Player, p: dict[str, Player]) -> None:
    move_clock(org, at("2026-10-05T22:00:00-04:00"))
    (t,) = mine(p["V"])["territories"]
    assert {k: t[k] for k in ("streak", "claim_day", "claim_opens", "next_progress", "keeps_streak_today")} == {
        "streak": "keeps", "claim_day": "2026-10-06", "claim_opens": "2026-10-06T06:00:00-04:00",
        "next_progress": 2, "keeps_streak_today": False}


def test_a_steal_gives_the_victim_a_war_deadline_in_game_hours(org: Player, p: dict[str, Player]) -> None:
    now = at("2026-10-06T20:00:00-04:00")
    move_clock(org, now)
    assert claim(p["A"], HOBOKEN, now).json()["kind"] == "steal"
    v = mine(p["V"])
    assert v["territories"] == []
    # R4: 2 game hours tonight (20:00–22:00) and 3 tomorrow (06:00–09:00)
    assert v["war_deadlines"] == [{"territory_id": HOBOKEN, "name": "Hoboken", "by": p["A"].id,
                                   "stolen_at": "2026-10-06T20:00:00-04:00",
                                   "war_until": "2026-10-07T09:00:00-04:00", "game_hours_left": 5.0}]
    (t,) = mine(p["A"])["territories"]
    assert (t["war_by"], t["war_until"], t["streak"]) == (p["V"].id, "2026-10-07T09:00:00-04:00", "claimed")
    move_clock(org, at("2026-10-07T07:00:00-04:00"))   # the night does not count
    assert mine(p["V"])["war_deadlines"][0]["game_hours_left"] == 2.0


def test_the_war_opens_the_attackers_reclaim_window(stack: Stack, p: dict[str, Player]) -> None:
    give(stack, p["V"].id, "war")
    r = play(p["V"], "war", territory_id=HOBOKEN)
    assert r.status_code == 200, r.text
    until = r.json()["effect"]["reclaim_until"]
    assert until == "2026-10-08T07:00:00-04:00"
    v = mine(p["V"])
    assert v["war_deadlines"] == [] and v["mulligan_claims"] == []   # R19: a War gives no claim to undo
    (t,) = v["territories"]
    assert (t["progress"], t["reclaim_holder_id"], t["reclaim_until"]) == (1, p["A"].id, until)
    a = mine(p["A"])
    assert a["territories"] == []
    assert a["reclaim_windows"] == [{"territory_id": HOBOKEN, "name": "Hoboken", "owner_id": p["V"].id,
                                     "until": until, "game_hours_left": 16.0}]


def test_the_organizer_owns_nothing(org: Player) -> None:
    o = org.get("/me/territories").json()
    assert (o["territories"], o["war_deadlines"], o["reclaim_windows"], o["mulligan_claims"]) == ([], [], [], [])
