"""The pure rules of the notify service: who is told what, the War deadlines in game hours (R4, R14), quiet hours
and grouping of pushes, and the Discord lines."""

from __future__ import annotations

from datetime import datetime

from notify_world import HOBOKEN, JERSEY_CITY, SEASON, TOWNS, at

from turf_common.contracts.cards import TradeEvent
from turf_common.contracts.claims import ClaimAccepted, TerritoryChanged
from turf_common.contracts.clock import DayClosed
from turf_common.contracts.players import PlayerVerified
from turf_notify import rules
from turf_notify.handlers import TableNames

NAMES = TableNames({"a": "alice", "v": "victor"}, TOWNS)


def steal(when: datetime, kind: str = "steal", progress: int = 1) -> ClaimAccepted:
    return ClaimAccepted(occurred_at=when, claim_id="c1", player_id="a", territory_id=HOBOKEN, kind=kind,  # type: ignore[arg-type]
                         game_day=when.date(), progress=progress, fortified=progress == 3,
                         previous_owner_id="v" if kind == "steal" else None, lat=40.74, lon=-74.03,
                         accuracy_m=10, border_distance_m=None)


def test_r4_r14_a_saturday_steal_gives_the_victim_until_monday_10() -> None:
    (d,) = rules.notifications(steal(at("2026-10-10T21:00:00-04:00")), NAMES, SEASON)
    assert d.player_id == "v" and d.kind == "territory_stolen"
    assert d.data == {"territory_id": HOBOKEN, "by": "a", "war_until": "2026-10-12T10:00:00-04:00"}
    # notify does not know the hand, so neither the message nor its push advises playing a card
    assert "play war" not in d.message.lower()
    assert "play war" not in rules.push_text([("territory_stolen", d.message)] * 2)[1].lower()
    assert d.message == ("alice stole Hoboken from you. A War card would let you take it back until Mon 10:00 "
                         "(5 game hours).")


def test_r14_war_tells_the_attacker_the_16_game_hour_reclaim_deadline() -> None:
    ev = TerritoryChanged(occurred_at=at("2026-10-12T10:00:00-04:00"), territory_id=HOBOKEN, owner_id="v",
                          previous_owner_id="a", progress=1, fortified=False, version=3, cause="war")
    (d,) = rules.notifications(ev, NAMES, SEASON)
    assert (d.player_id, d.kind) == ("a", "war_declared")
    assert d.data == {"territory_id": HOBOKEN, "by": "v", "reclaim_until": "2026-10-13T10:00:00-04:00"}
    assert rules.reminder_due(SEASON, ev.occurred_at) == at("2026-10-13T09:00:00-04:00")
    assert rules.commentary(ev, NAMES) is not None and "victor played War" in rules.commentary(ev, NAMES)  # type: ignore[operator]


def test_r11_only_the_reinforce_that_fortifies_tells_the_owner() -> None:
    assert rules.notifications(steal(at("2026-10-07T12:00:00-04:00"), "reinforce", 2), NAMES, SEASON) == []
    (d,) = rules.notifications(steal(at("2026-10-07T12:00:00-04:00"), "reinforce", 3), NAMES, SEASON)
    assert (d.player_id, d.kind, d.data) == ("a", "fortified", {"territory_id": HOBOKEN})


def test_r18_trades_tell_the_other_party_and_a_withdrawal_only_the_partner() -> None:
    def ev(kind: str, reason: str | None = None) -> TradeEvent:
        state = {"proposed": "open"}.get(kind.split(".")[1], kind.split(".")[1])
        return TradeEvent(occurred_at=at("2026-10-07T12:00:00-04:00"), type=kind, trade_id="t1",  # type: ignore[arg-type]
                          proposer_id="a", partner_id="v", offer_territory_id=HOBOKEN,
                          want_territory_id=JERSEY_CITY, state=state, reason=reason,  # type: ignore[arg-type]
                          at=at("2026-10-07T12:00:00-04:00"))
    told = {k: [(d.player_id, d.kind) for d in rules.notifications(ev(k, r), NAMES, SEASON)]
            for k, r in (("trade.proposed", None), ("trade.accepted", None), ("trade.declined", None))}
    assert told == {"trade.proposed": [("v", "trade_proposed")], "trade.accepted": [("a", "trade_accepted")],
                    "trade.declined": [("a", "trade_declined")]}
    assert [d.player_id for d in rules.notifications(ev("trade.cancelled", "withdrawn"), NAMES, SEASON)] == ["v"]
    assert [d.player_id for d in rules.notifications(ev("trade.cancelled", "territory_lost"), NAMES, SEASON)] == [
        "a", "v"]
    assert rules.notifications(ev("trade.proposed"), NAMES, SEASON)[0].message == \
        "alice offers you Hoboken for your Jersey City."


