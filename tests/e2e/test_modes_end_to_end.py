"""The turn-based modes end to end: a King of the Hill room played to its winner and a Team Turf turn resolved by the
game clock, through the gateway, the modes service and PostgreSQL on the real stack (manual clock)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from datetime import datetime
from typing import Any

import httpx

from tests.support.client import Player, move_clock, until, verified_player
from tests.support.spectator import Spectator
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY, WEEHAWKEN = "3401732250", "3401736000", "3401777930"
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _at(s: str) -> datetime:
    return datetime.fromisoformat(s)


def _ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def _refused(r: httpx.Response, status: int, reason: str) -> None:
    assert r.status_code == status and r.json()["reason"] == reason and r.json()["message"], r.text


def test_a_king_of_the_hill_room_is_played_to_its_winner(stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    spectator = Spectator.of(stack.base_url)
    spectator.wait_for(lambda m: m["type"] == "snapshot")
    a, b, c = (verified_player(http, org, n) for n in ("Ana", "Ben", "Cy"))
    key = {"Idempotency-Key": "k" * 64}   # the longest key (with the player id: a 97-character command id, a 500)
    room = _ok(a.post("/modes/hill", {"hill": HOBOKEN}, key), 201)
    gid = room["game_id"]
    assert _ok(a.post("/modes/hill", {"hill": HOBOKEN}, key), 201)["game_id"] == gid   # a repeat: the same room
    # the key again with another body is refused, and opens nothing (the rooms listed are unchanged)
    rooms = _ok(http.get("/api/v1/modes/hill"))
    _refused(a.post("/modes/hill", {"hill": JERSEY_CITY}, key), 422, "invalid_input")
    assert _ok(http.get("/api/v1/modes/hill")) == rooms
    assert room["status"] == "lobby" and room["seed"] is None and len(room["seed_commitment"]) == 64  # K16
    for p in (b, c):
        _ok(p.post(f"/modes/hill/{gid}/join"))
    _refused(b.post(f"/modes/hill/{gid}/start"), 403, "forbidden")            # K1: the opener starts it
    started = _ok(a.post(f"/modes/hill/{gid}/start"))["hill"]
    assert started["dice"] == {a.id: 1, b.id: 1, c.id: 1} and started["holder"] is None   # K2

    def round_(n: int, choices: dict[Player, str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p, choice in choices.items():
            out = _ok(p.post(f"/modes/hill/{gid}/choices", {"round": n, "choice": choice}))
        return out

    round_(1, {a: "attack", b: "recruit"})
    _refused(a.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "recruit"}), 409, "already_chosen")  # K4
    seen = _ok(http.get(f"/api/v1/modes/hill/{gid}"))["hill"]
    assert seen["chosen"] == sorted([a.id, b.id]) and seen["my_choice"] is None        # K4: secret until revealed
    view = round_(1, {c: "recruit"})["hill"]
    # K9: a lone attacker takes the open hill; K7: the recruiters have 2 dice
    assert view["holder"] == a.id and view["dice"] == {a.id: 1, b.id: 2, c.id: 2} and view["round"] == 2
    assert view["last_round"]["choices"] == {a.id: "attack", b.id: "recruit", c.id: "recruit"}
    for n in range(2, 11):                                                           # K15: nobody attacks
        view = round_(n, {b: "recruit", c: "recruit"})
    assert view["status"] == "finished" and view["hill"]["winner"] == a.id                 # K18
    assert view["hill"]["dice"] == {a.id: 3, b.id: 3, c.id: 3}                              # K3
    assert hashlib.sha256(view["seed"].encode()).hexdigest() == room["seed_commitment"]    # K16: revealed
    log = _ok(http.get(f"/api/v1/modes/games/{gid}/log"))
    assert log["seed"] == view["seed"] and [x["kind"] for x in log["actions"]].count("resolve") == 10
    _refused(b.post(f"/modes/hill/{gid}/choices", {"round": 10, "choice": "attack"}), 409, "game_over")
    # the spectators saw each round revealed and the end with the seed
    first = spectator.wait_for(lambda m: m["type"] == "mode.round_resolved" and m["game_id"] == gid)
    assert first["result"]["round"] == 1 and first["result"]["holder_after"] == a.id
    end = spectator.wait_for(lambda m: m["type"] == "mode.game_ended" and m["game_id"] == gid)
    assert end["winners"] == [a.id] and end["seed"] == view["seed"]
    assert "10 resolution(s) replayed from the seed, 0 mismatch(es)" in _audit(stack, gid)   # K16


def _audit(stack: Stack, gid: str) -> str:
    """``turfwar audit game <id>`` on this stack: exit 0, its report."""
    env = os.environ | {"TURF_NATS_URL": stack.env["TURF_NATS_URL"], "TURF_STREAM": stack.env["TURF_STREAM"]}
    out = subprocess.run([sys.executable, "-m", "turfwar.cli", "audit", "game", gid, "--url", stack.base_url],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return " ".join(out.stdout.split())   # rich wraps long lines


def test_a_team_turf_turn_resolves_at_2359_new_york(stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    r1, b1 = verified_player(http, org, "Red"), verified_player(http, org, "Blue")
    _refused(r1.post("/modes/team-turf", {"teams": ["red", "blue"]}), 403, "forbidden")   # the organizer creates
    game = _ok(org.post("/modes/team-turf", {"teams": ["red", "blue"], "towns": [HOBOKEN, JERSEY_CITY, WEEHAWKEN],
                                             "homes": {"red": HOBOKEN, "blue": WEEHAWKEN}}), 201)
    gid = game["game_id"]
    assert _at(game["team_turf"]["next_turn_at"]) == _at("2026-10-05T23:59:00-04:00")  # T9
    _ok(r1.post(f"/modes/team-turf/{gid}/join", {"team": "red"}))
    _ok(b1.post(f"/modes/team-turf/{gid}/join", {"team": "blue"}))
    _ok(r1.post(f"/modes/team-turf/{gid}/place", {"town": HOBOKEN, "n": 2}))
    _ok(b1.post(f"/modes/team-turf/{gid}/place", {"town": WEEHAWKEN, "n": 2}))
    order = {"turn": 1, "kind": "attack", "src": WEEHAWKEN, "dst": JERSEY_CITY, "n": 1}
    _refused(b1.post(f"/modes/team-turf/{gid}/orders", order), 409, "not_neighbour")         # T7
    _refused(r1.post(f"/modes/team-turf/{gid}/orders", order | {"src": HOBOKEN, "n": 3}), 409, "not_enough_troops")
    _ok(r1.post(f"/modes/team-turf/{gid}/orders", order | {"src": HOBOKEN}), 201)
    assert len(_ok(r1.get(f"/modes/team-turf/{gid}"))["team_turf"]["orders"]) == 1             # T7: red sees it
    assert _ok(b1.get(f"/modes/team-turf/{gid}"))["team_turf"]["orders"] == []                # blue does not

    move_clock(org, datetime.fromisoformat("2026-10-05T23:59:30-04:00"))                      # T9: the turn
    view = until(lambda: _ok(http.get(f"/api/v1/modes/team-turf/{gid}")), lambda v: v["team_turf"]["turn"] == 2)
    tt = view["team_turf"]
    assert tt["turn"] == 2, tt
    # T10 c: the lone attacker takes empty Jersey City; T12 + T14: red 1 + 4 × 2, blue 1 + 4 × 1
    assert tt["board"] == {HOBOKEN: {r1.id: 1}, JERSEY_CITY: {r1.id: 1}, WEEHAWKEN: {b1.id: 2}}
    assert tt["reserve"] == {r1.id: 9, b1.id: 5} and _at(tt["next_turn_at"]) == _at("2026-10-06T23:59:00-04:00")
    again = _ok(org.post(f"/modes/team-turf/{gid}/turns/1/resolve"))
    assert again == {"ok": True, "schema_version": 1, "game_id": gid, "turn": 1, "first": False}  # T9: once
    _refused(r1.post(f"/modes/team-turf/{gid}/orders", order | {"src": HOBOKEN}), 409, "turn_closed")
    ended = _ok(org.post(f"/modes/team-turf/{gid}/end"))
    assert ended["status"] == "finished" and ended["seed"] and ended["team_turf"]["winners"] == ["red"]  # T22
    assert "1 resolution(s) replayed from the seed, 0 mismatch(es)" in _audit(stack, gid)   # T20


def test_t23_k21_a_disqualified_players_seat_is_not_waited_for_and_an_audit_holds_no_clock(
        stack: Stack, http: httpx.Client, org: Player) -> None:
    a, b, c = (verified_player(http, org, n) for n in ("Dora", "Eli", "Fay"))
    gid = _ok(a.post("/modes/hill", {"hill": WEEHAWKEN, "round_seconds": 21600}), 201)["game_id"]
    for p in (b, c):
        _ok(p.post(f"/modes/hill/{gid}/join"))
    _ok(a.post(f"/modes/hill/{gid}/start"))
    _ok(a.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "attack"}))
    _ok(b.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "recruit"}))
    _ok(org.post(f"/admin/players/{c.id}/disqualify", {"reason": "cheating"}))
    # K21: the room stops waiting for the seat (not six hours): the round resolves once the modes service hears
    view = until(lambda: _ok(http.get(f"/api/v1/modes/hill/{gid}")), lambda v: v["hill"]["round"] == 2)["hill"]
    assert view["round"] == 2 and view["players"] == [a.id, b.id] and view["holder"] == a.id
    assert view["last_round"]["choices"] == {a.id: "attack", b.id: "recruit"}
    _ok(b.post(f"/modes/hill/{gid}/leave"))                                   # K17: the last one left wins
    assert "1 resolution(s) replayed from the seed, 0 mismatch(es)" in _audit(stack, gid)   # K16, K21 replayed
    started = time.monotonic()
    move_clock(org, datetime.fromisoformat("2026-10-07T07:30:00-04:00"))      # a day start is due
    assert time.monotonic() - started < 30   # the audit's stream reader left no consumer behind (it took 59 s)
