"""R31: the season a use case plays by at an instant. The gateway's use cases hold the book of the catalog's
calendars (:attr:`turf_gateway.handlers.seasons.Seasons.book`, filled from the catalog as it is read), or, in unit
tests and tools, one season's configuration."""

from __future__ import annotations

from datetime import datetime

from turf_common.rules.gametime import SeasonConfig
from turf_common.seasonbook import SeasonBook

#: one season's configuration (tests, tools) or the book of every season
SeasonSource = SeasonConfig | SeasonBook


def config_at(source: SeasonSource, at: datetime) -> SeasonConfig:
    """The calendar and limits in force at ``at`` (R31: the running season, between seasons the last closed one
    until the next one's first opening)."""
    return source if isinstance(source, SeasonConfig) else source.config_at(at)
