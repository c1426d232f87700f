"""The card effects of the claims service through NATS — each idempotent by command id, refusals with the
rule code, and R8's card facts (War reclaim window) wired into claims.submit."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import Any

import pytest

from tests.support.bus import request, submit_cmd
from tests.support.client import Player, move_clock
from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.effects import DoubleTroubleEffect, JokerEffect, WarEffect
from turf_common.rules.cards import joker_entropy
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
T1 = datetime.fromisoformat("2026-10-05T08:00:00-04:00")


@pytest.fixture(scope="module")
def opened(org: Player) -> datetime:
    move_clock(org, T0)
    return T0


def ask(stack: Stack, *calls: tuple[str, Message]) -> list[dict[str, Any]]:
    import nats

    async def go() -> list[dict[str, Any]]:
        nc = await nats.connect(stack.env["TURF_NATS_URL"])
        try:
            return [await request(nc, s, m.model_dump_json().encode()) for s, m in calls]
        finally:
            await nc.close()

    return asyncio.run(go())


def test_effects_are_idempotent_by_command_id(stack: Stack, opened: datetime) -> None:
    p = uuid.uuid4().hex
    cmd = DoubleTroubleEffect(command_id=uuid.uuid4().hex, player_id=p)
    dt = subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE
    first, again = ask(stack, (dt, cmd), (dt, cmd))
    assert first["ok"] is True and first["claims_left_today"] == 2
    assert again == first
    (second,) = ask(stack, (subjects.CLAIMS_EFFECT_DOUBLE_TROUBLE,
                            DoubleTroubleEffect(command_id=uuid.uuid4().hex, player_id=p)))
    assert second["ok"] is False and second["reason"] == "already_played_today"
    player = ask(stack, (subjects.CLAIMS_PLAYER, _player(p)))[0]
    assert player["claims_left_today"] == 2


def _player(pid: str) -> Message:
    from turf_common.contracts.claims import PlayerRequest
    return PlayerRequest(player_id=pid)


def test_war_returns_the_territory_and_only_the_attacker_may_reclaim(stack: Stack, org: Player,
                                                                     opened: datetime) -> None:
    victim, attacker, other = (uuid.uuid4().hex for _ in range(3))
    tid = "3403921000"  # Elizabeth
    r = ask(stack, (subjects.CLAIMS_SUBMIT, submit_cmd(victim, tid, opened)))[0]
    assert r["ok"] is True
    move_clock(org, datetime.fromisoformat("2026-10-06T07:00:00-04:00"))
    now = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
    r = ask(stack, (subjects.CLAIMS_SUBMIT, submit_cmd(attacker, tid, now)))[0]
    assert r["ok"] is True and r["kind"] == "steal"
    war = WarEffect(command_id=uuid.uuid4().hex, player_id=victim, territory_id=tid)
    w1, w2 = ask(stack, (subjects.CLAIMS_EFFECT_WAR, war), (subjects.CLAIMS_EFFECT_WAR, war))
    assert w1["ok"] is True and w1 == w2
    assert (w1["territory_id"], w1["owner_id"]) == (tid, victim)
    assert w1["reclaim_until"].startswith("2026-10-07T07:00:00")
    state = ask(stack, (subjects.CLAIMS_STATE, _state(tid)))[0]["territories"][0]
    assert (state["owner_id"], state["progress"]) == (victim, 1)
    # a second War on the same steal: it was reversed
    again = ask(stack, (subjects.CLAIMS_EFFECT_WAR, WarEffect(command_id=uuid.uuid4().hex, player_id=victim,
                                                             territory_id=tid)))[0]
    assert again["reason"] == "war_not_applicable"
    # R8.2: the window belongs to the attacker; the owner and others are refused
    assert ask(stack, (subjects.CLAIMS_SUBMIT, submit_cmd(other, tid, now)))[0]["reason"] == "war_reclaim_window"
    r = ask(stack, (subjects.CLAIMS_SUBMIT, submit_cmd(attacker, tid, now)))[0]
    assert r["ok"] is True and r["kind"] == "war_reclaim" and r["progress"] == 1


def _state(tid: str) -> Message:
    from turf_common.contracts.claims import StateRequest
    return StateRequest(territory_id=tid)


def test_joker_awards_an_unclaimed_territory_once(stack: Stack, opened: datetime) -> None:
    p = uuid.uuid4().hex
    cmd = JokerEffect(command_id=uuid.uuid4().hex, player_id=p, mode="random",
                      entropy=joker_entropy("s", "2026", p, "x"))
    a, b = ask(stack, (subjects.CLAIMS_EFFECT_JOKER, cmd), (subjects.CLAIMS_EFFECT_JOKER, cmd))
    assert a["ok"] is True and a == b and a["joker"]["territory_id"] == a["territory_id"]
    owned = [x for x in ask(stack, (subjects.CLAIMS_STATE, _state_all()))[0]["territories"] if x["owner_id"] == p]
    assert [x["id"] for x in owned] == [a["territory_id"]] and owned[0]["progress"] == 1


def _state_all() -> Message:
    from turf_common.contracts.claims import StateRequest
    return StateRequest()


