"""R14 War through the public API on the real stack: the 5-game-hour window across a Sunday, the attacker's free and
exclusive reclaim, Blockade against the reclaim (R16), the reclaim window against the season's close. The tests of
this module share one manual clock and run in order."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.cards import claim, give, hand, play, ready
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

# also run on the containers backend in CI (deploy/ci/containers-tests.sh)
pytestmark = pytest.mark.containers

HOBOKEN, JERSEY_CITY, NEWARK = "3401732250", "3401736000", "3401351000"
ELIZABETH, BAYONNE, PATERSON = "3403921000", "3401703580", "3403157000"


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


@pytest.fixture(scope="module")
def p(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    players = {name: verified_player(http, org, name) for name in
               ("V", "A", "C", "W", "B", "V2", "A2", "V3", "A3", "V4", "A4")}
    move_clock(org, at("2026-10-05T07:00:00-04:00"))
    for victim, tid in (("V", HOBOKEN), ("W", JERSEY_CITY), ("V2", NEWARK), ("V3", ELIZABETH),
                        ("V4", PATERSON)):
        r = claim(players[victim], tid, at("2026-10-05T07:00:00-04:00"))
        assert r.status_code == 201, r.text
    for victim in ("V", "W", "V2", "V3", "V4"):
        give(stack, players[victim].id, "war")
    return players


def owner(http: httpx.Client, tid: str) -> dict[str, Any]:
    r = http.get(f"/api/v1/territories/{tid}")
    assert r.status_code == 200, r.text
    return {k: r.json()[k] for k in ("owner_id", "progress", "fortified")}


def test_r14_war_at_exactly_5_game_hours_across_a_sunday(http: httpx.Client, org: Player,
                                                          p: dict[str, Player]) -> None:
    sat = at("2026-10-10T21:00:00-04:00")
    move_clock(org, sat)
    assert claim(p["A"], HOBOKEN, sat).json()["kind"] == "steal"
    assert claim(p["B"], JERSEY_CITY, sat).json()["kind"] == "steal"
    # 21:00–22:00 Saturday is 1 game hour, Sunday none, Monday 06:00–10:00 the other 4
    move_clock(org, at("2026-10-12T10:00:00-04:00"))
    wars_before = len(ready(p["V"], "war"))
    r = play(p["V"], "war", territory_id=HOBOKEN)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["type"] == "war" and body["state"] == "consumed"
    assert body["effect"] == {"territory_id": HOBOKEN, "reclaim_until": "2026-10-13T10:00:00-04:00"}
    assert len(ready(p["V"], "war")) == wars_before - 1
    # R14: back to V with exactly the fortification state before the steal (V's Monday claim: progress 1)
    assert owner(http, HOBOKEN) == {"owner_id": p["V"].id, "progress": 1, "fortified": False}
    # one moment later the window is over
    move_clock(org, at("2026-10-12T10:00:00.001-04:00"))
    before = hand(p["W"])
    r = play(p["W"], "war", territory_id=JERSEY_CITY)
    assert r.status_code == 409 and r.json()["reason"] == "war_window_closed", r.text
    assert hand(p["W"]) == before                                # R13: the card stays
    assert owner(http, JERSEY_CITY)["owner_id"] == p["B"].id    # nothing changed


def test_r14_reclaim_by_the_attacker_is_free_and_refused_to_everyone_else(
        stack: Stack, http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    now = at("2026-10-12T11:00:00-04:00")
    move_clock(org, now)
    r = claim(p["C"], HOBOKEN, now)
    assert r.status_code == 409 and r.json()["reason"] == "war_reclaim_window", r.text
    r = claim(p["V"], HOBOKEN, now)   # the owner too (R8.2)
    assert r.status_code == 409 and r.json()["reason"] == "war_reclaim_window", r.text
    assert p["A"].get("/me").json()["claims_left_today"] == 1
    r = claim(p["A"], HOBOKEN, now)
    assert r.status_code == 201, r.text
    assert r.json() | {"claim_id": None} == {"claim_id": None, "territory_id": HOBOKEN, "kind": "war_reclaim",
                                             "owner_id": p["A"].id, "progress": 1, "fortified": False,
                                             "claims_left_today": 1}   # R14: a reclaim spends no allowance
    assert p["A"].get("/me").json()["claims_left_today"] == 1   # no allowance spent
    # the reclaim opens no new War window: V's second War card is refused and kept
    (card,) = give(stack, p["V"].id, "war")
    r = play(p["V"], "war", territory_id=HOBOKEN)
    assert r.status_code == 409 and r.json()["reason"] == "war_not_applicable", r.text
    assert card in ready(p["V"], "war")
    # the reclaim window is used up: the next claims follow the normal rules (A's reclaim set no lock)
    r = claim(p["C"], HOBOKEN, now)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text


def test_r14_r16_blockade_blocks_a_war_reclaim(stack: Stack, http: httpx.Client, org: Player,
                                               p: dict[str, Player]) -> None:
    move_clock(org, at("2026-10-12T20:00:00-04:00"))
    assert claim(p["A2"], NEWARK, at("2026-10-12T20:00:00-04:00")).json()["kind"] == "steal"
    move_clock(org, at("2026-10-12T21:00:00-04:00"))
    r = play(p["V2"], "war", territory_id=NEWARK)
    assert r.status_code == 200, r.text
    assert r.json()["effect"]["reclaim_until"] == "2026-10-13T21:00:00-04:00"
    give(stack, p["V2"].id, "blockade")
    r = play(p["V2"], "blockade", rival_id=p["A2"].id)
    assert r.status_code == 200, r.text
    blockade = r.json()["card_id"]
    assert r.json() == {"card_id": blockade, "type": "blockade", "state": "reserved",
                        "effect": {"active_on": "2026-10-13"}}
    assert {"id": blockade, "type": "blockade", "state": "reserved"} in hand(p["V2"])
    tue = at("2026-10-13T07:00:00-04:00")
    move_clock(org, tue)
    r = claim(p["A2"], NEWARK, tue)
    assert r.status_code == 409 and r.json()["reason"] == "blockaded", r.text
    assert blockade not in [c["id"] for c in hand(p["V2"])]   # consumed at activation
    r = claim(p["C"], NEWARK, tue)
    assert r.status_code == 409 and r.json()["reason"] == "war_reclaim_window", r.text
    assert owner(http, NEWARK)["owner_id"] == p["V2"].id


def test_r14_war_refused_when_the_reclaim_window_would_pass_the_seasons_close(
        http: httpx.Client, org: Player, p: dict[str, Player]) -> None:
    fri = at("2026-10-23T21:00:00-04:00")
    move_clock(org, fri)
    assert claim(p["A4"], PATERSON, fri).json()["kind"] == "steal"
    # Saturday 06:00 + 16 game hours = 22:00, the season's close: it fits exactly
    move_clock(org, at("2026-10-24T06:00:00-04:00"))
    r = play(p["V4"], "war", territory_id=PATERSON)
    assert r.status_code == 200, r.text
    assert r.json()["effect"]["reclaim_until"] == "2026-10-24T22:00:00-04:00"
    sat = at("2026-10-24T06:30:00-04:00")
    move_clock(org, sat)
    assert claim(p["A3"], ELIZABETH, sat).json()["kind"] == "steal"
    before = hand(p["V3"])
    r = play(p["V3"], "war", territory_id=ELIZABETH)
    assert r.status_code == 409 and r.json()["reason"] == "war_window_past_season", r.text
    assert hand(p["V3"]) == before
    assert owner(http, ELIZABETH)["owner_id"] == p["A3"].id


def test_r14_war_not_applicable_and_bad_targets(stack: Stack, http: httpx.Client, p: dict[str, Player]) -> None:
    (card,) = give(stack, p["C"].id, "war")
    for tid, code in ((BAYONNE, "war_not_applicable"),      # unclaimed, never stolen
                      (ELIZABETH, "war_not_applicable"),    # stolen, but from V3, not from C
                      ("0000000000", "invalid_target")):    # no such territory
        r = play(p["C"], "war", territory_id=tid)
        assert r.status_code == 409 and r.json()["reason"] == code, (tid, r.text)
    assert card in ready(p["C"], "war")
    give(stack, p["A"].id, remove=("war",) * len(ready(p["A"], "war")))
    r = play(p["A"], "war", territory_id=HOBOKEN)   # A holds no War card
    assert r.status_code == 409 and r.json()["reason"] == "card_not_in_hand", r.text

