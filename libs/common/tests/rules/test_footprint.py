"""A player's season from the public changes (turf_common.rules.footprint): footprint, holds, best steal, rival,
claims by hour; and a player's medals need only the changes that name the player."""

from __future__ import annotations

from medals_support import BOARD, SEASON, SMALL, ch, ny

from turf_common.rules.footprint import Hold, Steal, season_of
from turf_common.rules.medals import Change, compute

UNTIL = ny("2026-10-24 23:00")

SEASON_OF_P = [
    ch("2026-10-05 07:00", "a", "p", None),
    ch("2026-10-05 08:00", "b", "q", None),
    ch("2026-10-06 09:00", "b", "p", "q"),                       # p steals b from q
    ch("2026-10-06 10:00", "c", "r", None),
    ch("2026-10-07 06:00:30", "c", "p", "r"),                    # p steals c from r
    ch("2026-10-07 12:00", "c", "r", "p", cause="war"),          # r's War: c back to r
    ch("2026-10-08 07:00", "a", "q", "p"),                       # q steals a from p
    ch("2026-10-08 08:00", "b", "p", "p"),                       # p reinforces b
    ch("2026-10-09 13:00", "d", "q", None),
]


def test_r9_the_footprint_marks_each_town_held_now_or_lost_with_its_claims() -> None:
    s = season_of("p", SEASON_OF_P, SEASON, UNTIL)
    assert {t: (x.status, x.claims, x.lost) for t, x in s.towns.items()} == {
        "a": ("lost", 1, 1), "b": ("held", 2, 0), "c": ("lost", 1, 1)}
    assert s.held_now == 1


def test_r2_holds_count_game_day_closes_and_a_reinforce_keeps_the_hold() -> None:
    s = season_of("p", SEASON_OF_P, SEASON, ny("2026-10-10 23:00"))
    assert s.holds == [Hold("a", ny("2026-10-05 07:00"), ny("2026-10-08 07:00"), 3),
                       Hold("b", ny("2026-10-06 09:00"), None, 5),
                       Hold("c", ny("2026-10-07 06:00:30"), ny("2026-10-07 12:00"), 0)]
    assert s.longest_hold == Hold("b", ny("2026-10-06 09:00"), None, 5)


def test_r9_r14_best_steal_is_the_one_held_longest_and_the_rival_is_fought_most() -> None:
    s = season_of("p", SEASON_OF_P, SEASON, ny("2026-10-10 23:00"))
    assert s.best_steal == Steal("b", ny("2026-10-06 09:00"), "q", 5)
    assert dict(s.steals_given) == {"q": 1, "r": 1} and dict(s.steals_taken) == {"q": 1}
    assert s.rival == "q"   # one steal each way with q, one with r


def test_r1_claims_by_hour_count_gps_claims_in_the_season_zone() -> None:
    s = season_of("p", SEASON_OF_P, SEASON, UNTIL)
    assert dict(s.claims_by_hour) == {7: 1, 9: 1, 6: 1, 8: 1}


def test_a_players_medals_need_only_the_changes_that_name_the_player() -> None:
    everyone = compute(SEASON_OF_P, SMALL, BOARD, SEASON, UNTIL).values
    for p in ("p", "q", "r"):
        own: list[Change] = [c for c in SEASON_OF_P if p in (c.owner_id, c.previous_owner_id)]
        assert compute(own, SMALL, BOARD, SEASON, UNTIL).values[p] == everyone[p]
    assert everyone["r"]["avenger"] == 1 and everyone["p"]["early_bird"] == 1


def test_a_player_named_by_no_change_has_an_empty_season() -> None:
    s = season_of("z", SEASON_OF_P, SEASON, UNTIL)
    assert (s.towns, s.holds, s.rival, s.best_steal) == ({}, [], None, None)
