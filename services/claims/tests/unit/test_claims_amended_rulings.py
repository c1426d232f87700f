"""The amended rulings of 2026-12-01 on the claims use cases, without servers (handlers over the in-memory store):
R8.7 (a War reclaim or a Joker award is the claimant's claim of it today), R28 (a disqualification ends the
player's locks and reclaim windows; nothing goes back to a disqualified player; ``set_owner`` never names one) and
R5 (``claims.check`` at the opening instant answers after the day start). Each test names its ruling."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

from claims_world import DAY1, DAY2, DAY3, World, accepted, opening, refused, world

from turf_claims.days import GameDays
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import (
    CheckReply,
    CorrectOwnership,
    OwnershipCorrected,
)
from turf_common.contracts.effects import (
    DoubleTroubleEffect,
    EffectApplied,
    JokerEffect,
    MulliganEffect,
    ScheduleEffect,
    TradeCheck,
    TradeEffect,
    UnscheduleEffect,
    WarEffect,
)
from turf_common.contracts.players import PlayerDisqualified

ENTROPY = "ab" * 32


async def _war_then_reclaim(w: World) -> None:
    """V owns hoboken; A steals it on DAY2 at 21:00; V plays War on DAY3 at 07:00 (2 game hours later); A reclaims
    it at 08:00, so A holds it by a War reclaim today and still has today's standard claim."""
    accepted(await w.claim("V", "hoboken"), "take")
    await w.start(DAY2, opening(DAY2) + timedelta(hours=15))
    accepted(await w.claim("A", "hoboken"), "steal")
    await w.start(DAY3, opening(DAY3) + timedelta(hours=1))
    war = await w.h.effects.war(WarEffect(command_id="war-1", player_id="V", territory_id="hoboken"))
    assert isinstance(war, EffectApplied) and war.owner_id == "V"
    w.clock.at += timedelta(hours=1)
    accepted(await w.claim("A", "hoboken"), "war_reclaim")


async def test_r8_7_a_gps_claim_after_a_war_reclaim_the_same_day_is_already_claimed_today(w: World) -> None:
    await _war_then_reclaim(w)
    assert (await w.h.claims.player("A")).claims_left_today == 1            # the reclaim spent nothing
    check = await w.check("A", "hoboken")
    assert isinstance(check, CheckReply) and (check.allowed, check.reason) == (False, "already_claimed_today")
    refused(await w.claim("A", "hoboken"), "already_claimed_today")
    t = w.store.state.territories["hoboken"]
    assert (t.owner_id, t.progress, t.last_claim_day) == ("A", 1, DAY3)   # the reclaim's state, untouched
    assert (await w.h.claims.player("A")).claims_left_today == 1           # nothing spent


async def test_r8_7_a_gps_claim_after_a_joker_award_the_same_day_is_already_claimed_today(w: World) -> None:
    accepted(await w.claim("B", "jersey"), "take")       # hoboken is the only unclaimed territory left
    award = await w.h.effects.joker(JokerEffect(command_id="joker-1", player_id="A", mode="random",
                                                entropy=ENTROPY))
    assert isinstance(award, EffectApplied) and (award.territory_id, award.owner_id) == ("hoboken", "A")
    check = await w.check("A", "hoboken")
    assert isinstance(check, CheckReply) and (check.allowed, check.reason) == (False, "already_claimed_today")
    refused(await w.claim("A", "hoboken"), "already_claimed_today")
    assert (await w.h.claims.player("A")).claims_left_today == 1
    # the next day the award is yesterday's claim: a reinforce continues the streak (R9, R11)
    await w.start(DAY2)
    r = accepted(await w.claim("A", "hoboken"), "reinforce")
    assert r.progress == 2


async def test_r8_7_r8_order_no_claims_left_comes_before_already_claimed_today(w: World) -> None:
    accepted(await w.claim("A", "jersey"), "take")        # today's one claim spent
    award = await w.h.effects.joker(JokerEffect(command_id="joker-1", player_id="A", mode="random",
                                                entropy=ENTROPY))
    assert isinstance(award, EffectApplied) and award.territory_id == "hoboken"
    refused(await w.claim("A", "hoboken"), "no_claims_left")   # R8.1 first


async def test_r28_a_disqualification_ends_the_players_same_day_lock(w: World) -> None:
    accepted(await w.claim("A", "hoboken"), "take")
    refused(await w.claim("B", "hoboken"), "locked_today")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="A", at=w.clock.at))
    assert w.owner("hoboken") is None
    check = await w.check("B", "hoboken")
    assert isinstance(check, CheckReply) and (check.allowed, check.reason) == (True, None)
    accepted(await w.claim("B", "hoboken"), "take")
    assert w.owner("hoboken") == "B"


