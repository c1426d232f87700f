"""R12 hands (Monday top-up, a card a day, top-up at verification, reserved cards counted, seeded draws), R13
(a play that fails changes nothing) and bad input on the card and trade routes, through the public API on the real
stack. The tests share one manual clock and run in order."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import defaultdict
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.bus import stream_events
from tests.support.cards import claim, give, hand, play
from tests.support.client import API, Player, move_clock, verified_player
from turf_common.contracts import subjects
from turf_common.rules.cards import CARD_TYPES, draw_card
from turfwar.stack import Stack

PASSAIC, HOBOKEN = "3403156550", "3401732250"
SEASON = "2026"


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


def seed(stack: Stack) -> str:
    return stack.env.get("TURF_SEED", "turfwar-2026")


def events(stack: Stack, subject: str) -> list[dict[str, Any]]:
    return asyncio.run(stream_events(stack.env["TURF_NATS_URL"], stack.env["TURF_STREAM"], subject))


def wait_hand(p: Player, n: int, timeout: float = 10.0) -> list[dict[str, Any]]:
    end = time.monotonic() + timeout
    while True:
        h = hand(p)
        if len(h) == n or time.monotonic() > end:
            return h
        time.sleep(0.05)


def strip(stack: Stack, p: Player) -> None:
    counts: dict[str, int] = defaultdict(int)
    for c in hand(p):
        if c["state"] == "ready":
            counts[c["type"]] += 1
    give(stack, p.id, remove=tuple(t for t, n in counts.items() for _ in range(n)))


@pytest.fixture(scope="module")
def p(http: httpx.Client, org: Player) -> dict[str, Player]:
    return {n: verified_player(http, org, n) for n in ("P1", "P3")}


def test_r12_monday_top_up_to_three_from_the_seeded_generator(stack: Stack, http: httpx.Client, org: Player,
                                                               p: dict[str, Player]) -> None:
    assert hand(p["P1"]) == []                                      # verified before the season: no card yet
    commitment = hashlib.sha256(seed(stack).encode()).hexdigest()
    # R12.1 (amended): the commitment is public from the first start on, before anyone could see who registered
    assert http.get(API + "/clock").json()["seed_commitment"] == commitment
    move_clock(org, at("2026-10-05T06:00:00-04:00"))
    h = hand(p["P1"])
    assert [c["state"] for c in h] == ["ready"] * 3
    assert [c["type"] for c in h] == [draw_card(seed(stack), SEASON, p["P1"].id, i) for i in range(3)]
    assert http.get(API + "/clock").json()["seed_commitment"] == commitment
    assert [e["commitment"] for e in events(stack, subjects.CARD_SEED_COMMITTED)] == [commitment]
    (dealt,) = events(stack, subjects.CARD_DEALT)
    assert dealt["game_day"] == "2026-10-05" and dealt["reason"] == "week_start"
    assert dealt["hands"][p["P1"].id] == 0 and dealt["draws"][p["P1"].id] == 3


def test_r12_tuesday_to_saturday_one_more_card(org: Player, p: dict[str, Player]) -> None:
    move_clock(org, at("2026-10-06T06:00:00-04:00"))
    assert len(hand(p["P1"])) == 4


def test_r12_a_player_verified_during_the_season_gets_the_monday_top_up(http: httpx.Client, org: Player) -> None:
    move_clock(org, at("2026-10-07T12:00:00-04:00"))
    late = verified_player(http, org, "Late")
    assert len(wait_hand(late, 3)) == 3
    # verifying again changes nothing
    assert org.post(f"/admin/players/{late.id}/verify", {"reason": "again"}).status_code == 200
    time.sleep(0.5)
    assert len(hand(late)) == 3


def test_r13_card_plays_need_the_game_open(stack: Stack, org: Player, p: dict[str, Player]) -> None:
    give(stack, p["P1"].id, "double_trouble")
    for when in ("2026-10-07T22:30:00-04:00", "2026-10-11T12:00:00-04:00"):   # a closed evening, a Sunday
        move_clock(org, at(when))
        before = hand(p["P1"])
        r = play(p["P1"], "double_trouble")
        assert r.status_code == 409 and r.json()["reason"] == "game_closed", r.text
        assert hand(p["P1"]) == before
        r = p["P1"].post("/trades", {"offer_territory_id": PASSAIC, "want_territory_id": HOBOKEN})
        assert r.status_code == 409 and r.json()["reason"] == "game_closed", r.text


def test_r12_saturday_adds_one_card_whatever_the_hand(stack: Stack, p: dict[str, Player]) -> None:
    (dealt,) = [e for e in events(stack, subjects.CARD_DEALT) if e["game_day"] == "2026-10-10"]
    assert dealt["reason"] == "day_start"
    assert dealt["hands"][p["P1"].id] >= 3 and dealt["draws"] == {pid: 1 for pid in dealt["hands"]}


def test_r12_top_up_counts_a_scheduled_freeze(stack: Stack, org: Player, p: dict[str, Player]) -> None:
    p3 = p["P3"]
    move_clock(org, at("2026-10-17T10:00:00-04:00"))          # a Saturday
    strip(stack, p3)
    give(stack, p3.id, "freeze", "double_trouble")
    assert claim(p3, PASSAIC, at("2026-10-17T10:00:00-04:00")).status_code == 201
    r = play(p3, "freeze", territory_id=PASSAIC)
    assert r.status_code == 200 and r.json()["effect"] == {"active_on": "2026-10-19"}, r.text
    p1_before = len(hand(p["P1"]))
    move_clock(org, at("2026-10-19T06:00:00-04:00"))
    (dealt,) = [e for e in events(stack, subjects.CARD_DEALT) if e["game_day"] == "2026-10-19"]
    assert dealt["reason"] == "week_start"
    assert (dealt["hands"][p3.id], dealt["draws"][p3.id]) == (2, 1)
    assert dealt["draws"][p["P1"].id] == 0 and len(hand(p["P1"])) == p1_before
    after = hand(p3)
    assert len(after) == 2 and "freeze" not in [c["type"] for c in after if c["state"] == "reserved"]


def test_r12_every_draw_replays_from_the_seed(stack: Stack) -> None:
    by_player: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in events(stack, subjects.CARD_DRAWN):
        by_player[e["player_id"]].append(e)
    assert by_player
    for pid, draws in by_player.items():
        assert [d["draw_index"] for d in draws] == list(range(len(draws)))
        assert [d["card_type"] for d in draws] == [draw_card(seed(stack), SEASON, pid, i) for i in range(len(draws))]
        assert {d["card_type"] for d in draws} <= set(CARD_TYPES)


# ---- bad input: 422/409/404 with the rule code, nothing changes ---------------------------------------------
def test_bad_input_on_card_and_trade_routes_changes_nothing(stack: Stack, http: httpx.Client, org: Player,
                                                            p: dict[str, Player]) -> None:
    move_clock(org, at("2026-10-19T08:00:00-04:00"))
    p1 = p["P1"]
    strip(stack, p1)
    give(stack, p1.id, "freeze", "joker")
    before, board = hand(p1), http.get(API + "/board").json()
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"type": "teleport"}, 422, "invalid_input"),                                   # unknown card type
        ({"type": "freeze"}, 422, "invalid_input"),                                     # missing its argument
        ({"type": "freeze", "territory_id": PASSAIC, "mode": "random"}, 422, "invalid_input"),  # a foreign argument
        ({"type": "joker", "mode": "sideways"}, 422, "invalid_input"),
        ({"type": "trade"}, 422, "invalid_input"),                                      # trades go to POST /trades
        ({"type": "freeze", "territory_id": "x" * 65}, 422, "invalid_input"),
        ({"type": "freeze", "territory_id": "'; drop table"}, 422, "invalid_input"),
        ({"type": "war", "territory_id": HOBOKEN}, 409, "card_not_in_hand"),            # no War in hand
        ({"type": "blockade", "rival_id": p["P3"].id}, 409, "card_not_in_hand"),
        ({"type": "freeze", "territory_id": HOBOKEN}, 409, "not_owner"),                # not P1's territory
    ]
    for body, status, reason in cases:
        r = p1.post("/cards/play", body)
        assert (r.status_code, r.json()["reason"]) == (status, reason), (body, r.text)
        assert r.json()["message"]
    r = http.post(API + "/cards/play", content=b"{not json", headers=p1.auth | {"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["reason"] == "invalid_input"
    assert http.post(API + "/cards/play", json={"type": "joker", "mode": "random"}).status_code == 401
    assert http.get(API + "/me/hand").status_code == 401
    for path, status in ((f"/cards/{'f' * 32}/schedule", 404), ("/cards/%20/schedule", 422)):
        r = http.delete(API + path, headers=p1.auth)
        assert r.status_code == status, (path, r.text)
    for action in ("accept", "decline", "withdraw"):
        r = p1.post(f"/trades/{'f' * 32}/{action}")
        assert (r.status_code, r.json()["reason"]) == (404, "not_found"), r.text
    for body in ({}, {"offer_territory_id": PASSAIC, "want_territory_id": HOBOKEN, "extra": 1},
                 {"offer_territory_id": 12, "want_territory_id": HOBOKEN}):
        assert p1.post("/trades", body).status_code == 422
    assert hand(p1) == before
    assert http.get(API + "/board").json() == board
