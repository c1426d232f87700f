"""R30: how long personal data outlives the season. Home addresses and location fixes of every player are erased a
configurable time after the season's close (default 30 days)."""

from __future__ import annotations

from datetime import datetime, timedelta

from turf_common.rules import gametime

DEFAULT_DAYS = 30


def erasure_at(cfg: gametime.SeasonConfig, days: int = DEFAULT_DAYS) -> datetime:
    """R30: the instant from which home addresses and location fixes are erased."""
    return gametime.season_closes_at(cfg) + timedelta(days=days)


def erasure_due(cfg: gametime.SeasonConfig, now: datetime, days: int = DEFAULT_DAYS) -> bool:
    """R30: whether game instant ``now`` is at or past :func:`erasure_at`."""
    return now >= erasure_at(cfg, days)