def test_quiet_hours_hold_a_push_until_the_next_opening_unless_it_is_an_announcement() -> None:
    sunday = at("2026-10-11T12:00:00-04:00")
    assert rules.push_not_before(SEASON, "territory_stolen", sunday) == at("2026-10-12T06:00:00-04:00")
    assert rules.push_not_before(SEASON, "announcement", sunday) == sunday
    open_ = at("2026-10-12T12:00:00-04:00")
    assert rules.push_not_before(SEASON, "territory_stolen", open_) == open_


def test_several_steals_make_one_push_line() -> None:
    title, body = rules.push_text([("territory_stolen", "x"), ("territory_stolen", "y"), ("trade_proposed", "z")])
    assert (title, body) == ("Turf War", "2 of your towns were stolen. A War card would let you take one back within "
                                         "5 game hours.\nz")
    assert rules.push_text([("territory_stolen", "x")]) == ("Territory stolen", "x")


def test_the_day_close_posts_the_standings_by_display_name_only() -> None:
    ev = DayClosed(occurred_at=at("2026-10-05T22:00:00-04:00"), at=at("2026-10-05T22:00:00-04:00"),
                   game_day=at("2026-10-05T22:00:00-04:00").date(), game_day_number=1, week=1, season_id="2026")
    assert rules.commentary(ev, NAMES, {"a": 3, "v": 5}) == (
        "🌙 Day 1 is closed. Standings:\n1. victor — 5 pts\n2. alice — 3 pts")


def test_r15_r16_protections_r12_deals_and_r28_corrections_tell_their_player() -> None:
    from datetime import date

    from turf_common.contracts.cards import HandsDealt
    from turf_common.contracts.effects import ProtectionResolved
    from turf_common.contracts.players import CorrectionApplied

    t = at("2026-10-06T06:00:00-04:00")
    freeze = ProtectionResolved(occurred_at=t, type="protection.activated", card_id="k1", player_id="a",
                                kind="freeze", day=date(2026, 10, 6), territory_id=HOBOKEN, state="active")
    (d,) = rules.notifications(freeze, NAMES, SEASON)
    assert (d.player_id, d.kind, d.message) == ("a", "protection_active", "Your Freeze on Hoboken is active today.")
    lapsed = ProtectionResolved(occurred_at=t, type="protection.lapsed", card_id="k2", player_id="a",
                                kind="blockade", day=date(2026, 10, 6), rival_id="v", state="lapsed",
                                reason="disqualified")
    (d,) = rules.notifications(lapsed, NAMES, SEASON)
    assert (d.kind, d.message) == ("protection_lapsed", "Your Blockade against victor lapsed (a party was "
                                                        "disqualified); the card is back in your hand.")
    dealt = HandsDealt(occurred_at=t, season_id="2026", game_day=date(2026, 10, 6), reason="day_start",
                       hands={"a": 2, "v": 3}, draws={"a": 1, "v": 0})
    assert [(x.player_id, x.kind, x.data) for x in rules.notifications(dealt, NAMES, SEASON)] == [
        ("a", "cards_dealt", {"count": 1, "game_day": "2026-10-06"})]
    corr = CorrectionApplied(occurred_at=t, correction_id="c1", at=t, action="set_owner", territory_id=HOBOKEN,
                             player_id="v", reason="GPS glitch")
    (d,) = rules.notifications(corr, NAMES, SEASON)
    assert (d.player_id, d.kind, d.message) == (
        "v", "correction", "The organizer made a correction that concerns you (Hoboken): GPS glitch")
    assert rules.notifications(corr.model_copy(update={"player_id": None}), NAMES, SEASON) == []


def test_the_final_results_post_names_places_and_prizes() -> None:
    from turf_common.contracts.scoring import FinalResults, FinalStanding, SeasonFinalResults

    ev = SeasonFinalResults(occurred_at=at("2026-10-24T22:00:00-04:00"), results=FinalResults(standings=[
        FinalStanding(place=1, player_id="v", base=10, bonuses=2, total=12, prize="100.00"),
        FinalStanding(place=2, player_id="a", base=5, bonuses=0, total=5, prize="0.00")]))
    assert rules.commentary(ev, NAMES) == ("🏆 The season is over. Final results:\n1. victor — 12 pts, $100.00\n"
                                           "2. alice — 5 pts, $0.00")