async def test_r28_a_disqualification_ends_the_players_reclaim_window(w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    await w.start(DAY2, opening(DAY2) + timedelta(hours=15))
    accepted(await w.claim("A", "hoboken"), "steal")
    await w.start(DAY3, opening(DAY3) + timedelta(hours=1))
    war = await w.h.effects.war(WarEffect(command_id="war-1", player_id="V", territory_id="hoboken"))
    assert isinstance(war, EffectApplied)
    refused(await w.claim("C", "hoboken"), "war_reclaim_window")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="A", at=w.clock.at))
    assert [x.state for x in w.store.state.wars] == ["ended"]
    assert w.owner("hoboken") == "V"                      # V keeps it; normal rules resume
    accepted(await w.claim("C", "hoboken"), "steal")


async def test_r28_r19_a_mulligan_that_would_return_a_territory_to_a_disqualified_player_leaves_it_unclaimed(
        w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    await w.start(DAY2)
    steal = accepted(await w.claim("A", "hoboken"), "steal")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="V", at=w.clock.at))
    assert w.owner("hoboken") == "A"                      # not V's any more: nothing freed
    m = await w.h.effects.mulligan(MulliganEffect(command_id="m-1", player_id="A", claim_id=steal.claim_id))
    assert isinstance(m, EffectApplied) and m.owner_id is None
    t = w.store.state.territories["hoboken"]
    assert (t.owner_id, t.progress, t.last_claim_day, t.fortified) == (None, 0, None, False)


async def test_r28_a_reversal_that_would_return_a_territory_to_a_disqualified_player_leaves_it_unclaimed(
        w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    await w.start(DAY2)
    steal = accepted(await w.claim("A", "hoboken"), "steal")
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="V", at=w.clock.at))
    r = await w.h.corrections.correct(CorrectOwnership(command_id="c-1", action="reverse_claim",
                                                       claim_id=steal.claim_id))
    assert isinstance(r, OwnershipCorrected)
    assert (r.after.owner_id, r.after.progress, r.after.fortified) == (None, 0, False)
    assert w.owner("hoboken") is None


async def test_r28_set_owner_never_names_a_disqualified_player(w: World) -> None:
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="X", at=w.clock.at))
    r = await w.h.corrections.correct(CorrectOwnership(command_id="c-1", action="set_owner",
                                                       territory_id="hoboken", player_id="X"))
    assert isinstance(r, Refusal) and r.reason == "invalid_target"
    assert w.owner("hoboken") is None and w.store.state.territories["hoboken"].version == 0
    ok = await w.h.corrections.correct(CorrectOwnership(command_id="c-2", action="set_owner",
                                                        territory_id="hoboken", player_id="Y"))
    assert isinstance(ok, OwnershipCorrected) and ok.after.owner_id == "Y"


async def _frozen_tomorrow(w: World) -> None:
    """V owns hoboken and has a Freeze on it scheduled for DAY2; the clock at DAY2's opening instant, its day
    start not run yet."""
    accepted(await w.claim("V", "hoboken"), "take")
    f = await w.h.effects.schedule(ScheduleEffect(command_id="f-1", player_id="V", card_id="card-1", kind="freeze",
                                                  territory_id="hoboken"))
    assert isinstance(f, EffectApplied) and f.active_on == DAY2
    w.clock.at = opening(DAY2)


async def test_r5_a_check_at_the_opening_instant_answers_after_the_day_start(w: World) -> None:
    await _frozen_tomorrow(w)
    check = asyncio.create_task(w.check("B", "hoboken"))
    claim = asyncio.create_task(w.claim("B", "hoboken"))
    await asyncio.sleep(0.1)                              # both asked before the day start is done
    assert not check.done() and not claim.done()
    await w.start(DAY2, opening(DAY2))
    c = await check
    assert isinstance(c, CheckReply) and (c.allowed, c.reason) == (False, "frozen")
    refused(await claim, "frozen")


async def test_r5_a_check_or_card_effect_whose_day_start_does_not_come_is_unavailable_and_nothing_is_stored(
        w: World) -> None:
    await _frozen_tomorrow(w)
    w.h.claims.days = w.h.effects.days = GameDays(store=w.store, relay=w.relay, boards=w.h.claims.boards)

    async def no_wait(day: date, timeout: float = 0.05) -> bool:
        return await GameDays.wait_started(w.h.claims.days, day, timeout)

    w.h.claims.days.wait_started = no_wait  # type: ignore[method-assign]
    refused(await w.check("B", "hoboken"), "unavailable")
    cmd = DoubleTroubleEffect(command_id="dt-1", player_id="B")
    refused(await w.h.effects.double_trouble(cmd), "unavailable")
    assert "dt-1" not in w.store.state.commands           # the saga asks again; its answer is not fixed
    await w.start(DAY2, opening(DAY2))
    done = await w.h.effects.double_trouble(cmd)
    assert isinstance(done, EffectApplied) and done.claims_left_today == 2


