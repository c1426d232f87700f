"""R31: seasons as data — the organizer's form validated field by field, overlaps, the season in force, the next
season, edits until the first opening, and the refusals between seasons."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from turf_common.rules import seasons
from turf_common.rules.gametime import load_season
from turf_common.rules.seasons import Prize, Season

NY = ZoneInfo("America/New_York")
FORM_2027 = {"id": "2027", "name": "2027", "zone": "America/New_York", "first_day": "2027-10-04",
             "last_day": "2027-10-23", "open_weekdays": [0, 1, 2, 3, 4, 5], "open_time": "06:00",
             "close_time": "22:00"}
PRIZES = (Prize(1, Decimal("50.00")), Prize(2, Decimal("25.00")), Prize(3, Decimal("25.00")))
S2026 = seasons.from_config(load_season(), [p.amount for p in PRIZES], "seed")


def at(y: int, mo: int, d: int, h: int = 12, mi: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=NY)


def made(form: dict[str, object], defaults: Season | None = S2026) -> Season:
    s = seasons.parse_season(form, defaults=defaults, commitment="c")
    assert isinstance(s, Season), s
    return s


def problems(form: dict[str, object]) -> list[tuple[str, str | None]]:
    s = seasons.parse_season(form, defaults=S2026, commitment="c")
    assert isinstance(s, list)
    return [(p.code, p.field) for p in s]


def test_r31_a_new_season_takes_the_last_seasons_limits_and_prizes_when_the_form_names_none() -> None:
    s = made(FORM_2027)
    assert (s.id, s.config.first_day.isoformat(), s.config.limits, s.prizes) == (
        "2027", "2027-10-04", S2026.config.limits, PRIZES)
    assert s.first_opening == at(2027, 10, 4, 6)


@pytest.mark.parametrize(("change", "field"), [
    ({"last_day": "2027-10-01"}, "last_day"),
    ({"close_time": "05:00"}, "close_time"),
    ({"zone": "Mars/Olympus"}, "zone"),
    ({"id": "Season 2027!"}, "id"),
    ({"open_weekdays": [7]}, "open_weekdays"),
    ({"first_day": "4 Oct 2027"}, "first_day"),
    ({"prizes": [{"place": 1, "amount": "10.00"}, {"place": 3, "amount": "5.00"}]}, "prizes"),
    ({"prizes": [{"place": 1, "amount": "10.00"}, {"place": 2, "amount": "20.00"}]}, "prizes"),
    ({"prizes": [{"place": 1, "amount": "10.001"}]}, "prizes"),
    ({"limits": {"max_accuracy_m": -1}}, "limits"),
])
def test_r31_the_form_names_exactly_the_field_that_is_wrong(change: dict[str, object], field: str) -> None:
    assert problems(FORM_2027 | change) == [("invalid_input", field)]


def test_r31_weekdays_that_fall_on_no_day_of_the_span_are_refused() -> None:
    # 4 Oct 2027 is a Monday: a one-day season open only on Sundays has no game day
    assert problems(FORM_2027 | {"last_day": "2027-10-04", "open_weekdays": [6]}) == [
        ("invalid_input", "open_weekdays")]


def test_r31_a_season_overlapping_another_or_starting_in_the_past_is_refused() -> None:
    overlapping = made(FORM_2027 | {"first_day": "2026-10-20", "last_day": "2026-11-20"})
    found = seasons.validate(overlapping, [S2026], at(2026, 10, 1))
    assert [(p.code, p.field) for p in found] == [("season_overlaps", "first_day")]
    assert "2026-10-05 to 2026-10-24" in found[0].message
    late = seasons.validate(made(FORM_2027), [S2026], at(2027, 10, 4, 6))
    assert [(p.code, p.field) for p in late] == [("invalid_input", "first_day")]
    assert seasons.validate(made(FORM_2027), [S2026], at(2026, 12, 7)) == []


def test_r31_the_season_in_force_is_the_running_one_else_the_last_closed_until_the_next_opens() -> None:
    s2027 = made(FORM_2027)
    both = [s2027, S2026]
    assert seasons.in_force(both, at(2026, 9, 1)) is S2026          # nothing closed yet: the first upcoming
    assert seasons.in_force(both, at(2026, 10, 6)) is S2026         # running
    assert seasons.in_force(both, at(2026, 12, 7)) is S2026         # between seasons: the last closed
    assert seasons.in_force(both, at(2027, 10, 4, 5, 59)) is S2026  # a minute before 2027's first opening
    assert seasons.in_force(both, at(2027, 10, 4, 6)) is s2027      # its first opening
    assert seasons.next_season(both, at(2026, 12, 7)) is s2027
    assert seasons.next_season(both, at(2027, 10, 4, 6)) is None
    assert seasons.in_force([], at(2026, 12, 7)) is None


def test_r31_between_seasons_actions_are_refused_season_not_started_naming_the_opening() -> None:
    r = seasons.action_refusal([S2026, made(FORM_2027)], at(2026, 12, 7), joined={"2026"})
    assert r is not None and r.reason == "season_not_started"
    assert r.message.startswith("The 2027 season opens Monday 4 October at 06:00")


def test_r31_with_no_next_season_actions_are_refused_season_closed() -> None:
    r = seasons.action_refusal([S2026], at(2026, 12, 7), joined={"2026"})
    assert r is not None and r.reason == "season_closed"


def test_r31_in_a_running_season_a_player_who_has_not_joined_it_is_refused_not_joined() -> None:
    both = [S2026, made(FORM_2027)]
    r = seasons.action_refusal(both, at(2027, 10, 5), joined={"2026"})
    assert r is not None and r.reason == "not_joined" and "2027" in r.message
    assert seasons.action_refusal(both, at(2027, 10, 5), joined={"2026", "2027"}) is None


def test_r31_a_season_may_be_changed_until_its_first_opening_and_not_after() -> None:
    s = made(FORM_2027)
    assert seasons.edit_refusal(s, at(2027, 10, 4, 5, 59)) is None
    p = seasons.edit_refusal(s, at(2027, 10, 4, 6))
    assert p is not None and p.code == "season_started"
    changed = seasons.with_changes(s, {"last_day": "2027-10-30", "id": "other"}, commitment="c")
    assert isinstance(changed, Season)
    assert (changed.id, changed.config.last_day.isoformat(), changed.prizes) == ("2027", "2027-10-30", PRIZES)
    assert isinstance(seasons.with_changes(s, {"close_time": "05:00"}, commitment="c"), list)


def test_r12_1_each_later_season_draws_from_its_own_seed_derived_from_the_secret() -> None:
    a, b = seasons.season_seed("secret", "2027"), seasons.season_seed("secret", "2028")
    assert a != b and len(a) == 64 and a == seasons.season_seed("secret", "2027")
    assert seasons.season_seed("other", "2027") != a
