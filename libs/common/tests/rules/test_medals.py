"""Medals recomputed from the public history (turf_common.rules.medals): each medal's count, the tier and the
instant it was earned, on the small board of medals_support."""

from __future__ import annotations

import json

import pytest
from medals_support import BOARD, SEASON, SMALL, ch, ny

from turf_common.rules.medals import TIERS, Award, Change, MedalSet, change_of, compute


def values(changes: list[Change], until: str = "2026-10-24 23:00") -> dict[str, dict[str, int]]:
    return compute(changes, SMALL, BOARD, SEASON, ny(until)).values


def test_the_season_file_defines_every_medal_with_four_increasing_tiers() -> None:
    ms = MedalSet.load()
    assert ms.version == 1
    assert [m.id for m in ms.medals] == ["explorer", "cartographer", "raider", "builder", "landlord", "avenger",
                                         "early_bird", "empire"]
    assert all(len(m.thresholds) == len(TIERS) and list(m.thresholds) == sorted(set(m.thresholds))
               for m in ms.medals)


@pytest.mark.parametrize("bad", [
    {"version": 1, "medals": [{"id": "explorer", "name": "E", "counts": "x", "thresholds": [3, 3, 4, 5]}]},
    {"version": 1, "medals": [{"id": "explorer", "name": "E", "counts": "x", "thresholds": [1, 2, 3]}]},
    {"version": 1, "medals": [{"id": "explorer", "name": "E", "counts": "x", "thresholds": [0, 2, 3, 4]}]},
    {"version": 1, "medals": [{"id": "sailor", "name": "S", "counts": "x", "thresholds": [1, 2, 3, 4]}]},
])
def test_a_medal_file_with_bad_thresholds_or_an_unknown_medal_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="medals"):
        MedalSet.parse(bad)


def test_r9_explorer_counts_towns_ever_held_once_each() -> None:
    got = values([ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-05 08:00", "a", "q", "p"),
                  ch("2026-10-06 07:00", "a", "p", "q"), ch("2026-10-06 08:00", "d", "p", None, cause="joker")])
    assert got["p"]["explorer"] == 2 and got["q"]["explorer"] == 1


def test_r7_cartographer_counts_counties_of_gps_claims_not_joker_or_trade_awards() -> None:
    got = values([ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-05 08:00", "b", "p", None),
                  ch("2026-10-06 08:00", "d", "p", None, cause="joker"),
                  ch("2026-10-06 09:00", "e", "p", "q", cause="trade")])
    assert got["p"]["cartographer"] == 1   # Hudson only: Bergen came by Joker (R20) and Trade (R18), no fix


def test_r9_r14_raider_counts_steals_and_war_reclaims_not_takes_or_wars() -> None:
    got = values([ch("2026-10-05 07:00", "a", "v", None), ch("2026-10-05 08:00", "a", "p", "v"),
                  ch("2026-10-05 09:00", "a", "v", "p", cause="war"),
                  ch("2026-10-05 10:00", "a", "p", "v", cause="war_reclaim"),
                  ch("2026-10-05 11:00", "b", "p", None)])
    assert got["p"]["raider"] == 2
    assert got["v"]["raider"] == 0


def test_r11_builder_counts_each_town_fortified_by_its_owner() -> None:
    got = values([ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-06 07:00", "a", "p", "p"),
                  ch("2026-10-07 07:00", "a", "p", "p", fortified=True),
                  ch("2026-10-08 07:00", "a", "q", "p", cause="trade", fortified=True)])
    assert got["p"]["builder"] == 1
    assert got["q"]["builder"] == 0   # R18: the fortification travelled with the trade, q built nothing


def test_r2_landlord_counts_game_day_closes_a_town_was_held_through_without_a_break() -> None:
    changes = [ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-06 07:00", "a", "p", "p"),
               # Saturday 10th is held through; Sunday is no game day (R2); lost Monday 12th at noon
               ch("2026-10-12 12:00", "a", "q", "p"), ch("2026-10-12 13:00", "b", "p", None)]
    got = values(changes, until="2026-10-13 12:00")
    assert got["p"]["landlord"] == 6   # 5th … 10th
    assert got["q"]["landlord"] == 1   # 12th's close


def test_r14_avenger_counts_a_war_won_once_the_reclaim_window_ran_out_unused() -> None:
    war = [ch("2026-10-05 07:00", "a", "v", None), ch("2026-10-05 08:00", "a", "p", "v"),
           ch("2026-10-05 09:00", "a", "v", "p", cause="war")]
    # 16 game hours from Monday 09:00 end Tuesday 09:00 (R4)
    assert values(war, until="2026-10-06 08:59")["v"]["avenger"] == 0
    result = compute(war, SMALL, BOARD, SEASON, ny("2026-10-06 09:00"))
    assert result.values["v"]["avenger"] == 1
    assert Award("v", "avenger", "bronze", 1, ny("2026-10-06 09:00")) in result.awards
    reclaimed = [*war, ch("2026-10-05 20:00", "a", "p", "v", cause="war_reclaim")]
    assert values(reclaimed)["v"]["avenger"] == 0


def test_r3_early_bird_counts_gps_claims_in_the_opening_minute() -> None:
    got = values([ch("2026-10-05 06:00", "a", "p", None), ch("2026-10-06 06:00:59", "b", "p", None),
                  ch("2026-10-07 06:01", "c", "p", None),
                  ch("2026-10-08 06:00:10", "d", "p", None, cause="joker")])
    assert got["p"]["early_bird"] == 2


def test_r22_r23_empire_is_the_largest_cluster_ever_held() -> None:
    got = values([ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-05 07:10", "b", "p", None),
                  ch("2026-10-05 07:20", "c", "p", None), ch("2026-10-05 08:00", "b", "q", "p"),
                  ch("2026-10-05 08:10", "e", "p", None)])
    assert got["p"]["empire"] == 3   # a–b–c before q cut it; later a, c, e are three outposts
    assert got["q"]["empire"] == 1


def test_each_tier_is_awarded_once_at_the_instant_its_threshold_was_reached() -> None:
    changes = [ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-05 08:00", "b", "p", None),
               ch("2026-10-05 09:00", "b", "q", "p"), ch("2026-10-05 10:00", "b", "p", "q")]
    explorer = [a for a in compute(changes, SMALL, BOARD, SEASON, ny("2026-10-05 11:00")).awards
                if a.player_id == "p" and a.medal == "explorer"]
    assert explorer == [Award("p", "explorer", "bronze", 1, ny("2026-10-05 07:00")),
                        Award("p", "explorer", "silver", 2, ny("2026-10-05 08:00"))]


def test_a_change_after_the_instant_read_up_to_is_not_counted() -> None:
    got = values([ch("2026-10-05 07:00", "a", "p", None), ch("2026-10-05 09:00", "b", "p", None)],
                 until="2026-10-05 08:00")
    assert got["p"]["explorer"] == 1


def test_change_of_reads_the_stream_body_and_the_feed_message_alike() -> None:
    body = {"type": "territory.changed", "occurred_at": "2026-10-05T07:00:00-04:00", "territory_id": "a",
            "owner_id": "p", "previous_owner_id": None, "fortified": False, "cause": "claim", "progress": 1}
    feed = {k: v for k, v in body.items() if k != "occurred_at"} | {"at": "2026-10-05T07:00:00-04:00", "seq": 3}
    assert change_of(json.loads(json.dumps(body))) == change_of(feed) == ch("2026-10-05 07:00", "a", "p", None)
    assert change_of({"type": "score.updated", "at": "2026-10-05T07:00:00-04:00"}) is None
