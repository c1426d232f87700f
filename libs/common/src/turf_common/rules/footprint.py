"""A player's season from the public history (pure): the footprint (every town held, GPS-claimed or lost, and what
happened there), the holds and their length in game days, the best steal, and the statistics (claims by hour,
steals given and taken, the rival fought most). Only ``territory.changed`` events are read, as for the medals
(:mod:`turf_common.rules.medals`): a player's private checks and fixes (R27, R30) are never part of it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from turf_common.rules import gametime
from turf_common.rules.medals import GPS_CAUSES, Change


@dataclass(frozen=True)
class Hold:
    """``player`` owned ``territory_id`` from ``start`` to ``end`` (None: still), without a break."""

    territory_id: str
    start: datetime
    end: datetime | None
    days: int   # game-day closes (R2, R3) within the hold, up to the instant read to


@dataclass
class Town:
    """One town of the footprint: ``status`` ``held`` (owned now) or ``lost`` (owned once, not now)."""

    territory_id: str
    status: str
    claims: int = 0        # GPS claims (R7) of it, War reclaims included
    lost: int = 0          # times it was taken away
    first_at: datetime | None = None
    last_at: datetime | None = None


@dataclass(frozen=True)
class Steal:
    territory_id: str
    at: datetime
    victim_id: str
    held_days: int         # how long the thief then held it


@dataclass
class Season:
    player_id: str
    towns: dict[str, Town] = field(default_factory=dict)
    holds: list[Hold] = field(default_factory=list)
    claims_by_hour: Counter[int] = field(default_factory=Counter)   # local hour (R1) of each GPS claim
    steals_given: Counter[str] = field(default_factory=Counter)     # by victim
    steals_taken: Counter[str] = field(default_factory=Counter)     # by thief
    steals: list[Steal] = field(default_factory=list)

    @property
    def longest_hold(self) -> Hold | None:
        return max(self.holds, key=lambda h: (h.days, -h.start.timestamp()), default=None)

    @property
    def best_steal(self) -> Steal | None:
        """The steal whose town the player then held longest (the earliest of equals)."""
        return max(self.steals, key=lambda s: (s.held_days, -s.at.timestamp()), default=None)

    @property
    def rival(self) -> str | None:
        """The player with the most steals between the two, either way (ties: the smaller id)."""
        fought = self.steals_given + self.steals_taken
        return min(fought, key=lambda p: (-fought[p], p)) if fought else None

    @property
    def held_now(self) -> int:
        return sum(1 for t in self.towns.values() if t.status == "held")


def is_steal(c: Change) -> bool:
    """R9: a claim of another player's town; R14: a War reclaim is a steal."""
    return c.owner_id is not None and (c.cause == "war_reclaim" or (
        c.cause == "claim" and c.previous_owner_id is not None and c.previous_owner_id != c.owner_id))


def season_of(player_id: str, changes: Iterable[Change], season: gametime.SeasonConfig,
              until: datetime) -> Season:
    """``player_id``'s season from the changes (stream order) up to ``until``."""
    s = Season(player_id)
    started: dict[str, datetime] = {}
    steal_at: dict[str, tuple[datetime, str]] = {}
    for c in changes:
        if c.at > until:
            break
        if c.owner_id == player_id:
            _gained(s, c, started, steal_at, season.tz)
        elif c.previous_owner_id == player_id:
            _lost(s, c, started, steal_at, season, until)
    for tid, start in started.items():
        _close(s, tid, start, None, steal_at.pop(tid, None), season, until)
    s.holds.sort(key=lambda h: h.start)
    s.steals.sort(key=lambda x: x.at)
    return s


def _gained(s: Season, c: Change, started: dict[str, datetime], steal_at: dict[str, tuple[datetime, str]],
            tz: ZoneInfo) -> None:
    town = s.towns.setdefault(c.territory_id, Town(c.territory_id, "held", first_at=c.at))
    town.status, town.last_at = "held", c.at
    started.setdefault(c.territory_id, c.at)   # a reinforce keeps the hold
    if c.cause in GPS_CAUSES:
        town.claims += 1
        s.claims_by_hour[c.at.astimezone(tz).hour] += 1
    if is_steal(c) and c.previous_owner_id is not None:
        s.steals_given[c.previous_owner_id] += 1
        steal_at[c.territory_id] = (c.at, c.previous_owner_id)


def _lost(s: Season, c: Change, started: dict[str, datetime], steal_at: dict[str, tuple[datetime, str]],
          season: gametime.SeasonConfig, until: datetime) -> None:
    town = s.towns.setdefault(c.territory_id, Town(c.territory_id, "lost", first_at=c.at))
    town.status, town.last_at = "lost", c.at
    town.lost += 1
    if is_steal(c) and c.owner_id is not None:
        s.steals_taken[c.owner_id] += 1
    if c.territory_id in started:
        _close(s, c.territory_id, started.pop(c.territory_id), c.at, steal_at.pop(c.territory_id, None), season,
               until)


def _close(s: Season, tid: str, start: datetime, end: datetime | None, steal: tuple[datetime, str] | None,
           season: gametime.SeasonConfig, until: datetime) -> None:
    days = closes_between(season, start, end or until)
    s.holds.append(Hold(tid, start, end, days))
    if steal is not None:
        s.steals.append(Steal(tid, steal[0], steal[1], days))


def closes_between(season: gametime.SeasonConfig, start: datetime, end: datetime) -> int:
    """Game-day closes (R2, R3) in ``(start, end]``."""
    return sum(1 for d in gametime.game_days(season) if start < gametime.open_interval(season, d)[1] <= end)
