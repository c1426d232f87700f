"""R1: every value the rulings mark as configuration comes from the season configuration, R7's limits and R7.1's
speed included, and refusal messages quote the configured values."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from turf_common.rules import gametime
from turf_common.rules.claims import (
    ClaimantFacts,
    Fortification,
    TerritoryFacts,
    check_location,
    check_open,
    decide_claim,
)
from turf_common.rules.refusals import MESSAGES, Refused, game_closed_message, limit_message

DEFAULT = gametime.load_season()
MON = datetime.fromisoformat("2026-10-05T07:45:00-04:00")
BASE = {k: v for k, v in DEFAULT.to_dict().items() if k != "limits"}


def _decide(cfg: gametime.SeasonConfig, now: datetime, **kw: object) -> Refused:
    args: dict[str, object] = dict(fix_time=now, accuracy_m=5.0, territory_id="T", border_distance_m=30.0,
                                   claimant=ClaimantFacts("A", True, 0, 1, False),
                                   territory=TerritoryFacts("T", None, Fortification()), locked_by_other_today=False)
    d = decide_claim(cfg, now, **(args | kw))  # type: ignore[arg-type]
    assert isinstance(d, Refused), d
    return d


def test_r1_season_file_without_limits_takes_the_rulings_defaults() -> None:
    cfg = gametime.SeasonConfig.from_dict(BASE)  # a season file of before the limits section
    assert cfg.limits == gametime.SeasonLimits(max_accuracy_m=100, on_border_m=0.5, max_fix_age_s=120,
                                               max_fix_future_s=30, max_travel_kmh=200)
    assert cfg == DEFAULT  # the shipped file states the same defaults
    assert gametime.SeasonConfig.from_dict(BASE | {"limits": {"max_accuracy_m": 42}}).limits == \
        gametime.SeasonLimits(max_accuracy_m=42)


def test_r1_r7_limits_come_from_the_season_file_and_messages_quote_them(tmp_path: Path) -> None:
    p = tmp_path / "season.json"
    p.write_text(json.dumps(BASE | {"open_time": "07:30", "close_time": "20:15", "limits": {
        "max_accuracy_m": 42, "on_border_m": 2.5, "max_fix_age_s": 60, "max_fix_future_s": 10,
        "max_travel_kmh": 90}}))
    cfg = gametime.load_season(p)
    assert cfg.limits.max_travel_kmh == 90
    # R7 inaccurate_fix: 50 m passes the default 100 m, not the configured 42 m
    r = _decide(cfg, MON, accuracy_m=50.0)
    assert (r.reason, r.message) == ("inaccurate_fix", "Your location fix is not precise enough (over 42 m); wait "
                                                       "for a better GPS signal.")
    assert _decide(cfg, MON, accuracy_m=42.0, border_distance_m=2.0).reason == "on_border"
    r = _decide(cfg, MON, border_distance_m=2.5)
    assert r.reason == "on_border" and "within 2.5 m" in r.message
    r = _decide(cfg, MON, fix_time=MON - timedelta(seconds=61))
    assert r.reason == "stale_fix" and "over 60 s" in r.message and "over 10 s ahead" in r.message
    assert _decide(cfg, MON, fix_time=MON + timedelta(seconds=11)).reason == "stale_fix"
    # R3 game_closed: 07:00 is open by default, closed in this season; the message quotes its hours
    r = _decide(cfg, MON - timedelta(minutes=45))
    assert (r.reason, r.message) == ("game_closed", "The game is closed right now. It is open Monday to Saturday, "
                                                    "7:30 to 20:15 New York time.")
    closed = check_open(cfg, datetime.fromisoformat("2026-10-05T20:15:00-04:00"))
    assert closed is not None and "7:30 to 20:15" in closed.message


def test_r1_game_closed_message_quotes_days_hours_and_zone() -> None:
    cfg = gametime.SeasonConfig.from_dict(BASE | {"zone": "Europe/London", "open_weekdays": [0, 2, 4],
                                                  "open_time": "09:05", "close_time": "17:00"})
    assert game_closed_message(cfg) == ("The game is closed right now. It is open Monday, Wednesday and Friday, "
                                        "9:05 to 17:00 London time.")
    every = gametime.SeasonConfig.from_dict(BASE | {"open_weekdays": list(range(7))})
    assert "open every day, 6:00 to 22:00" in game_closed_message(every)


def test_r1_default_messages_are_the_default_configuration() -> None:
    assert game_closed_message(DEFAULT) == MESSAGES["game_closed"]
    for code in ("on_border", "inaccurate_fix", "stale_fix"):
        assert limit_message(code, DEFAULT.limits) == MESSAGES[code]  # type: ignore[arg-type]
    r = check_location(MON, MON, 100.5, "T", 30.0, DEFAULT.limits)
    assert r is not None and r.message == MESSAGES["inaccurate_fix"] and "over 100 m" in r.message


def test_r7_any_finite_accuracy_is_checked_not_malformed() -> None:
    # amended R7: a huge but finite accuracy is inaccurate_fix, never malformed
    r = check_location(MON, MON, 1e12, "T", 30.0, DEFAULT.limits)
    assert r is not None and r.reason == "inaccurate_fix"
