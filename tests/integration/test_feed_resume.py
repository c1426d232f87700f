"""A feed that never skips: every spectator message after the snapshot carries the stream's ``seq``; a
spectator that reconnects with ``since=<seq>`` is resent what it missed, exactly once and in order, then goes on
live; one that was gone for more than the resend bound (``TURF_WS_RESEND_MAX``, small here) gets a snapshot."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from tests.support.client import Player, move_clock, organizer, verified_player
from tests.support.spectator import Spectator
from tests.support.stackfix import running_stack
from turf_common.board import load_board
from turf_common.rules import gametime
from turf_common.settings import get_settings
from turfwar.stack import Stack

pytestmark = [pytest.mark.slow]   # hundreds of claims while a spectator is away

# TURF_WS_RESEND_MAX of this module's stack, in the feed stream's sequences (the public events alone, a
# claim's territory.changed and score.updated), so 200 claims span about 400
BOUND = 800
PLAYERS = 50          # one claim each per game day (R6): four days make 200 claims
#: an hour into each game day of the season
DAYS = [d.opens + timedelta(hours=1) for d in gametime._schedule(gametime.load_season(get_settings().season_file))]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("stack"), TURF_WS_RESEND_MAX=str(BOUND)) as s:
        yield s


@pytest.fixture(scope="module")
def http(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.base_url, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def world(stack: Stack, http: httpx.Client) -> dict[str, Any]:
    """Players, a point well inside each of 50 towns, and a spectator that left before anything happened."""
    org = organizer(http)
    early = Spectator.of(stack.base_url)
    first = early.wait_for(lambda m: m["type"] == "snapshot")
    early.ws.close()
    board = load_board()
    points = []
    for tid in sorted(board.territories):
        ter = board.territories[tid]
        loc = board.locate(*ter.label_point)
        if loc.territory_id == tid and (loc.border_distance_m or 0) > 50:
            points.append(ter.label_point)
        if len(points) == PLAYERS:
            break
    players = [verified_player(http, org) for _ in range(PLAYERS)]
    return {"org": org, "players": players, "points": points, "early_seq": first["seq"], "day": 0}


def play_day(world: dict[str, Any]) -> None:
    """The next game day: every player claims one town, each a different one than the day before (steals)."""
    at = DAYS[world["day"]]
    move_clock(world["org"], at)
    players: list[Player] = world["players"]
    for k, p in enumerate(players):
        lat, lon = world["points"][(k + world["day"]) % PLAYERS]
        r = p.claim(lat, lon, at)
        assert r.status_code == 201, r.text
    world["day"] += 1


def feed(spectator: Spectator) -> list[dict[str, Any]]:
    return [m for m in spectator.messages if m["type"] not in ("snapshot", "resync")]


def settled(spectator: Spectator, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The spectator's feed messages once no new one has come for a second."""
    end, count = time.monotonic() + timeout, -1
    while time.monotonic() < end:
        if len(spectator.messages) == count:
            return feed(spectator)
        count = len(spectator.messages)
        time.sleep(1.0)
    raise AssertionError("the feed never settled")


def test_a_spectator_dropped_for_200_claims_resumes_with_every_message_once_in_order(
        stack: Stack, world: dict[str, Any]) -> None:
    witness = Spectator.of(stack.base_url)             # stays connected: what the dropped one should have seen
    snap = witness.wait_for(lambda m: m["type"] == "snapshot")
    assert isinstance(snap["seq"], int) and snap["seq"] >= world["early_seq"]
    dropped = Spectator.of(stack.base_url)
    dropped.wait_for(lambda m: m["type"] == "snapshot")
    play_day(world)                                    # 50 claims seen by both
    seen = settled(dropped)
    dropped.ws.close()
    last = seen[-1]["seq"]
    for _ in range(4):                                 # 200 claims while it is away
        play_day(world)
    gone = settled(witness)
    missed = [m for m in gone if m["seq"] > last]
    claims = [m for m in missed if m["type"] == "territory.changed"]
    assert len(claims) == 200 and gone[-1]["seq"] - last <= BOUND, gone[-1]["seq"] - last
    back = Spectator(stack.base_url.replace("http", "ws", 1) + f"/api/v1/ws/scores?since={last}")
    resent = back.wait_for(lambda m: m.get("seq") == gone[-1]["seq"], timeout=30)
    assert back.messages[0] == missed[0] and back.messages[0]["type"] != "snapshot"
    assert resent == missed[-1]
    # then live: one more claim reaches both, once
    move_clock(world["org"], DAYS[world["day"]])
    r = world["players"][0].claim(*world["points"][7], DAYS[world["day"]])
    assert r.status_code == 201, r.text
    after = settled(witness)
    want = [m for m in after if m["seq"] > last]
    got = settled(back)
    assert [m["seq"] for m in got] == [m["seq"] for m in want]          # every message once, in order
    assert got == want                                                  # and as it was sent live
    seqs = [m["seq"] for m in after]
    assert seqs == sorted(set(seqs))                                    # strictly increasing
    for s in (witness, back):
        s.ws.close()
    world["day"] += 1


def test_a_spectator_gone_too_long_gets_a_snapshot(stack: Stack, http: httpx.Client,
                                                   world: dict[str, Any]) -> None:
    since = world["early_seq"]

    def now_seq() -> int:
        probe = Spectator.of(stack.base_url)
        seq = int(probe.wait_for(lambda m: m["type"] == "snapshot")["seq"])
        probe.ws.close()
        return seq

    now = now_seq()
    while now - since <= BOUND:                                         # the precondition of the test
        play_day(world)
        now = now_seq()
    back = Spectator(stack.base_url.replace("http", "ws", 1) + f"/api/v1/ws/scores?since={since}")
    first = back.wait_for(lambda m: True)
    # >=: a day's trailing events (scores, notifications) may land between the probe and this socket
    assert first["type"] == "snapshot" and first["seq"] >= now
    assert {s["player_id"] for s in first["leaderboard"]["standings"]} >= {p.id for p in world["players"]}
    # a sequence the stream never reached (another stream's, a restore): a snapshot too
    future = Spectator(stack.base_url.replace("http", "ws", 1) + f"/api/v1/ws/scores?since={now + 10**6}")
    assert future.wait_for(lambda m: True)["type"] == "snapshot"
    for s in (back, future):
        s.ws.close()
