"""Game time rules (R1–R5, R14, R25). Expected instants are written out by hand as ISO strings with offsets.

2026 season: Mon 2026-10-05 … Sat 2026-10-24, America/New_York, all on EDT (-04:00).
Game days 1–6: Oct 5–10, 7–12: Oct 12–17, 13–18: Oct 19–24; Sundays Oct 11 and 18 are rest days.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turf_common.rules.gametime import (
    ClockBoundary,
    SeasonConfig,
    add_game_hours,
    boundaries_between,
    default_clock_start,
    game_day_at,
    game_day_number,
    game_days,
    game_hours_between,
    game_week_number,
    is_game_day,
    is_open,
    load_season,
    local_date,
    next_boundary,
    next_change,
    next_game_day,
    open_interval,
    previous_game_day,
    season_closes_at,
    season_opens_at,
    season_state,
)

NY = ZoneInfo("America/New_York")
CFG = load_season()
US = timedelta(microseconds=1)


def at(s: str) -> datetime:
    """An aware instant from an ISO string that carries its own offset."""
    d = datetime.fromisoformat(s)
    assert d.tzinfo is not None, s
    return d


def ny(s: str) -> datetime:
    """Local New York wall time (no offset in the string) as an aware instant."""
    return datetime.fromisoformat(s).replace(tzinfo=NY)


def same_instant(got: datetime | None, want: str) -> None:
    """Exact wall time, offset and zone, plus the same UTC instant."""
    assert got is not None
    assert got.isoformat() == want
    assert got.tzinfo is not None and getattr(got.tzinfo, "key", None) == "America/New_York"
    assert got.astimezone(UTC) == datetime.fromisoformat(want).astimezone(UTC)


def cfg_with(**kw: object) -> SeasonConfig:
    base: dict[str, object] = {
        "season_id": "test",
        "zone": "America/New_York",
        "first_day": "2026-10-05",
        "last_day": "2026-10-24",
        "open_weekdays": [0, 1, 2, 3, 4, 5],
        "open_time": "06:00",
        "close_time": "22:00",
    }
    base.update(kw)
    return SeasonConfig.from_dict(base)


# DST ends Sunday 2026-11-01 (EDT -04:00 -> EST -05:00) and starts Sunday 2027-03-14 (EST -> EDT).
FALL = cfg_with(season_id="fall-dst", first_day="2026-10-26", last_day="2026-11-07")
SPRING = cfg_with(season_id="spring-dst", first_day="2027-03-08", last_day="2027-03-20")


# --------------------------------------------------------------------------- R1 zone and configuration


def test_r1_season_2026_file_values() -> None:
    assert CFG.season_id == "2026"
    assert CFG.zone == "America/New_York"
    assert CFG.tz == ZoneInfo("America/New_York")
    assert CFG.first_day == date(2026, 10, 5)
    assert CFG.last_day == date(2026, 10, 24)
    assert CFG.open_weekdays == frozenset({0, 1, 2, 3, 4, 5})
    assert CFG.open_time == time(6, 0)
    assert CFG.close_time == time(22, 0)


def test_r1_config_round_trips_through_dict_and_file(tmp_path: Path) -> None:
    d = CFG.to_dict()
    assert d == {
        "season_id": "2026",
        "zone": "America/New_York",
        "first_day": "2026-10-05",
        "last_day": "2026-10-24",
        "open_weekdays": [0, 1, 2, 3, 4, 5],
        "open_time": "06:00",
        "close_time": "22:00",
        "limits": {"max_accuracy_m": 100.0, "on_border_m": 0.5, "max_fix_age_s": 120.0, "max_fix_future_s": 30.0,
                   "max_travel_kmh": 200.0},
    }
    assert SeasonConfig.from_dict(d) == CFG
    p = tmp_path / "s.json"
    p.write_text(json.dumps(FALL.to_dict()))
    assert load_season(p) == FALL


@pytest.mark.parametrize(
    "bad",
    [
        {"last_day": "2026-10-04"},  # before first_day
        {"open_time": "22:00"},  # open == close
        {"open_time": "23:00"},  # open after close
        {"open_weekdays": [0, 7]},  # no weekday 7
        {"open_weekdays": []},
        {"first_day": "2026-10-11", "last_day": "2026-10-11"},  # only a Sunday: no game day
        {"limits": {"max_accuracy_m": -1}},
        {"limits": {"max_accuracy_m": "100"}},
        {"limits": {"on_border_m": float("nan")}},
        {"limits": {"max_travel_kmh": 0}},
        {"limits": {"max_acuracy_m": 100}},  # a misspelt limit is not silently ignored
        {"limits": [100]},
    ],
)
def test_r1_invalid_config_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        cfg_with(**bad)


def test_r1_missing_key_and_unknown_zone_rejected() -> None:
    d = CFG.to_dict()
    del d["close_time"]
    with pytest.raises(ValueError):
        SeasonConfig.from_dict(d)
    with pytest.raises(KeyError):  # ZoneInfoNotFoundError
        cfg_with(zone="Mars/Olympus_Mons")


def test_r1_naive_datetimes_rejected() -> None:
    naive = datetime(2026, 10, 5, 12, 0)
    for fn in (local_date, game_day_at, is_open, season_state, next_change, next_boundary):
        with pytest.raises(ValueError):
            fn(CFG, naive)  # type: ignore[operator]
    with pytest.raises(ValueError):
        add_game_hours(CFG, naive, 1)
    with pytest.raises(ValueError):
        game_hours_between(CFG, naive, at("2026-10-06T12:00:00-04:00"))
    with pytest.raises(ValueError):
        boundaries_between(CFG, at("2026-10-06T12:00:00-04:00"), naive)


def test_r1_local_date_is_the_season_zone_date() -> None:
    # 02:30 UTC on Oct 6 is still 22:30 on Oct 5 in New York
    assert local_date(CFG, at("2026-10-06T02:30:00+00:00")) == date(2026, 10, 5)
    assert game_day_at(CFG, at("2026-10-06T02:30:00+00:00")) == date(2026, 10, 5)
    assert not is_open(CFG, at("2026-10-06T02:30:00+00:00"))
    # 10:00 UTC is 06:00 EDT: open; any input zone is accepted
    assert is_open(CFG, at("2026-10-05T10:00:00+00:00"))
    assert not is_open(CFG, at("2026-10-05T09:59:59.999+00:00"))
    assert is_open(CFG, at("2026-10-05T19:00:00+09:00"))  # 06:00 EDT seen from Tokyo


# --------------------------------------------------------------------------- R2 game days

GAME_DAYS_2026 = [
    date(2026, 10, d) for d in (5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 19, 20, 21, 22, 23, 24)
]


def test_r2_eighteen_game_days_numbered_1_to_18() -> None:
    assert game_days(CFG) == GAME_DAYS_2026
    assert [game_day_number(CFG, d) for d in GAME_DAYS_2026] == list(range(1, 19))
    assert game_day_number(CFG, date(2026, 10, 12)) == 7
    assert game_day_number(CFG, date(2026, 10, 24)) == 18


@pytest.mark.parametrize(
    "d", [date(2026, 10, 4), date(2026, 10, 11), date(2026, 10, 18), date(2026, 10, 25), date(2026, 9, 28)]
)
def test_r2_non_game_days(d: date) -> None:
    assert not is_game_day(CFG, d)
    assert game_day_number(CFG, d) is None
    assert game_week_number(CFG, d) is None
    with pytest.raises(ValueError):
        open_interval(CFG, d)


def test_r2_game_weeks() -> None:
    assert [game_week_number(CFG, d) for d in GAME_DAYS_2026] == [1] * 6 + [2] * 6 + [3] * 6


def test_r2_next_and_previous_game_day_skip_sunday() -> None:
    assert next_game_day(CFG, date(2026, 10, 10)) == date(2026, 10, 12)  # Sat -> Mon
    assert previous_game_day(CFG, date(2026, 10, 12)) == date(2026, 10, 10)  # Mon -> Sat
    assert next_game_day(CFG, date(2026, 10, 11)) == date(2026, 10, 12)  # from a Sunday
    assert previous_game_day(CFG, date(2026, 10, 11)) == date(2026, 10, 10)
    assert next_game_day(CFG, date(2026, 10, 6)) == date(2026, 10, 7)
    assert next_game_day(CFG, date(2026, 10, 24)) is None  # no game day after the last
    assert previous_game_day(CFG, date(2026, 10, 5)) is None  # none before the first
    assert next_game_day(CFG, date(2026, 10, 1)) == date(2026, 10, 5)  # before the season: the first
    assert previous_game_day(CFG, date(2026, 10, 30)) == date(2026, 10, 24)


def test_r2_game_day_at_counts_before_opening_hour() -> None:
    assert game_day_at(CFG, ny("2026-10-06T03:00:00")) == date(2026, 10, 6)
    assert not is_open(CFG, ny("2026-10-06T03:00:00"))
    assert game_day_at(CFG, ny("2026-10-06T23:30:00")) == date(2026, 10, 6)
    assert game_day_at(CFG, ny("2026-10-11T12:00:00")) is None  # Sunday


# --------------------------------------------------------------------------- R3 open hours


@pytest.mark.parametrize(
    ("local", "open_"),
    [
        ("2026-10-07T05:59:59.999000", False),
        ("2026-10-07T06:00:00", True),
        ("2026-10-07T13:00:00", True),
        ("2026-10-07T21:59:59.999000", True),
        ("2026-10-07T21:59:59.999999", True),
        ("2026-10-07T22:00:00", False),
        ("2026-10-07T23:59:59", False),
        ("2026-10-07T00:00:00", False),
        ("2026-10-10T21:00:00", True),  # Saturday evening
        ("2026-10-11T12:00:00", False),  # Sunday noon
        ("2026-10-05T05:59:59.999000", False),  # first day before opening
        ("2026-10-05T06:00:00", True),
        ("2026-10-24T21:59:59.999999", True),  # last open microsecond
        ("2026-10-24T22:00:00", False),  # the season closes
        ("2026-10-26T12:00:00", False),  # Monday after the season
        ("2026-10-03T12:00:00", False),  # Saturday before the season
    ],
)
def test_r3_open_edges(local: str, open_: bool) -> None:
    assert is_open(CFG, ny(local)) is open_


def test_r3_sunday_noon_closed_no_game_day() -> None:
    t = ny("2026-10-18T12:00:00")
    assert not is_open(CFG, t)
    assert game_day_at(CFG, t) is None
    assert season_state(CFG, t) == "running"


def test_r3_day_before_season() -> None:
    t = ny("2026-10-04T12:00:00")
    assert season_state(CFG, t) == "before"
    assert game_day_at(CFG, t) is None
    assert not is_open(CFG, t)
    # the first game day before its opening hour: a game day, still "before"
    t = ny("2026-10-05T05:59:59.999000")
    assert season_state(CFG, t) == "before"
    assert game_day_at(CFG, t) == date(2026, 10, 5)
    assert season_state(CFG, ny("2026-10-05T06:00:00")) == "running"


def test_r3_open_interval_2026() -> None:
    o, c = open_interval(CFG, date(2026, 10, 5))
    same_instant(o, "2026-10-05T06:00:00-04:00")
    same_instant(c, "2026-10-05T22:00:00-04:00")
    o, c = open_interval(CFG, date(2026, 10, 24))
    same_instant(o, "2026-10-24T06:00:00-04:00")
    same_instant(c, "2026-10-24T22:00:00-04:00")


@pytest.mark.parametrize(
    ("local", "want"),
    [
        ("2026-10-01T00:00:00", "2026-10-05T06:00:00-04:00"),  # before the season
        ("2026-10-05T05:00:00", "2026-10-05T06:00:00-04:00"),  # default clock start
        ("2026-10-07T05:59:59.999000", "2026-10-07T06:00:00-04:00"),
        ("2026-10-07T06:00:00", "2026-10-07T22:00:00-04:00"),  # strictly after: the close
        ("2026-10-07T21:59:59.999000", "2026-10-07T22:00:00-04:00"),
        ("2026-10-07T22:00:00", "2026-10-08T06:00:00-04:00"),
        ("2026-10-10T22:00:00", "2026-10-12T06:00:00-04:00"),  # Saturday close -> Monday
        ("2026-10-11T12:00:00", "2026-10-12T06:00:00-04:00"),  # Sunday noon
        ("2026-10-24T21:00:00", "2026-10-24T22:00:00-04:00"),  # the season's last close
    ],
)
def test_r3_next_change(local: str, want: str) -> None:
    same_instant(next_change(CFG, ny(local)), want)


@pytest.mark.parametrize("local", ["2026-10-24T22:00:00", "2026-10-25T12:00:00", "2027-01-01T00:00:00"])
def test_r3_next_change_none_once_closed(local: str) -> None:
    assert next_change(CFG, ny(local)) is None


# --------------------------------------------------------------------------- R25 season bounds


def test_r25_season_opens_and_closes() -> None:
    same_instant(season_opens_at(CFG), "2026-10-05T06:00:00-04:00")
    same_instant(season_closes_at(CFG), "2026-10-24T22:00:00-04:00")
    same_instant(default_clock_start(CFG), "2026-10-05T05:00:00-04:00")


def test_r25_season_state_at_the_close() -> None:
    assert season_state(CFG, ny("2026-10-24T21:59:59.999999")) == "running"
    assert season_state(CFG, ny("2026-10-24T22:00:00")) == "closed"
    assert not is_open(CFG, ny("2026-10-24T22:00:00"))
    assert game_day_at(CFG, ny("2026-10-24T22:00:00")) == date(2026, 10, 24)  # still the date, just closed
    assert season_state(CFG, ny("2026-10-31T12:00:00")) == "closed"
    assert season_state(CFG, at("2026-10-25T02:00:00+00:00")) == "closed"  # 22:00 EDT in UTC
    assert season_state(CFG, at("2026-10-25T01:59:59+00:00")) == "running"


# --------------------------------------------------------------------------- R4 game hours


def test_r4_saturday_2100_plus_5_is_monday_1000() -> None:
    same_instant(add_game_hours(CFG, ny("2026-10-10T21:00:00"), 5), "2026-10-12T10:00:00-04:00")


def test_r4_full_day_ends_exactly_at_close() -> None:
    same_instant(add_game_hours(CFG, ny("2026-10-07T06:00:00"), 16), "2026-10-07T22:00:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-07T06:00:00"), 16.5), "2026-10-08T06:30:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-07T06:00:00"), 0.25), "2026-10-07T06:15:00-04:00")


def test_r4_starting_in_closed_time_counts_from_next_opening() -> None:
    same_instant(add_game_hours(CFG, ny("2026-10-11T12:00:00"), 1), "2026-10-12T07:00:00-04:00")  # Sunday
    same_instant(add_game_hours(CFG, ny("2026-10-07T22:00:00"), 0.5), "2026-10-08T06:30:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-08T03:00:00"), 2), "2026-10-08T08:00:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-01T12:00:00"), 2), "2026-10-05T08:00:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-11T12:00:00"), 0), "2026-10-12T06:00:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-07T13:00:00"), 0), "2026-10-07T13:00:00-04:00")


def test_r4_negative_or_nonfinite_hours_rejected() -> None:
    for h in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError):
            add_game_hours(CFG, ny("2026-10-07T13:00:00"), h)


def test_r4_game_hours_between_across_sunday() -> None:
    # Sat 20:00–22:00 (2 h) + Mon 06:00–08:00 (2 h)
    assert game_hours_between(CFG, ny("2026-10-10T20:00:00"), ny("2026-10-12T08:00:00")) == 4.0
    assert game_hours_between(CFG, ny("2026-10-11T01:00:00"), ny("2026-10-11T23:00:00")) == 0.0  # Sunday
    assert game_hours_between(CFG, ny("2026-10-07T06:00:00"), ny("2026-10-07T22:00:00")) == 16.0
    assert game_hours_between(CFG, ny("2026-10-07T05:00:00"), ny("2026-10-07T23:00:00")) == 16.0
    assert game_hours_between(CFG, ny("2026-10-07T21:30:00"), ny("2026-10-08T06:15:00")) == 0.75
    assert game_hours_between(CFG, ny("2026-10-08T10:00:00"), ny("2026-10-07T10:00:00")) == 0.0  # b < a
    assert game_hours_between(CFG, ny("2026-09-01T00:00:00"), ny("2026-12-01T00:00:00")) == 18 * 16.0


# --------------------------------------------------------------------------- R14 War timers


def test_r14_war_play_window_5_game_hours_over_sunday() -> None:
    same_instant(add_game_hours(CFG, ny("2026-10-17T19:30:00"), 5), "2026-10-19T08:30:00-04:00")


def test_r14_reclaim_window_16_game_hours_from_saturday_afternoon() -> None:
    # Sat 15:00 -> 22:00 is 7 h; 9 more from Monday 06:00
    same_instant(add_game_hours(CFG, ny("2026-10-10T15:00:00"), 16), "2026-10-12T15:00:00-04:00")
    # Fri 21:00: 1 h Friday + 15 h Saturday
    same_instant(add_game_hours(CFG, ny("2026-10-23T21:00:00"), 16), "2026-10-24T21:00:00-04:00")


def test_r14_window_past_season_close_is_none() -> None:
    assert add_game_hours(CFG, ny("2026-10-24T15:00:00"), 16) is None  # only 7 h left
    assert add_game_hours(CFG, ny("2026-10-23T21:00:00"), 17.01) is None
    assert add_game_hours(CFG, ny("2026-10-24T22:00:00"), 0) is None  # already closed
    assert add_game_hours(CFG, ny("2026-10-25T12:00:00"), 1) is None
    assert add_game_hours(CFG, ny("2026-10-24T15:00:00"), 1e300) is None
    # ending exactly at the final close fits
    same_instant(add_game_hours(CFG, ny("2026-10-24T15:00:00"), 7), "2026-10-24T22:00:00-04:00")
    same_instant(add_game_hours(CFG, ny("2026-10-23T21:00:00"), 17), "2026-10-24T22:00:00-04:00")


# --------------------------------------------------------------------------- R5 boundaries


def kinds(bs: list[ClockBoundary]) -> list[tuple[str, str, int, int]]:
    return [(b.kind, b.at.isoformat(), b.game_day_number, b.week) for b in bs]


def test_r5_boundaries_at_first_opening_in_order() -> None:
    bs = boundaries_between(CFG, default_clock_start(CFG), ny("2026-10-05T06:00:00"))
    assert kinds(bs) == [
        ("season_started", "2026-10-05T06:00:00-04:00", 1, 1),
        ("week_started", "2026-10-05T06:00:00-04:00", 1, 1),
        ("day_started", "2026-10-05T06:00:00-04:00", 1, 1),
    ]
    assert all(b.game_day == date(2026, 10, 5) for b in bs)
    first = next_boundary(CFG, default_clock_start(CFG))
    assert first is not None and first.kind == "season_started"
    # `after` is exclusive: nothing more at the opening instant itself
    assert boundaries_between(CFG, ny("2026-10-05T06:00:00"), ny("2026-10-05T21:59:59")) == []


def test_r5_boundaries_at_final_close_in_order() -> None:
    bs = boundaries_between(CFG, ny("2026-10-24T21:00:00"), ny("2026-10-24T22:00:00"))
    assert kinds(bs) == [
        ("day_closed", "2026-10-24T22:00:00-04:00", 18, 3),
        ("season_ended", "2026-10-24T22:00:00-04:00", 18, 3),
    ]
    assert next_boundary(CFG, ny("2026-10-24T22:00:00")) is None
    nb = next_boundary(CFG, ny("2026-10-24T21:00:00"))
    assert nb is not None and nb.kind == "day_closed"


def test_r5_boundaries_over_a_weekend() -> None:
    bs = boundaries_between(CFG, ny("2026-10-10T12:00:00"), ny("2026-10-12T06:00:00"))
    assert kinds(bs) == [
        ("day_closed", "2026-10-10T22:00:00-04:00", 6, 1),
        ("week_started", "2026-10-12T06:00:00-04:00", 7, 2),
        ("day_started", "2026-10-12T06:00:00-04:00", 7, 2),
    ]
    bs = boundaries_between(CFG, ny("2026-10-13T00:00:00"), ny("2026-10-13T23:00:00"))
    assert kinds(bs) == [
        ("day_started", "2026-10-13T06:00:00-04:00", 8, 2),
        ("day_closed", "2026-10-13T22:00:00-04:00", 8, 2),
    ]


def test_r5_whole_season_boundary_counts() -> None:
    bs = boundaries_between(CFG, ny("2026-10-01T00:00:00"), ny("2026-11-01T00:00:00"))
    counts = {k: sum(b.kind == k for b in bs) for k in {b.kind for b in bs}}
    assert counts == {
        "season_started": 1,
        "week_started": 3,
        "day_started": 18,
        "day_closed": 18,
        "season_ended": 1,
    }
    assert [b.at.isoformat() for b in bs if b.kind == "week_started"] == [
        "2026-10-05T06:00:00-04:00",
        "2026-10-12T06:00:00-04:00",
        "2026-10-19T06:00:00-04:00",
    ]
    utc = [b.at.astimezone(UTC) for b in bs]
    assert utc == sorted(utc)


def test_r5_week_started_on_first_game_day_of_a_midweek_season() -> None:
    wed = cfg_with(first_day="2026-10-07", last_day="2026-10-13")
    bs = boundaries_between(wed, ny("2026-10-01T00:00:00"), ny("2026-11-01T00:00:00"))
    assert [(b.kind, b.at.isoformat(), b.week) for b in bs if b.kind.endswith("started")][:3] == [
        ("season_started", "2026-10-07T06:00:00-04:00", 1),
        ("week_started", "2026-10-07T06:00:00-04:00", 1),
        ("day_started", "2026-10-07T06:00:00-04:00", 1),
    ]
    assert [b.at.isoformat() for b in bs if b.kind == "week_started"] == [
        "2026-10-07T06:00:00-04:00",
        "2026-10-12T06:00:00-04:00",
    ]


# --------------------------------------------------------------------------- daylight saving (R1, R3, R4)


def test_r3_fall_dst_open_interval_offsets() -> None:
    fall_days = [date(2026, 10, d) for d in range(26, 32)] + [date(2026, 11, d) for d in range(2, 8)]
    assert game_days(FALL) == fall_days
    o, c = open_interval(FALL, date(2026, 10, 31))
    same_instant(o, "2026-10-31T06:00:00-04:00")
    same_instant(c, "2026-10-31T22:00:00-04:00")
    o, c = open_interval(FALL, date(2026, 11, 2))
    same_instant(o, "2026-11-02T06:00:00-05:00")
    same_instant(c, "2026-11-02T22:00:00-05:00")
    assert o.astimezone(UTC) == datetime(2026, 11, 2, 11, 0, tzinfo=UTC)
    same_instant(next_change(FALL, ny("2026-10-31T22:00:00")), "2026-11-02T06:00:00-05:00")
    same_instant(season_closes_at(FALL), "2026-11-07T22:00:00-05:00")


def test_r3_fall_dst_open_uses_the_new_offset() -> None:
    # 10:30 UTC on Mon Nov 2 is 05:30 EST: closed (a stale -04:00 would make it 06:30)
    assert not is_open(FALL, at("2026-11-02T10:30:00+00:00"))
    assert is_open(FALL, at("2026-11-02T11:00:00+00:00"))
    assert is_open(FALL, at("2026-11-03T02:59:59+00:00"))  # 21:59:59 EST Nov 2
    assert not is_open(FALL, at("2026-11-03T03:00:00+00:00"))  # 22:00 EST
    # 04:30 UTC on Nov 2 is 23:30 EST on Sunday Nov 1
    assert local_date(FALL, at("2026-11-02T04:30:00+00:00")) == date(2026, 11, 1)
    assert game_day_at(FALL, at("2026-11-02T04:30:00+00:00")) is None
    assert game_day_at(FALL, at("2026-11-02T05:30:00+00:00")) == date(2026, 11, 2)


def test_r4_fall_dst_16_game_hours_from_saturday_afternoon() -> None:
    # Sat 14:00 EDT -> 22:00 is 8 h; 8 more from Mon 06:00 EST. 49 real hours pass.
    got = add_game_hours(FALL, ny("2026-10-31T14:00:00"), 16)
    same_instant(got, "2026-11-02T14:00:00-05:00")
    assert got is not None and got.astimezone(UTC) == datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
    assert game_hours_between(FALL, ny("2026-10-31T14:00:00"), ny("2026-11-02T14:00:00")) == 16.0
    same_instant(add_game_hours(FALL, ny("2026-10-31T21:00:00"), 5), "2026-11-02T10:00:00-05:00")


def test_r4_spring_dst_16_game_hours_from_saturday_afternoon() -> None:
    o, _ = open_interval(SPRING, date(2027, 3, 13))
    same_instant(o, "2027-03-13T06:00:00-05:00")
    o, c = open_interval(SPRING, date(2027, 3, 15))
    same_instant(o, "2027-03-15T06:00:00-04:00")
    same_instant(c, "2027-03-15T22:00:00-04:00")
    # Sat 14:00 EST -> 22:00 is 8 h; 8 more from Mon 06:00 EDT. 47 real hours pass.
    got = add_game_hours(SPRING, ny("2027-03-13T14:00:00"), 16)
    same_instant(got, "2027-03-15T14:00:00-04:00")
    assert got is not None and got.astimezone(UTC) == datetime(2027, 3, 15, 18, 0, tzinfo=UTC)
    assert game_hours_between(SPRING, ny("2027-03-13T14:00:00"), ny("2027-03-15T14:00:00")) == 16.0
    # 10:30 UTC Monday is 06:30 EDT: open (a stale -05:00 would make it 05:30)
    assert is_open(SPRING, at("2027-03-15T10:30:00+00:00"))
    assert not is_open(SPRING, at("2027-03-15T09:59:59+00:00"))


def test_r4_open_hours_spanning_the_change_count_real_hours() -> None:
    # A config open every day 01:00–03:00 local. On 2026-11-01 01:00 is ambiguous: the earlier (EDT) one
    # is taken, and 03:00 EST is 3 real hours later. On 2027-03-14, 01:00 EST -> 03:00 EDT is 1 real hour.
    night = cfg_with(first_day="2026-10-31", last_day="2027-03-15", open_weekdays=list(range(7)),
                     open_time="01:00", close_time="03:00")  # fmt: skip
    o, c = open_interval(night, date(2026, 11, 1))
    same_instant(o, "2026-11-01T01:00:00-04:00")
    same_instant(c, "2026-11-01T03:00:00-05:00")
    assert game_hours_between(night, ny("2026-11-01T00:00:00"), ny("2026-11-01T12:00:00")) == 3.0
    o, c = open_interval(night, date(2027, 3, 14))
    same_instant(o, "2027-03-14T01:00:00-05:00")
    same_instant(c, "2027-03-14T03:00:00-04:00")
    assert game_hours_between(night, ny("2027-03-14T00:00:00"), ny("2027-03-14T12:00:00")) == 1.0
    same_instant(add_game_hours(night, ny("2026-11-01T01:00:00"), 2.5), "2026-11-01T02:30:00-05:00")


# --------------------------------------------------------------------------- properties

SEASON_START_UTC = datetime(2026, 10, 5, 10, 0, tzinfo=UTC)  # 06:00 EDT
SEASON_END_UTC = datetime(2026, 10, 25, 2, 0, tzinfo=UTC)  # 22:00 EDT Oct 24
DAY_US = 16 * 3600 * 10**6


def oracle_open(t: datetime) -> bool:
    """R3 from scratch: local date Mon–Sat within the season, 06:00 <= local time < 22:00."""
    local = t.astimezone(NY)
    return (
        date(2026, 10, 5) <= local.date() <= date(2026, 10, 24)
        and local.weekday() != 6
        and time(6) <= local.time() < time(22)
    )


instants = st.datetimes(
    min_value=datetime(2026, 10, 2), max_value=datetime(2026, 10, 28), timezones=st.just(UTC)
)


@settings(max_examples=300)
@given(
    idx=st.integers(0, 17),
    offset_us=st.integers(0, DAY_US - 1),
    ms=st.integers(0, 300 * 3600 * 1000),
)
def test_r4_property_add_then_measure_round_trips(idx: int, offset_us: int, ms: int) -> None:
    d = GAME_DAYS_2026[idx]
    a = datetime.combine(d, time(6), tzinfo=NY) + timedelta(microseconds=offset_us)  # same day, no DST here
    assert is_open(CFG, a)
    h = ms / 3_600_000
    left_us = (DAY_US - offset_us) + DAY_US * (17 - idx)  # open time left in the season
    got = add_game_hours(CFG, a, h)
    if ms * 1000 > left_us:
        assert got is None
        return
    assert got is not None
    assert math.isclose(game_hours_between(CFG, a, got), h, rel_tol=0, abs_tol=1e-9)
    assert got.astimezone(UTC) >= a.astimezone(UTC)
    local = got.astimezone(NY)
    assert oracle_open(got) or local.time() == time(22)  # lands in open time or exactly on a close


@settings(max_examples=500)
@given(t=instants)
def test_r3_property_is_open_consistent_with_next_change(t: datetime) -> None:
    assert is_open(CFG, t) == oracle_open(t)
    n = next_change(CFG, t)
    if n is None:
        assert t >= SEASON_END_UTC
        assert not is_open(CFG, t)
        return
    assert n.astimezone(UTC) > t
    assert is_open(CFG, n) != is_open(CFG, t)
    assert is_open(CFG, n - US) == is_open(CFG, t)
    assert n.astimezone(NY).time() in (time(6), time(22))
    # no flip in between: the open time in [t, n) is all of it or none of it
    span = (n.astimezone(UTC) - t) / timedelta(hours=1)
    assert math.isclose(game_hours_between(CFG, t, n), span if is_open(CFG, t) else 0.0, abs_tol=1e-9)


@given(t=instants)
def test_r3_property_season_state(t: datetime) -> None:
    want = "before" if t < SEASON_START_UTC else "closed" if t >= SEASON_END_UTC else "running"
    assert season_state(CFG, t) == want


@given(ts=st.lists(instants, min_size=3, max_size=3).map(sorted))
def test_r4_property_game_hours_additive(ts: list[datetime]) -> None:
    a, m, b = ts
    assert math.isclose(
        game_hours_between(CFG, a, b),
        game_hours_between(CFG, a, m) + game_hours_between(CFG, m, b),
        abs_tol=1e-9,
    )


@given(ts=st.lists(instants, min_size=3, max_size=3).map(sorted))
def test_r5_property_boundaries_partition(ts: list[datetime]) -> None:
    a, m, b = ts
    assert boundaries_between(CFG, a, b) == boundaries_between(CFG, a, m) + boundaries_between(CFG, m, b)
    nb = next_boundary(CFG, a)
    whole = boundaries_between(CFG, a, SEASON_END_UTC)
    assert nb == (whole[0] if whole else None)
