"""The pure rules of the notify service: who is told what, the War deadlines in game hours (R4, R14), quiet hours
and grouping of pushes, and the Discord lines."""

from __future__ import annotations

from datetime import datetime

from notify_world import HOBOKEN, JERSEY_CITY, SEASON, TOWNS, at

from turf_common.contracts.cards import TradeEvent
from turf_common.contracts.claims import ClaimAccepted, TerritoryChanged
from turf_common.contracts.clock import DayClosed
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
    assert d.message == "alice stole Hoboken from you. You may play War until Mon 10:00 (5 game hours)."


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
    assert (title, body) == ("Turf War", "2 of your towns were stolen. Play War within 5 game hours.\nz")
    assert rules.push_text([("territory_stolen", "x")]) == ("Territory stolen", "x")


def test_the_day_close_posts_the_standings_by_display_name_only() -> None:
    ev = DayClosed(occurred_at=at("2026-10-05T22:00:00-04:00"), at=at("2026-10-05T22:00:00-04:00"),
                   game_day=at("2026-10-05T22:00:00-04:00").date(), game_day_number=1, week=1, season_id="2026")
    assert rules.commentary(ev, NAMES, {"a": 3, "v": 5}) == (
        "🌙 Day 1 is closed. Standings:\n1. victor — 5 pts\n2. alice — 3 pts")
