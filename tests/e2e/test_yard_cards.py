"""The yard card game end to end (docs/rules/yard-cards.md): a room of two opened, joined and started through the
gateway, turns played on every typed route, refusals answered 409 with the ruling's code and changing nothing, a
turn played idle by the game clock (Y25), hidden cards hidden from the rival and the spectators (Y27), the end
with the seed revealed (Y26, Y5) and ``turfwar audit game`` replaying the room, on the real stack (manual clock)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

import httpx

from tests.support.client import Player, move_clock, until, verified_player
from tests.support.spectator import Spectator
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def _refused(r: httpx.Response, reason: str, status: int = 409) -> None:
    assert r.status_code == status and r.json()["reason"] == reason and r.json()["message"], r.text


def test_a_yard_cards_room_is_played_through_the_api(stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    spectator = Spectator.of(stack.base_url)
    spectator.wait_for(lambda m: m["type"] == "snapshot")
    a, b = (verified_player(http, org, n) for n in ("Ada", "Bo"))
    room = _ok(a.post("/modes/yard-cards", {"turn_seconds": 60}), 201)
    gid = room["game_id"]
    assert room["status"] == "lobby" and room["seed"] is None and len(room["seed_commitment"]) == 64
    _refused(a.post(f"/modes/yard-cards/{gid}/start"), "wrong_player_count")            # Y2: 2 to 5
    _ok(b.post(f"/modes/yard-cards/{gid}/join"))
    _refused(b.post(f"/modes/yard-cards/{gid}/start"), "forbidden", 403)
    table = _ok(a.post(f"/modes/yard-cards/{gid}/start"))["yard_cards"]["table"]
    by_id = {p.id: p for p in (a, b)}
    first = by_id[table["turn"]["player"]]
    second = b if first is a else a

    costs = {c["id"]: c["cost"] for c in room["yard_cards"]["catalogue_cards"]}
    public = f"/api/v1/modes/yard-cards/{gid}"

    def url(step: str) -> str:
        return f"/modes/yard-cards/{gid}/{step}"

    # Y6: only the player of the turn, only the move of the step; refused moves change nothing
    before = _ok(http.get(public))
    _refused(second.post(url("start-actions"), {}), "not_your_turn")
    _refused(first.post(url("work")), "wrong_step")
    assert _ok(http.get(public)) == before
    _ok(first.post(url("start-actions"), {}))
    _ok(first.post(url("side"), {"side": "away"}))
    after_work = _ok(first.post(url("work")))["yard_cards"]["table"]
    mine = next(x for x in after_work["seats"] if x["player"] == first.id)
    assert mine["money"] == 5 and mine["side"] == "away"                                   # Y10
    _refused(first.post(url("work")), "already_done")                                       # Y9
    dear = max(after_work["store"], key=lambda c: costs[c["id"]])
    if costs[dear["id"]] > 5:
        _refused(first.post(url("buy"), {"cards": [dear["card"]]}), "not_enough_money")    # Y11
    cheap = min(after_work["store"], key=lambda c: costs[c["id"]])
    bought = _ok(first.post(url("buy"), {"cards": [cheap["card"]]}))["yard_cards"]["table"]
    assert cheap["card"] not in [c["card"] for c in bought["store"]]
    mine = next(x for x in bought["seats"] if x["player"] == first.id)   # the mover's own view: their garage
    assert [c["card"] for c in mine["garage"]] == [cheap["card"]] and len(mine["hand"]) == 3
    assert next(x for x in bought["seats"] if x["player"] == second.id)["hand"] is None   # Y27: not the rival's
    seen = next(x for x in _ok(http.get(public))["yard_cards"]["table"]["seats"] if x["player"] == first.id)
    assert (seen["hand"], seen["garage"], seen["hand_count"], seen["garage_count"]) == (None, None, 3, 1)
    _ok(first.post(url("end-actions"), {}))

    # the second player's turn: HOME, a tool from the hand onto a DIRT pile (Y13: tools ignore PLACES, Y17)
    _ok(second.post(url("start-actions"), {}))
    hand = next(x for x in _ok(second.get(f"/modes/yard-cards/{gid}"))["yard_cards"]["table"]["seats"]
                if x["player"] == second.id)["hand"]
    trowel = next(c["card"] for c in hand if c["id"] == "trowel")
    _ok(second.post(url("side"), {"side": "home"}))
    _refused(second.post(url("work")), "wrong_side")
    played = _ok(second.post(url("play"), {"card": trowel, "pile": 4}))["yard_cards"]["table"]
    yard = next(x for x in played["seats"] if x["player"] == second.id)
    assert yard["yard"][4]["grass"] is True and yard["garage_count"] == 1                  # Y17: back in the garage
    _refused(second.post(url("sway"), {"neighbour": "c0"}), "unknown_neighbour")
    _refused(second.post(url("sway"), {"neighbour": "c0", "bribe": 3}), "invalid_input", 422)   # unknown field
    _refused(second.post(url("play"), {"card": trowel, "pile": 9}), "invalid_input", 422)     # piles 0–8
    _ok(second.post(url("end-actions"), {}))

    # Y25: the first player lets the time limit pass; the game clock plays the turn idle
    move_clock(org, T0 + timedelta(seconds=61))
    idle = until(lambda: _ok(http.get(public)),
                 lambda v: v["yard_cards"]["table"]["turn"]["player"] == second.id)
    assert idle["yard_cards"]["table"]["turn"]["step"] == "start"
    seen = spectator.wait_for(lambda m: m["type"] == "mode.yard_moved" and m["move"] == "idle")
    assert seen["game_id"] == gid and seen["player_id"] == first.id

    # Y26: the first player leaves, the other wins; the seed is revealed and the audit replays the room
    ended = _ok(first.post(url("leave")))
    assert ended["status"] == "finished" and ended["yard_cards"]["table"]["winners"] == [second.id]
    assert hashlib.sha256(ended["seed"].encode()).hexdigest() == room["seed_commitment"]  # Y5
    _refused(second.post(url("start-actions"), {}), "game_over")
    end = spectator.wait_for(lambda m: m["type"] == "mode.game_ended" and m["game_id"] == gid)
    assert end["winners"] == [second.id]
    log = _ok(http.get(f"/api/v1/modes/games/{gid}/log"))
    assert [x["move"] for x in log["actions"]][-2:] == ["idle", "leave"]
    assert f"{len(log['actions'])} move(s) replayed from the seed, 0 mismatch(es)" in _audit(stack, gid)


def _audit(stack: Stack, gid: str) -> str:
    env = os.environ | {"TURF_NATS_URL": stack.env["TURF_NATS_URL"], "TURF_STREAM": stack.env["TURF_STREAM"]}
    out = subprocess.run([sys.executable, "-m", "turfwar.cli", "audit", "game", gid, "--url", stack.base_url],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return " ".join(out.stdout.split())
