"""R30: home addresses and location fixes are erased a configurable time after the season's close (30 days by
default), on the game clock."""

from __future__ import annotations

from datetime import timedelta

from turf_common.rules import gametime, retention

SEASON = gametime.load_season()


def test_r30_erasure_is_due_30_days_after_the_close_by_default_and_not_a_moment_before() -> None:
    closes = gametime.season_closes_at(SEASON)
    assert retention.erasure_at(SEASON) == closes + timedelta(days=30)
    assert not retention.erasure_due(SEASON, closes + timedelta(days=30) - timedelta(seconds=1))
    assert retention.erasure_due(SEASON, closes + timedelta(days=30))


def test_r30_the_delay_is_a_setting() -> None:
    closes = gametime.season_closes_at(SEASON)
    assert retention.erasure_due(SEASON, closes, days=0)
    assert not retention.erasure_due(SEASON, closes + timedelta(days=6), days=7)
