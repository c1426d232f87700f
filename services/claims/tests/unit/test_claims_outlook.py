"""``claims.outlook`` over the in-memory store: a player's territories with their streak and lock, the
victim's War deadline after a steal (R4, R14), the attacker's reclaim window after the War, and a Freeze (R15)."""

from __future__ import annotations

from datetime import timedelta

from claims_world import DAY1, DAY2, DAY3, DAY4, SEASON, World, accepted, opening, world

from turf_common.contracts.base import Refusal
from turf_common.contracts.effects import EffectApplied, ScheduleEffect, WarEffect
from turf_common.contracts.outlook import ReclaimWindow, WarDeadline
from turf_common.rules import gametime


async def test_outlook_of_a_territory_taken_today_then_its_streak_tomorrow(w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    o = await w.h.outlook.outlook("V")
    assert o.now == w.clock.at and o.war_deadlines == [] and o.reclaim_windows == []
    (t,) = o.territories
    assert (t.id, t.name, t.progress, t.fortified, t.streak, t.claim_day, t.next_progress) == (
        "hoboken", "Hoboken", 1, False, "claimed", DAY1, None)
    assert (t.claimed_today, t.locked_today, t.keeps_streak_today, t.frozen_today) == (True, True, False, False)
    assert (t.claim_opens, t.claim_closes) == gametime.open_interval(SEASON, DAY1)
    assert (t.reclaim_until, t.war_until) == (None, None)
    await w.start(DAY2)
    (t,) = (await w.h.outlook.outlook("V")).territories
    assert (t.streak, t.claim_day, t.next_progress, t.keeps_streak_today) == ("keeps", DAY2, 2, True)
    assert (t.claimed_today, t.locked_today) == (False, False)
    assert (await w.h.outlook.outlook("A")).territories == []


async def test_outlook_war_deadline_after_a_steal_then_reclaim_window_after_the_war(w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    await w.start(DAY2, hours=15)                      # 21:00
    accepted(await w.claim("A", "hoboken"), "steal")
    deadline = opening(DAY3) + timedelta(hours=4)      # R4: 1 game hour tonight, 4 tomorrow
    v = await w.h.outlook.outlook("V")
    assert v.territories == []
    assert v.war_deadlines == [WarDeadline(territory_id="hoboken", name="Hoboken", by="A", stolen_at=w.clock.at,
                                           war_until=deadline, game_hours_left=5.0)]
    (t,) = (await w.h.outlook.outlook("A")).territories
    assert (t.war_by, t.war_until, t.claimed_today) == ("V", deadline, True)
    await w.start(DAY3)                                # 07:00: V plays War
    war = await w.h.effects.war(WarEffect(command_id="war-1", player_id="V", territory_id="hoboken"))
    assert isinstance(war, EffectApplied) and war.reclaim_until == opening(DAY4) + timedelta(hours=1)
    v = await w.h.outlook.outlook("V")
    assert v.war_deadlines == []
    (t,) = v.territories
    assert (t.reclaim_holder_id, t.reclaim_until, t.war_until) == ("A", war.reclaim_until, None)
    a = await w.h.outlook.outlook("A")
    assert a.territories == []
    assert a.reclaim_windows == [ReclaimWindow(territory_id="hoboken", name="Hoboken", owner_id="V",
                                               until=war.reclaim_until, game_hours_left=16.0)]
    w.clock.at = war.reclaim_until                     # the window's end: nothing is open any more
    assert (await w.h.outlook.outlook("A")).reclaim_windows == []


async def test_outlook_a_steal_outside_its_five_game_hours_has_no_deadline(w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    await w.start(DAY2, hours=1)
    accepted(await w.claim("A", "hoboken"), "steal")
    w.clock.at = opening(DAY2) + timedelta(hours=6, milliseconds=1)
    assert (await w.h.outlook.outlook("V")).war_deadlines == []


async def test_outlook_frozen_today(w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    f = await w.h.effects.schedule(ScheduleEffect(command_id="f-1", player_id="V", card_id="card-1", kind="freeze",
                                                  territory_id="hoboken"))
    assert not isinstance(f, Refusal), f
    assert not (await w.h.outlook.outlook("V")).territories[0].frozen_today   # scheduled for tomorrow (R15)
    await w.start(DAY2)
    assert (await w.h.outlook.outlook("V")).territories[0].frozen_today


async def test_outlook_lists_todays_claims_a_mulligan_may_undo() -> None:
    # R19: today's own normal claims still owned; a claim stolen since, or yesterday's, is not offered
    w = await world()
    accepted(await w.claim("V", "hoboken"), "take")
    (m,) = (await w.h.outlook.outlook("V")).mulligan_claims
    assert (m.territory_id, m.name, m.kind, m.at) == ("hoboken", "Hoboken", "take", w.clock.at)
    assert m.claim_id in w.store.state.claims
    await w.start(DAY2)
    assert (await w.h.outlook.outlook("V")).mulligan_claims == []       # yesterday's
    accepted(await w.claim("A", "hoboken"), "steal")
    assert [c.kind for c in (await w.h.outlook.outlook("A")).mulligan_claims] == ["steal"]
    await w.start(DAY3)
    accepted(await w.claim("V", "hoboken"), "steal")
    assert (await w.h.outlook.outlook("A")).mulligan_claims == []       # A no longer owns it
    assert (await w.h.outlook.outlook("V")).mulligan_claims[0].kind == "steal"
