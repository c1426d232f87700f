"""The play page's countdowns as pure rules: the game day a claim counts on (R2, R3), the fortification streak (R9, R11,
R8.7) and the victim's War deadline (R4, R14)."""

from __future__ import annotations

from datetime import date, datetime

from turf_common.rules import gametime
from turf_common.rules.cards import TakeRecord
from turf_common.rules.claims import Fortification
from turf_common.rules.outlook import Streak, claim_day, latest_war_play, streak, war_deadline

CFG = gametime.load_season()
MON, TUE, WED = date(2026, 10, 5), date(2026, 10, 6), date(2026, 10, 7)


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


def test_claim_day_is_today_until_its_close_then_the_next_game_day() -> None:
    assert claim_day(CFG, at("2026-10-05T05:00:00-04:00")) == MON          # before the opening: today
    assert claim_day(CFG, at("2026-10-05T21:59:59-04:00")) == MON
    assert claim_day(CFG, at("2026-10-05T22:00:00-04:00")) == TUE          # R3: the close is exclusive
    assert claim_day(CFG, at("2026-10-10T22:30:00-04:00")) == date(2026, 10, 12)   # R2: Saturday → Monday
    assert claim_day(CFG, at("2026-10-11T12:00:00-04:00")) == date(2026, 10, 12)   # Sunday
    assert claim_day(CFG, at("2026-10-24T22:00:00-04:00")) is None         # the season has closed


def test_streak_keeps_when_the_last_claim_was_the_previous_game_day() -> None:
    s = streak(CFG, at("2026-10-06T10:00:00-04:00"), Fortification(1, MON, False), claimed_today=False)
    assert s == Streak("keeps", TUE, at("2026-10-06T06:00:00-04:00"), at("2026-10-06T22:00:00-04:00"), 2)


def test_streak_restarts_after_a_missed_day_and_over_a_sunday_keeps() -> None:
    assert streak(CFG, at("2026-10-07T10:00:00-04:00"), Fortification(2, MON, False), False).state == "restarts"
    assert streak(CFG, at("2026-10-07T10:00:00-04:00"), Fortification(2, MON, False), False).next_progress == 1
    sat = Fortification(2, date(2026, 10, 10), False)
    s = streak(CFG, at("2026-10-11T12:00:00-04:00"), sat, False)   # Sunday: Monday's claim counts (R2)
    assert (s.state, s.claim_day, s.next_progress) == ("keeps", date(2026, 10, 12), 3)


def test_streak_claimed_today_then_after_the_close_it_looks_at_tomorrow() -> None:
    fort = Fortification(2, TUE, False)
    assert streak(CFG, at("2026-10-06T12:00:00-04:00"), fort, claimed_today=True) == Streak(
        "claimed", TUE, at("2026-10-06T06:00:00-04:00"), at("2026-10-06T22:00:00-04:00"), None)
    s = streak(CFG, at("2026-10-06T22:00:00-04:00"), fort, claimed_today=True)
    assert (s.state, s.claim_day, s.next_progress) == ("keeps", WED, 3)


def test_r10_r9_a_town_another_player_claimed_today_counts_its_streak_on_the_next_game_day() -> None:
    """After a correction gives me a town another player claimed this Monday (R10 locks it to me too, R11: that
    claim's day is the town's), my next claim is Tuesday's and continues the streak: not "broken, restarts at 1/3"."""
    corrected = Fortification(1, MON, False)
    s = streak(CFG, at("2026-10-05T12:00:00-04:00"), corrected, claimed_today=False, locked_by_other=True)
    assert s == Streak("keeps", TUE, at("2026-10-06T06:00:00-04:00"), at("2026-10-06T22:00:00-04:00"), 2)
    # not locked: today's claim would restart it (the last claim day is today's, not the previous game day's)
    assert streak(CFG, at("2026-10-05T12:00:00-04:00"), corrected, claimed_today=False).state == "restarts"


def test_streak_of_a_fortified_territory_and_after_the_season() -> None:
    assert streak(CFG, at("2026-10-06T12:00:00-04:00"), Fortification(3, TUE, True), True).state == "fortified"
    assert streak(CFG, at("2026-10-25T12:00:00-04:00"), Fortification(1, date(2026, 10, 24)), False) == Streak(
        "over", None, None, None, None)


def steal(s: str, undone: bool = False, kind: str = "steal") -> TakeRecord:
    return TakeRecord("c1", kind, "A", "V", at(s), undone=undone)  # type: ignore[arg-type]


def test_war_deadline_is_5_game_hours_after_the_steal_across_a_sunday() -> None:
    st = steal("2026-10-10T21:00:00-04:00")
    assert war_deadline(CFG, at("2026-10-12T09:00:00-04:00"), st, "V", "A") == at("2026-10-12T10:00:00-04:00")
    assert war_deadline(CFG, at("2026-10-12T10:00:00-04:00"), st, "V", "A") == at("2026-10-12T10:00:00-04:00")
    assert war_deadline(CFG, at("2026-10-12T10:00:00.001-04:00"), st, "V", "A") is None


def test_war_deadline_none_when_war_does_not_apply() -> None:
    now = at("2026-10-10T21:30:00-04:00")
    assert war_deadline(CFG, now, steal("2026-10-10T21:00:00-04:00", undone=True), "V", "A") is None
    assert war_deadline(CFG, now, steal("2026-10-10T21:00:00-04:00"), "V", "C") is None   # A no longer owns it
    assert war_deadline(CFG, now, steal("2026-10-10T21:00:00-04:00"), "W", "A") is None   # not W's territory
    assert war_deadline(CFG, now, steal("2026-10-10T21:00:00-04:00", kind="war_reclaim"), "V", "A") is None
    assert war_deadline(CFG, now, None, "V", "A") is None


def test_war_deadline_ends_where_the_reclaim_window_would_pass_the_seasons_close() -> None:
    assert latest_war_play(CFG) == at("2026-10-24T06:00:00-04:00")   # Saturday 06:00 + 16 game hours = the close
    st = steal("2026-10-23T21:00:00-04:00")                          # + 5 game hours = Saturday 10:00
    assert war_deadline(CFG, at("2026-10-23T21:30:00-04:00"), st, "V", "A") == at("2026-10-24T06:00:00-04:00")
    assert war_deadline(CFG, at("2026-10-24T06:30:00-04:00"), st, "V", "A") is None