async def test_r14_while_the_attackers_reclaim_window_is_open_nobody_may_trade_the_territory_away(w: World) -> None:
    accepted(await w.claim("V", "hoboken"), "take")
    accepted(await w.claim("P", "jersey"), "take")
    await w.start(DAY2, opening(DAY2) + timedelta(hours=15))
    accepted(await w.claim("A", "hoboken"), "steal")
    await w.start(DAY3, opening(DAY3) + timedelta(hours=1))
    war = await w.h.effects.war(WarEffect(command_id="war-1", player_id="V", territory_id="hoboken"))
    assert isinstance(war, EffectApplied) and war.owner_id == "V"
    facts = await w.h.effects.trade_check(TradeCheck(offer_territory_id="hoboken", want_territory_id="jersey"))
    assert (facts.offer_owner, facts.offer_in_dispute, facts.want_in_dispute) == ("V", True, False)
    r = await w.h.effects.trade(TradeEffect(command_id="t-1", player_id="P", trade_id="tr-1", proposer_id="V",
                                            offer_territory_id="hoboken", want_territory_id="jersey"))
    refused(r, "territory_in_dispute")
    assert w.owner("hoboken") == "V" and w.owner("jersey") == "P"


async def test_r28_r16_a_disqualification_lapses_the_players_scheduled_cards_and_blockades_against_them_at_once(
) -> None:
    """R28 (amended): the disqualified player's scheduled Freeze and Blockade, and a rival's Blockade scheduled
    against them, lapse at the disqualification (``protection.lapsed``, reason ``disqualified``), not at the next
    day start; a third player's Blockade against someone else stays scheduled."""
    w = await world()
    accepted(await w.claim("X", "hoboken"), "take")
    for n, (pid, kind, terr, rival) in enumerate([("X", "freeze", "hoboken", None), ("X", "blockade", None, "B"),
                                                  ("B", "blockade", None, "X"), ("B", "blockade", None, "C")]):
        s = await w.h.effects.schedule(ScheduleEffect(command_id=f"s-{n}", player_id=pid, card_id=f"card-{n}",
                                                      kind=kind, territory_id=terr, rival_id=rival,
                                                      rival_known=rival is not None))
        assert isinstance(s, EffectApplied), s
    w.relay.sent.clear()
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="X", at=w.clock.at))
    lapsed = [e for s, e in w.relay.sent if s == "protection.lapsed"]
    assert sorted((e.card_id, e.reason) for e in lapsed) == [  # type: ignore[attr-defined]
        ("card-0", "disqualified"), ("card-1", "disqualified"), ("card-2", "disqualified")]
    assert {c: p.state for c, p in w.store.state.protections.items()} == {
        "card-0": "lapsed", "card-1": "lapsed", "card-2": "lapsed", "card-3": "scheduled"}
    w.relay.sent.clear()
    await w.start(DAY2)                                   # the day start resolves only what is left
    resolved = [e.card_id for s, e in w.relay.sent if s.startswith("protection.")]  # type: ignore[attr-defined]
    assert resolved == ["card-3"]


async def test_r28_an_organizers_withdrawal_of_a_scheduled_card_applies_outside_open_hours(w: World) -> None:
    """R28 (amended): ``adjust_hand`` removes a reserved card, withdrawing its schedule, at any hour; a player's own
    cancellation at night is still ``game_closed`` (R3)."""
    accepted(await w.claim("V", "hoboken"), "take")
    s = await w.h.effects.schedule(ScheduleEffect(command_id="f-1", player_id="V", card_id="card-1",
                                                  kind="freeze", territory_id="hoboken"))
    assert isinstance(s, EffectApplied)
    w.clock.at = opening(DAY1) + timedelta(hours=17)          # 23:00: closed
    mine = await w.h.effects.unschedule(UnscheduleEffect(command_id="u-1", player_id="V", card_id="card-1"))
    assert isinstance(mine, Refusal) and mine.reason == "game_closed"
    org = await w.h.effects.unschedule(UnscheduleEffect(command_id="u-2", player_id="V", card_id="card-1",
                                                        correction=True))
    assert isinstance(org, EffectApplied) and org.kind == "unschedule_freeze"
    assert w.store.state.protections["card-1"].state == "cancelled"


async def test_r28_r14_a_disqualified_victims_war_window_no_longer_keeps_the_attacker_from_trading(w: World) -> None:
    """R28 (amended): the victim's open War window stops the attacker trading the territory (R14) only while the
    victim may still play War; once the victim is disqualified it holds nothing over the attacker."""
    accepted(await w.claim("V", "hoboken"), "take")
    accepted(await w.claim("P", "jersey"), "take")
    await w.start(DAY2)
    accepted(await w.claim("A", "hoboken"), "steal")
    q = TradeCheck(offer_territory_id="hoboken", want_territory_id="jersey")
    assert (await w.h.effects.trade_check(q)).offer_in_dispute is True
    await w.h.on_event(PlayerDisqualified(occurred_at=w.clock.at, player_id="V", at=w.clock.at))
    assert (await w.h.effects.trade_check(q)).offer_in_dispute is False
    r = await w.h.effects.trade(TradeEffect(command_id="t-1", player_id="P", trade_id="tr-1", proposer_id="A",
                                            offer_territory_id="hoboken", want_territory_id="jersey"))
    assert isinstance(r, EffectApplied)
    assert (w.owner("hoboken"), w.owner("jersey")) == ("P", "A")
