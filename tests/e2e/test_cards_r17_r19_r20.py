"""R17 Double Trouble, R19 Mulligan and R20 Joker through the public API on the real stack. The tests share one
manual clock and run in order."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.bus import stream_events
from tests.support.cards import claim, give, hand, play, ready
from tests.support.client import Player, move_clock, verified_player
from turf_common.contracts import subjects
from turfwar.stack import Stack

PASSAIC, CLIFTON, MONTCLAIR, ELIZABETH, KEARNY = "3403156550", "3403113690", "3401347500", "3403921000", "3401736510"
HOBOKEN, JERSEY_CITY, UNION_CITY, WEEHAWKEN = "3401732250", "3401736000", "3401774630", "3401777930"
MORRISTOWN, MORRIS = "3402748300", "3402748090"
STATEN_ISLAND, EDISON, SECAUCUS = "3608570915", "3402320230", "3401766570"
MON, TUE, WED, THU = (datetime.fromisoformat(f"2026-10-{d:02d}T07:00:00-04:00") for d in (5, 6, 7, 8))


@pytest.fixture(scope="module")
def p(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Player]:
    names = ("A", "B", "V", "C", "J1", "J2", "J3", "J4", "N1", "N2", "N3")
    players = {n: verified_player(http, org, n) for n in names}
    move_clock(org, MON)
    for name, tid in (("B", ELIZABETH), ("V", KEARNY), ("J2", STATEN_ISLAND), ("N1", JERSEY_CITY),
                      ("N2", UNION_CITY), ("N3", WEEHAWKEN), ("J3", HOBOKEN)):
        r = claim(players[name], tid, MON)
        assert r.status_code == 201, r.text
    return players


def code(r: httpx.Response) -> tuple[int, str | None]:
    return r.status_code, r.json().get("reason")


def terr(http: httpx.Client, tid: str) -> dict[str, Any]:
    r = http.get(f"/api/v1/territories/{tid}")
    return {k: r.json()[k] for k in ("owner_id", "progress", "fortified")}


def left(pl: Player) -> int:
    return int(pl.get("/me").json()["claims_left_today"])


# ---- R17 ---------------------------------------------------------------------------------------------
def test_r17_double_trouble_twice_in_a_day_is_refused(stack: Stack, p: dict[str, Player]) -> None:
    a = p["A"]
    give(stack, a.id, "double_trouble", "double_trouble")
    assert left(a) == 1
    r = play(a, "double_trouble")
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "consumed" and r.json()["effect"] == {"claims_left_today": 2}
    before = hand(a)
    assert code(play(a, "double_trouble")) == (409, "already_played_today")
    assert hand(a) == before                      # R13: the second card stays
    assert claim(a, PASSAIC, MON).status_code == 201
    assert claim(a, CLIFTON, MON).status_code == 201
    assert code(claim(a, MONTCLAIR, MON)) == (409, "no_claims_left")


# ---- R20 ---------------------------------------------------------------------------------------------
def test_r20_joker_cluster_edge_with_an_empty_edge_keeps_the_card(stack: Stack, p: dict[str, Player]) -> None:
    give(stack, p["J2"].id, "joker")                 # J2 owns only Staten Island: no land neighbour at all
    before = hand(p["J2"])
    assert code(play(p["J2"], "joker", mode="cluster_edge")) == (409, "no_eligible_territory")
    assert hand(p["J2"]) == before


def test_r20_joker_for_a_player_owning_nothing_uses_the_whole_board(stack: Stack, http: httpx.Client,
                                                                    p: dict[str, Player]) -> None:
    j1 = p["J1"]
    give(stack, j1.id, "joker")
    jokers = len(ready(j1, "joker"))
    r = play(j1, "joker", mode="cluster_edge")
    assert r.status_code == 200, r.text
    tid = r.json()["effect"]["territory_id"]
    assert r.json()["state"] == "consumed" and len(ready(j1, "joker")) == jokers - 1
    # no GPS, no allowance, progress 1, and no lock: another player may claim it today
    assert terr(http, tid) == {"owner_id": j1.id, "progress": 1, "fortified": False}
    assert left(j1) == 1
    r = claim(p["C"], tid, MON)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text


def test_r20_joker_random_awards_an_unclaimed_territory(stack: Stack, http: httpx.Client,
                                                        p: dict[str, Player]) -> None:
    j4 = p["J4"]
    give(stack, j4.id, "joker")
    board = {f["properties"]["id"]: f["properties"]["owner_id"] for f in http.get("/api/v1/board").json()["features"]}
    r = play(j4, "joker", mode="random")
    assert r.status_code == 200, r.text
    tid = r.json()["effect"]["territory_id"]
    assert board[tid] is None and terr(http, tid)["owner_id"] == j4.id


def test_r20_joker_cluster_edge_with_tied_largest_clusters(stack: Stack, http: httpx.Client, org: Player,
                                                           p: dict[str, Player]) -> None:
    """J3 owns Hoboken (every neighbour owned by others: an empty edge) and Morristown (one free neighbour,
    Morris): two tied clusters of one. Each play first picks one of them uniformly; the Hoboken pick keeps the card
    (no_eligible_territory), the Morristown pick awards Morris."""
    move_clock(org, TUE)
    j3 = p["J3"]
    assert claim(j3, MORRISTOWN, TUE).status_code == 201
    give(stack, j3.id, *["joker"] * 12)
    outcomes = []
    for _ in range(12):
        jokers = len(ready(j3, "joker"))
        r = play(j3, "joker", mode="cluster_edge")
        if r.status_code == 200:
            assert r.json()["effect"] == {"territory_id": MORRIS}
            assert len(ready(j3, "joker")) == jokers - 1
            outcomes.append("award")
            break
        assert code(r) == (409, "no_eligible_territory")
        assert len(ready(j3, "joker")) == jokers
        outcomes.append("kept")
    assert outcomes[-1] == "award", outcomes
    assert terr(http, MORRIS)["owner_id"] == j3.id
    played = [e for e in asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"],
                                                   subjects.CARD_PLAYED))
              if e["player_id"] == j3.id and e["card_type"] == "joker"]
    assert len(played) == 1
    assert played[0]["joker"] == {"schema_version": 1, "mode": "cluster_edge", "territory_id": MORRIS,
                                  "candidates": [MORRIS], "clusters": [[HOBOKEN], [MORRISTOWN]],
                                  "cluster_index": 1}


# ---- R19 ---------------------------------------------------------------------------------------------
def test_r19_mulligan_keeps_the_lock_the_dirty_move(stack: Stack, http: httpx.Client, org: Player,
                                                    p: dict[str, Player]) -> None:
    a, b = p["A"], p["B"]
    assert claim(b, ELIZABETH, TUE).json()["progress"] == 2          # B: Mon, Tue … one more day to fortify
    move_clock(org, WED)
    r = claim(a, ELIZABETH, WED)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    steal = r.json()["claim_id"]
    assert code(claim(b, ELIZABETH, WED)) == (409, "locked_today")
    give(stack, a.id, "mulligan", "mulligan", "mulligan", "mulligan")
    r = play(a, "mulligan", claim_id=steal)
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "consumed"
    assert r.json()["effect"] == {"claims_left_today": 1, "territory_id": ELIZABETH, "owner_id": b.id}
    # back to B with its previous fortification state, but the lock of A's claim stays: B's streak breaks
    assert terr(http, ELIZABETH) == {"owner_id": b.id, "progress": 2, "fortified": False}
    assert code(claim(b, ELIZABETH, WED)) == (409, "locked_today")
    before = hand(a)
    assert code(play(a, "mulligan", claim_id=steal)) == (409, "not_eligible_for_mulligan")    # already undone
    assert code(play(a, "mulligan", claim_id="f" * 32)) == (409, "not_eligible_for_mulligan")  # unknown claim
    assert hand(a) == before
    # the replacement claim: A steals V's Kearny; V's War reverses it; a reversed claim is not eligible
    r = claim(a, KEARNY, WED)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    reversed_claim = r.json()["claim_id"]
    give(stack, p["V"].id, "war")
    assert play(p["V"], "war", territory_id=KEARNY).status_code == 200
    assert code(play(a, "mulligan", claim_id=reversed_claim)) == (409, "not_eligible_for_mulligan")
    assert code(claim(a, SECAUCUS, WED)) == (409, "no_claims_left")
    move_clock(org, THU)
    r = claim(b, ELIZABETH, THU)
    assert r.status_code == 201 and r.json()["progress"] == 1, r.text   # Tue → Thu is no streak
    assert code(play(a, "mulligan", claim_id=steal)) == (409, "not_eligible_for_mulligan")    # not today


def test_r19_mulligan_on_someone_elses_claim_or_a_territory_no_longer_owned(stack: Stack, http: httpx.Client,
                                                                           p: dict[str, Player]) -> None:
    a, b, n1 = p["A"], p["B"], p["N1"]
    c_claim = claim(p["C"], EDISON, THU).json()["claim_id"]
    assert code(play(a, "mulligan", claim_id=c_claim)) == (409, "not_eligible_for_mulligan")  # someone else's
    r = claim(a, SECAUCUS, THU)
    assert r.status_code == 201, r.text
    mine = r.json()["claim_id"]
    # A trades Secaucus away the same day: A's claim stands but A no longer owns the territory
    give(stack, a.id, "trade")
    give(stack, n1.id, "trade")
    t = a.post("/trades", {"offer_territory_id": SECAUCUS, "want_territory_id": JERSEY_CITY})
    assert t.status_code == 201, t.text
    assert n1.post(f"/trades/{t.json()['id']}/accept").json()["state"] == "accepted"
    assert code(play(a, "mulligan", claim_id=mine)) == (409, "not_owner")
    assert terr(http, SECAUCUS)["owner_id"] == n1.id
    assert b.id != a.id