def test_r15_a_freeze_lapsed_for_a_lost_territory_says_so_in_words() -> None:
    from datetime import date

    from turf_common.contracts.effects import ProtectionResolved

    lapsed = ProtectionResolved(occurred_at=at("2026-10-07T06:00:00-04:00"), type="protection.lapsed",
                                card_id="k3", player_id="a", kind="freeze", day=date(2026, 10, 7),
                                territory_id=HOBOKEN, state="lapsed", reason="not_owner")
    (d,) = rules.notifications(lapsed, NAMES, SEASON)
    assert (d.player_id, d.kind, d.data["reason"]) == ("a", "protection_lapsed", "not_owner")
    assert d.message == ("Your Freeze on Hoboken lapsed (the territory was no longer yours); the card is back in "
                         "your hand.")


def test_r28_a_correction_taking_a_territory_away_tells_its_previous_owner() -> None:
    """``correction.applied`` names one player (set_owner's new owner, none for reverse_claim): the player whose
    territory the correction took is told from the correction's ``territory.changed``."""
    moved = TerritoryChanged(occurred_at=at("2026-10-08T09:00:00-04:00"), territory_id=HOBOKEN, owner_id="a",
                             previous_owner_id="v", progress=1, fortified=False, version=4, cause="correction")
    (d,) = rules.notifications(moved, NAMES, SEASON)
    assert (d.player_id, d.kind, d.at, d.data) == (
        "v", "correction", moved.occurred_at,
        {"correction_id": None, "action": "set_owner", "territory_id": HOBOKEN})
    assert d.message == "The organizer made a correction that concerns you: Hoboken is no longer yours (now alice's)."
    undone = moved.model_copy(update={"owner_id": None, "claim_id": "c9"})   # a reversed take: open land again
    (d,) = rules.notifications(undone, NAMES, SEASON)
    assert (d.player_id, d.data["action"], d.message) == (
        "v", "reverse_claim", "The organizer made a correction that concerns you: Hoboken is no longer yours "
                              "(open land again).")
    assert rules.notifications(moved.model_copy(update={"previous_owner_id": None}), NAMES, SEASON) == []
    assert rules.notifications(moved.model_copy(update={"previous_owner_id": "a"}), NAMES, SEASON) == []
    assert rules.notifications(moved.model_copy(update={"cause": "trade"}), NAMES, SEASON) == []


def test_events_that_tell_nobody_anything_are_passed_over_and_no_other() -> None:
    """rules.matters: a plain take, a reinforcement short of fortification (R11) and a claim's territory.changed
    neither notify, post nor store anything; a steal (R14), a fortification, a War reclaim (its reminder is
    dropped), a War and a correction (R28) do. Checked against notifications() and commentary() themselves."""
    when = at("2026-10-07T12:00:00-04:00")

    def change(cause: str) -> TerritoryChanged:
        return TerritoryChanged(occurred_at=when, territory_id=HOBOKEN, owner_id="a", previous_owner_id="v",
                                progress=1, fortified=False, version=2, cause=cause)  # type: ignore[arg-type]

    quiet = [steal(when, "take"), steal(when, "reinforce", 2), change("claim"), change("war_reclaim")]
    loud = [steal(when), steal(when, "reinforce", 3), steal(when, "war_reclaim"), change("war"),
            change("correction")]
    assert [rules.matters(ev) for ev in quiet] == [False] * 4
    assert [rules.matters(ev) for ev in loud] == [True] * 5
    for ev in quiet:   # what is passed over would have made nothing
        assert rules.notifications(ev, NAMES, SEASON) == [] and rules.commentary(ev, NAMES) is None


def test_r27_a_verified_player_is_told_they_can_play() -> None:
    ev = PlayerVerified(occurred_at=at("2026-10-05T09:00:00-04:00"), player_id="a", at=at("2026-10-05T09:00:00-04:00"),
                        display_name="alice")
    (d,) = rules.notifications(ev, NAMES, SEASON)
    assert (d.player_id, d.kind, d.message) == ("a", "verified", "You are verified: you can claim towns and play cards "
                                                                 "now.")
