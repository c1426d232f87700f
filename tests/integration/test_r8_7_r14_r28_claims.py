"""The amended claims rulings on the real claims service (PostgreSQL, NATS) under the manual clock, which stands
still between moves, so several claims of one territory share one instant:

* R14 (amended): "the steal" is the latest steal not undone or reversed, even at one instant;
* R8.7 (amended): a War reclaim or a Joker award of a territory today is the claimant's claim of it today;
* R28 (amended): a disqualification ends the player's same-day locks (R10) and reclaim windows (R14), a Mulligan
  that would return a territory to them leaves it unclaimed, and ``set_owner`` never names them.

Players are ids of this test (the gateway states the status); commands go over NATS as the gateway and the cards
sagas send them. The tests share one clock and run in order."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import datetime
from typing import Any

import nats
import pytest

from tests.support.bus import request, submit_cmd
from tests.support.client import Player, move_clock
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.claims import CorrectOwnership, StateRequest
from turf_common.contracts.effects import JokerEffect, MulliganEffect, WarEffect
from turf_common.contracts.players import PlayerDisqualified
from turf_common.rules.cards import joker_entropy
from turfwar.stack import Stack

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TUE = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
TUE_EVENING = datetime.fromisoformat("2026-10-06T21:00:00-04:00")
WED = datetime.fromisoformat("2026-10-07T07:00:00-04:00")
HOBOKEN, NEWARK, ELIZABETH, BAYONNE, PATERSON = "3401732250", "3401351000", "3403921000", "3401703580", "3403157000"


def ask(stack: Stack, *calls: tuple[str, Message]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        try:
            return [await request(nc, s, m.model_dump_json().encode()) for s, m in calls]
        finally:
            await nc.close()

    return asyncio.run(go())


def claim(stack: Stack, player: str, tid: str, at: datetime, check: bool = False) -> dict[str, Any]:
    return ask(stack, (subjects.CLAIMS_CHECK if check else subjects.CLAIMS_SUBMIT, submit_cmd(player, tid, at)))[0]


def owner(stack: Stack, tid: str) -> dict[str, Any]:
    return ask(stack, (subjects.CLAIMS_STATE, StateRequest(territory_id=tid)))[0]["territories"][0]  # type: ignore[no-any-return]


def disqualify(stack: Stack, player: str, at: datetime) -> None:
    """``player.disqualified`` on the stream, as the gateway publishes it (R28)."""
    ev = PlayerDisqualified(occurred_at=at, player_id=player, at=at)

    async def go() -> None:
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        try:
            await nc.jetstream().publish(subjects.PLAYER_DISQUALIFIED, ev.model_dump_json().encode(),
                                         stream=stack.env["TURF_STREAM"], headers={"Nats-Msg-Id": ev.event_id})
        finally:
            await nc.close()

    asyncio.run(go())


def wait_for(fetch: Any, pred: Any, timeout: float = 15.0) -> Any:
    end = time.monotonic() + timeout
    while True:
        got = fetch()
        if pred(got) or time.monotonic() > end:
            return got
        time.sleep(0.05)


def ok(r: dict[str, Any], kind: str | None = None) -> dict[str, Any]:
    assert r["ok"] is True and (kind is None or r["kind"] == kind), r
    return r


def no(r: dict[str, Any], reason: str) -> None:
    assert r["ok"] is False and r["reason"] == reason, r


def check(r: dict[str, Any], allowed: bool, reason: str | None) -> None:
    assert r["ok"] is True and (r["allowed"], r["reason"]) == (allowed, reason), r


P = {name: uuid.uuid4().hex for name in ("V", "A", "V2", "A2", "J", "L", "B", "V3", "A3", "W", "A4")}
STEALS: dict[str, str] = {}


@pytest.fixture(scope="module")
def monday(org: Player, stack: Stack) -> None:
    move_clock(org, MON)
    for victim, tid in (("V", HOBOKEN), ("V2", NEWARK), ("V3", BAYONNE), ("W", PATERSON)):
        ok(claim(stack, P[victim], tid, MON), "take")


def test_r14_the_steal_is_the_latest_one_not_undone_even_at_one_instant(stack: Stack, org: Player,
                                                                       monday: None) -> None:
    """At one instant A steals Hoboken from V, undoes it by Mulligan (it goes back to V, A gets a replacement
    claim) and steals it again. "The steal" is the second one: V's War takes Hoboken back (ordered by time alone,
    the lookup could find the undone first steal and refuse war_not_applicable)."""
    move_clock(org, TUE)
    first = ok(claim(stack, P["A"], HOBOKEN, TUE), "steal")
    m = ask(stack, (subjects.CLAIMS_EFFECT_MULLIGAN, MulliganEffect(command_id=uuid.uuid4().hex, player_id=P["A"],
                                                                    claim_id=first["claim_id"])))[0]
    assert m["ok"] is True and m["owner_id"] == P["V"], m
    second = ok(claim(stack, P["A"], HOBOKEN, TUE), "steal")   # the replacement claim; A's own lock is no bar
    war = ask(stack, (subjects.CLAIMS_EFFECT_WAR, WarEffect(command_id=uuid.uuid4().hex, player_id=P["V"],
                                                            territory_id=HOBOKEN)))[0]
    assert war["ok"] is True and (war["territory_id"], war["owner_id"]) == (HOBOKEN, P["V"]), war
    assert owner(stack, HOBOKEN)["owner_id"] == P["V"]
    # the War reversed the second steal: A's reclaim of it is the next move (not a third steal)
    assert second["claim_id"] != first["claim_id"]


def test_r8_7_a_gps_claim_after_a_war_reclaim_the_same_day_is_already_claimed_today(stack: Stack, org: Player,
                                                                                   monday: None) -> None:
    move_clock(org, TUE_EVENING)
    ok(claim(stack, P["A2"], NEWARK, TUE_EVENING), "steal")
    move_clock(org, WED)     # 1 + 1 game hours after the steal: V2's War is in time
    war = ask(stack, (subjects.CLAIMS_EFFECT_WAR, WarEffect(command_id=uuid.uuid4().hex, player_id=P["V2"],
                                                            territory_id=NEWARK)))[0]
    assert war["ok"] is True, war
    ok(claim(stack, P["A2"], NEWARK, WED), "war_reclaim")
    check(claim(stack, P["A2"], NEWARK, WED, check=True), False, "already_claimed_today")
    no(claim(stack, P["A2"], NEWARK, WED), "already_claimed_today")
    assert owner(stack, NEWARK) | {"version": None} == {"id": NEWARK, "owner_id": P["A2"], "progress": 1,
                                                        "fortified": False, "version": None,
                                                        "schema_version": 1}
    player = ask(stack, (subjects.CLAIMS_PLAYER, _player(P["A2"])))[0]
    assert player["claims_left_today"] == 1          # nothing spent by the refusal (nor by the reclaim)


def _player(pid: str) -> Message:
    from turf_common.contracts.claims import PlayerRequest
    return PlayerRequest(player_id=pid)


def test_r28_a_disqualification_ends_the_players_lock_and_reclaim_window(stack: Stack, org: Player,
                                                                       monday: None) -> None:
    # L's normal claim locks Elizabeth today; A3 holds a reclaim window on Bayonne (V3's War); A4 steals
    # Paterson from W (for the next test)
    STEALS["A4"] = ok(claim(stack, P["A4"], PATERSON, WED), "steal")["claim_id"]
    ok(claim(stack, P["L"], ELIZABETH, WED), "take")
    no(claim(stack, P["B"], ELIZABETH, WED), "locked_today")
    ok(claim(stack, P["A3"], BAYONNE, WED), "steal")
    war = ask(stack, (subjects.CLAIMS_EFFECT_WAR, WarEffect(command_id=uuid.uuid4().hex, player_id=P["V3"],
                                                            territory_id=BAYONNE)))[0]
    assert war["ok"] is True, war
    no(claim(stack, P["B"], BAYONNE, WED), "war_reclaim_window")
    for name in ("W", "A3", "L"):        # claims takes them in stream order: L's freed Elizabeth comes last
        disqualify(stack, P[name], WED)
    assert wait_for(lambda: owner(stack, ELIZABETH)["owner_id"], lambda o: o is None) is None
    # R28: the territory L owned is unclaimed; L's lock ends with L (R10)
    check(claim(stack, P["B"], BAYONNE, WED, check=True), True, None)
    check(claim(stack, P["B"], ELIZABETH, WED, check=True), True, None)
    ok(claim(stack, P["B"], ELIZABETH, WED), "take")
    # R14/R28: A3's reclaim window ended; V3 keeps Bayonne and the normal rules resume for the others
    assert owner(stack, BAYONNE)["owner_id"] == P["V3"]
    ok(claim(stack, P["V"], BAYONNE, WED), "steal")


def test_r28_a_mulligan_back_to_a_disqualified_player_leaves_it_unclaimed_and_set_owner_refuses_them(
        stack: Stack, org: Player, monday: None) -> None:
    """W was disqualified (the previous test) after A4 stole Paterson from W."""
    r = ask(stack, (subjects.CLAIMS_CORRECT, CorrectOwnership(
        command_id=uuid.uuid4().hex, action="set_owner", territory_id=HOBOKEN, player_id=P["W"])))[0]
    no(r, "invalid_target")
    assert owner(stack, HOBOKEN)["owner_id"] == P["V"]
    m = ask(stack, (subjects.CLAIMS_EFFECT_MULLIGAN, MulliganEffect(command_id=uuid.uuid4().hex, player_id=P["A4"],
                                                                    claim_id=STEALS["A4"])))[0]
    assert m["ok"] is True and m["owner_id"] is None, m
    assert {k: owner(stack, PATERSON)[k] for k in ("owner_id", "progress", "fortified")} == \
        {"owner_id": None, "progress": 0, "fortified": False}


def test_r8_7_a_gps_claim_after_a_joker_award_the_same_day_is_already_claimed_today(stack: Stack, org: Player,
                                                                                   monday: None) -> None:
    """Last in the module: the Joker picks an unclaimed territory of the board, from entropy fixed here, so the
    pick is the same every run. (From the random player id it once landed on Paterson, unclaimed again but locked
    today by A4's Mulligan'd steal, R10: there R8's order answers ``locked_today`` (3) before
    ``already_claimed_today`` (7), rightly.)"""
    pid = P["J"]
    award = ask(stack, (subjects.CLAIMS_EFFECT_JOKER, JokerEffect(
        command_id=uuid.uuid4().hex, player_id=pid, mode="random",
        entropy=joker_entropy("s", "2026", "J", "x"))))[0]
    assert award["ok"] is True and award["owner_id"] == pid, award
    tid = award["territory_id"]
    assert tid not in (PATERSON, ELIZABETH, BAYONNE, NEWARK, HOBOKEN)   # none claimed by another player today
    check(claim(stack, pid, tid, WED, check=True), False, "already_claimed_today")
    no(claim(stack, pid, tid, WED), "already_claimed_today")
    assert owner(stack, tid)["owner_id"] == pid and owner(stack, tid)["progress"] == 1
