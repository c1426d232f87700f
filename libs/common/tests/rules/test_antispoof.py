"""R7.1 (amended): the trail, impossible travel between any two fixes, replays; flags only (never a refusal)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from turf_common.rules.antispoof import (
    DAY_JUMP_KM,
    FixRecord,
    Flag,
    counted_time,
    day_start_jump,
    haversine_m,
    leg,
    merge_since,
    places,
    repeats,
    screen,
    trail_since,
)

T = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)     # ~12 km west of Hoboken
TRENTON = (40.2206, -74.7597)    # ~85 km south-west


def fix(at: tuple[float, float], acc: float = 10, *, fix_s: float = -3, recv_s: float = 0) -> FixRecord:
    """A fix at ``at``, received ``recv_s`` seconds after T, its fix time ``fix_s`` seconds from its receipt."""
    recv = T + timedelta(seconds=recv_s)
    return FixRecord(at[0], at[1], acc, recv + timedelta(seconds=fix_s), recv)


def kinds(new: FixRecord, *trail: FixRecord) -> list[str]:
    return [f.kind for f in screen(new, list(trail), max_travel_kmh=200)]


def test_haversine_one_degree_of_latitude() -> None:
    d = haversine_m(FixRecord(40, -74, 0, T, T), FixRecord(41, -74, 0, T, T))
    assert abs(d - 111_195) < 5


def test_r7_1_driving_speed_is_not_flagged_a_jump_is_with_the_pair_and_the_trail_as_evidence() -> None:
    a = fix(HOBOKEN)
    assert kinds(fix(NEWARK, recv_s=20 * 60), a) == []             # ~12 km in 20 minutes: ~36 km/h
    flags = screen(fix(NEWARK, recv_s=120), [a], max_travel_kmh=200)
    assert [f.kind for f in flags] == ["impossible_travel"]
    ev = flags[0].evidence
    assert ev["from"]["lat"] == HOBOKEN[0] and ev["to"]["lat"] == NEWARK[0] and ev["max_travel_kmh"] == 200
    assert ev["seconds"] == 120 and 300 < ev["speed_kmh"] < 400 and 11_000 < ev["distance_m"] < 13_000
    (only,) = ev["trail"]                                          # the map-free summary: from, to, km, min, km/h
    assert set(only) == {"from", "to", "km", "minutes", "kmh"}
    assert only["minutes"] == 2.0 and 11 < only["km"] < 13 and only["kmh"] == ev["speed_kmh"]


def test_r7_1_gps_jitter_within_both_accuracies_is_not_travel() -> None:
    near = FixRecord(40.7441, -74.0321, 20, T, T)                  # ~14 m away, same instant
    assert kinds(near, fix(HOBOKEN)) == []


def test_r7_1_an_identical_fix_resent_by_a_phone_that_did_not_move_is_never_flagged() -> None:
    # an honest player re-trying a claim: the phone sends the very same fix again (the code before the amendment
    # flagged it repeated_fix), also after a check from the same spot
    a = fix(HOBOKEN, recv_s=0)
    again = FixRecord(a.lat, a.lon, a.accuracy_m, a.fix_time, T + timedelta(seconds=40))
    assert kinds(again, a) == []
    assert kinds(fix(HOBOKEN, recv_s=90), a, again) == []
    # standing still in manual mode (the game clock does not move): same instant, same fix
    assert kinds(a, a, a) == []


def test_r7_1_an_identical_fix_after_the_trail_went_far_away_is_a_replay() -> None:
    a, away = fix(HOBOKEN, recv_s=0), fix(NEWARK, recv_s=60 * 60)
    replay = fix(HOBOKEN, recv_s=2 * 60 * 60)
    replay = FixRecord(a.lat, a.lon, a.accuracy_m, replay.fix_time, replay.received_at)
    flags = screen(replay, [a, away], max_travel_kmh=200)
    assert [f.kind for f in flags] == ["repeated_fix"]             # an hour each way: no impossible travel
    ev = flags[0].evidence
    assert ev["away"]["lat"] == NEWARK[0] and ev["away_km"] > 11 and len(ev["trail"]) == 2


def test_r7_1_identical_fixes_from_places_far_apart_in_a_minute_are_flagged_twice() -> None:
    a, away = fix(HOBOKEN, recv_s=0), fix(NEWARK, recv_s=60)
    replay = FixRecord(a.lat, a.lon, a.accuracy_m, a.fix_time + timedelta(seconds=120), T + timedelta(seconds=120))
    assert kinds(replay, a, away) == ["impossible_travel", "repeated_fix"]


def test_r7_1_any_two_fixes_count_a_check_with_a_huge_accuracy_cannot_bridge_a_jump() -> None:
    # Hoboken, then a check claiming 60 km accuracy halfway, then Trenton two minutes later: each consecutive leg
    # is possible (the accuracies swallow the distance), the trail is not
    bridge = fix((40.48, -74.40), acc=60_000, recv_s=60)
    flags = screen(fix(TRENTON, recv_s=120), [fix(HOBOKEN), bridge], max_travel_kmh=200)
    assert [f.kind for f in flags] == ["impossible_travel"]
    assert flags[0].evidence["from"]["lat"] == HOBOKEN[0] and len(flags[0].evidence["trail"]) == 2
    assert flags[0].evidence["speed_kmh"] > 2000


def test_r7_1_a_jump_is_flagged_once_while_the_player_stays_and_again_when_the_trail_jumps_back() -> None:
    a, b = fix(HOBOKEN, recv_s=0), fix(NEWARK, recv_s=60)
    assert kinds(b, a) == ["impossible_travel"]
    b2 = fix((NEWARK[0] + 0.0001, NEWARK[1]), recv_s=90)           # still in Newark: the same jump, no new flag
    assert kinds(b2, a, b) == []
    back = fix((HOBOKEN[0] + 0.0002, HOBOKEN[1]), recv_s=120)      # and back to Hoboken a minute later: a new jump
    assert kinds(back, a, b, b2) == ["impossible_travel"]


def test_r7_1_the_receipt_time_counts_so_back_dating_cannot_stretch_the_time_between_places() -> None:
    # the phone says its Newark fix is 40 minutes old; it reached the server one minute after the Hoboken fix
    a = fix(HOBOKEN, fix_s=0, recv_s=0)
    late = fix(NEWARK, fix_s=+40 * 60, recv_s=60)                  # a forged future date counts 30 s ahead at most
    early = FixRecord(NEWARK[0], NEWARK[1], 10, T - timedelta(minutes=40), T + timedelta(seconds=60))
    assert counted_time(late) == late.received_at + timedelta(seconds=30)
    assert counted_time(early) == early.received_at
    assert kinds(early, a) == ["impossible_travel"] and kinds(late, a) == ["impossible_travel"]
    assert leg(a, early).seconds == 60 and leg(a, late).seconds == 90
    # a fix time ahead of its receipt (within R7's 30 s) is the later one, so it counts
    assert counted_time(fix(HOBOKEN, fix_s=+20)) == T + timedelta(seconds=20)


def test_r7_1_same_instant_in_manual_mode_counts_one_second() -> None:
    # a manual clock stands still: two fixes 12 km apart received at one instant are impossible, not a division by 0
    flags = screen(fix(NEWARK), [fix(HOBOKEN)], max_travel_kmh=200)
    assert [f.kind for f in flags] == ["impossible_travel"] and flags[0].evidence["seconds"] == 1.0


def test_r7_1_the_season_speed_limit_is_the_threshold_and_sets_the_window() -> None:
    a, b = fix(HOBOKEN, recv_s=0), fix(NEWARK, recv_s=20 * 60)    # ~36 km/h
    assert [f.kind for f in screen(b, [a], max_travel_kmh=30)] == ["impossible_travel"]
    assert screen(b, [a], max_travel_kmh=40) == []
    assert trail_since(T, 200) == T - timedelta(hours=2.5) and trail_since(T, 50) == T - timedelta(hours=10)


def test_r7_1_zero_accuracy_is_flagged() -> None:
    assert kinds(FixRecord(40.7, -74.0, 0, T, T)) == ["zero_accuracy"]
    assert kinds(fix(HOBOKEN)) == []


# ---- repeats merge -------------------------------------------------------------------------------------------

def jump(a: tuple[float, float], b: tuple[float, float], recv_s: float = 60) -> Flag:
    """The impossible_travel flag of a fix at ``b`` ``recv_s`` seconds after one at ``a``."""
    (f,) = screen(fix(b, recv_s=recv_s), [fix(a)], max_travel_kmh=200)
    return f


def test_r7_1_a_jump_between_the_same_places_again_repeats_the_flag() -> None:
    # R7.1: a flood of checks back and forth between Hoboken and Newark is one flag (with a count), not one a pair
    first = jump(HOBOKEN, NEWARK)
    again = jump((HOBOKEN[0] + 0.002, HOBOKEN[1]), (NEWARK[0], NEWARK[1] + 0.003), recv_s=90)   # ~220 m, ~250 m
    assert repeats(again, [("f1", first)]) == "f1"
    assert repeats(again, [("f0", jump(HOBOKEN, TRENTON)), ("f1", first)]) == "f1"     # the first that matches


def test_r7_1_other_places_another_direction_or_kind_are_new_flags() -> None:
    first = jump(HOBOKEN, NEWARK)
    assert repeats(jump(HOBOKEN, TRENTON), [("f1", first)]) is None
    assert repeats(jump(NEWARK, HOBOKEN), [("f1", first)]) is None                 # back is another leg
    assert repeats(jump((HOBOKEN[0] + 0.02, HOBOKEN[1]), NEWARK), [("f1", first)]) is None   # ~2.2 km off
    zero = Flag("zero_accuracy", {"accuracy_m": 0, "at": first.evidence["from"]})
    assert repeats(zero, [("f1", first)]) is None
    assert repeats(zero, [("z1", zero)]) == "z1"
    # a flag stored before its places were recorded never merges
    assert repeats(Flag("zero_accuracy", {"accuracy_m": 0}), [("z0", Flag("zero_accuracy", {"accuracy_m": 0}))]) \
        is None
    assert merge_since(T) == T - timedelta(hours=1)


def test_r7_1_a_replay_of_the_same_fix_from_the_same_detour_repeats() -> None:
    a, away = fix(HOBOKEN), fix(TRENTON, recv_s=2 * 3600)
    (r1,) = [f for f in screen(fix(HOBOKEN, recv_s=4 * 3600), [a, away], max_travel_kmh=200)
             if f.kind == "repeated_fix"]
    assert places(r1.kind, r1.evidence) == [HOBOKEN, TRENTON]
    assert repeats(r1, [("r1", r1)]) == "r1"


# ---- the day's first fix -------------------------------------------------------------------------------------

NY = ZoneInfo("America/New_York")
POUGHKEEPSIE = (41.7004, -73.9210)   # ~107 km north of Hoboken
YONKERS = (40.9312, -73.8988)        # ~21 km north of Hoboken


def at(p: tuple[float, float], when: datetime, acc: float = 10) -> FixRecord:
    return FixRecord(p[0], p[1], acc, when - timedelta(seconds=3), when)


def test_r7_1_a_patient_spoofer_far_from_yesterday_and_home_is_flagged_never_refused() -> None:
    # R7.1: one claim a day anywhere at 10 m accuracy escaped the 2.5 h trail; the day's first fix is compared
    # with where the player was last seen (yesterday) and their home: evidence for the organizer
    yesterday = at(HOBOKEN, T.replace(hour=20))                        # 2026-10-05 20:00 New York
    first = at(POUGHKEEPSIE, T + timedelta(days=1))                    # 2026-10-06 07:00
    flag = day_start_jump(first, yesterday, HOBOKEN, NY)
    assert flag is not None and flag.kind == "day_start_jump"
    ev = flag.evidence
    assert ev["to"]["lat"] == POUGHKEEPSIE[0] and ev["last"]["lat"] == HOBOKEN[0] and ev["max_km"] == DAY_JUMP_KM
    assert 100 < ev["last_km"] < 110 and 100 < ev["home_km"] < 110 and ev["hours_since_last"] == 11.0
    assert ev["home"] == {"lat": HOBOKEN[0], "lon": HOBOKEN[1]}


def test_r7_1_near_home_or_near_yesterday_or_not_the_days_first_is_no_flag() -> None:
    yesterday = at(POUGHKEEPSIE, T.replace(hour=20))
    today = T + timedelta(days=1)
    assert day_start_jump(at(YONKERS, today), yesterday, HOBOKEN, NY) is None           # 21 km from home
    assert day_start_jump(at(POUGHKEEPSIE, today), yesterday, TRENTON, NY) is None      # where it slept
    assert day_start_jump(at(TRENTON, T.replace(hour=21)), yesterday, HOBOKEN, NY) is None   # same day: R7.1's
    # the calendar day is the season zone's: 23:30 and 00:30 New York are two days, though one UTC date
    late = at(POUGHKEEPSIE, datetime.fromisoformat("2026-10-05T23:30:00-04:00"))
    early = at(TRENTON, datetime.fromisoformat("2026-10-06T00:30:00-04:00"))
    assert late.received_at.astimezone(UTC).date() == early.received_at.astimezone(UTC).date()
    assert day_start_jump(early, late, HOBOKEN, NY) is not None


def test_r7_1_the_home_is_needed_the_last_place_when_there_is_one() -> None:
    today = at(TRENTON, T + timedelta(days=1))
    # R7.1: without a home, a day's gap makes any trip from yesterday's place plausible (honest players roam)
    assert day_start_jump(today, None, None, NY) is None
    assert day_start_jump(today, at(HOBOKEN, T), None, NY) is None
    first_ever = day_start_jump(today, None, HOBOKEN, NY)
    assert first_ever is not None and first_ever.evidence["last"] is None and first_ever.evidence["last_km"] is None
    assert first_ever.evidence["hours_since_last"] is None and 80 < first_ever.evidence["home_km"] < 90
    # the accuracies come off the distances, as in R7.1's speed
    assert day_start_jump(at(TRENTON, T + timedelta(days=1), acc=40_000), at(HOBOKEN, T), HOBOKEN, NY) is None
