"""Game time: game days, open hours, game hours and clock boundaries (R1–R5, R14, R25).

Pure functions over a :class:`SeasonConfig`; nothing here reads the wall clock, the bus or a database.
The only I/O is :func:`load_season`, which reads a season JSON file.

Conventions
-----------
* Every ``datetime`` argument must be timezone-aware (any zone); a naive one raises ``ValueError``.
* Every ``datetime`` returned is aware and expressed in the season zone (``cfg.tz``, R1).
* Internally all arithmetic and comparison is done in UTC. Callers should do the same: Python compares and
  subtracts two datetimes that share a ``tzinfo`` object by *wall time*, which is wrong across a DST change.
* A game day's opening and closing instants are built as local wall time and then given the zone
  (:func:`open_interval`), so 06:00 stays 06:00 local on both sides of a DST change.
* A *game hour* is an hour of real elapsed time while the game is open (R4). With the default 06:00–22:00 a
  game day is 16 game hours on every date, DST days included (the change happens at 02:00).

Ordering at one instant (R5)
----------------------------
:func:`boundaries_between` lists boundaries in the order in which their work must run. At the first
opening instant of the season it yields ``season_started``, ``week_started`` and ``day_started``, in that
order; at every other opening, ``week_started`` (first game day of a calendar week) then ``day_started``;
at the last closing instant ``day_closed`` then ``season_ended``. Day-start work (top-ups, draws,
Freeze/Blockade activation, expiry of yesterday's extra claims) belongs to ``day_started``. A claim stamped
exactly at the opening instant is open by :func:`is_open`, but must be handled only after every boundary
at or before its instant has been processed.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, NamedTuple
from zoneinfo import ZoneInfo

__all__ = [
    "BoundaryKind",
    "ClockBoundary",
    "SeasonConfig",
    "SeasonLimits",
    "SeasonState",
    "add_game_hours",
    "boundaries_between",
    "default_clock_start",
    "game_day_at",
    "game_day_number",
    "game_days",
    "game_hours_between",
    "game_week_number",
    "is_game_day",
    "is_open",
    "load_season",
    "local_date",
    "next_boundary",
    "next_change",
    "next_game_day",
    "open_interval",
    "previous_game_day",
    "season_closes_at",
    "season_opens_at",
    "season_state",
]

SeasonState = Literal["before", "running", "closed"]
BoundaryKind = Literal["season_started", "week_started", "day_started", "day_closed", "season_ended"]

DEFAULT_SEASON_FILE = "season-2026.json"
_KEYS = ("season_id", "zone", "first_day", "last_day", "open_weekdays", "open_time", "close_time")


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class SeasonLimits:
    """The limits of R7 and R7.1 in the season configuration (its ``limits`` section; RULINGS.md's defaults).

    ``max_accuracy_m``: a fix less precise is ``inaccurate_fix``; ``on_border_m``: a point this close to a border
    shared with another territory is ``on_border``; ``max_fix_age_s`` / ``max_fix_future_s``: a fix older, or
    further in the future, is ``stale_fix``; ``max_travel_kmh``: a faster trail is flagged for the organizer.
    Metres, seconds, km/h; each finite and >= 0 (the speed > 0).
    """

    max_accuracy_m: float = 100.0
    on_border_m: float = 0.5
    max_fix_age_s: float = 120.0
    max_fix_future_s: float = 30.0
    max_travel_kmh: float = 200.0

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
                raise ValueError(f"limit {f.name} must be a finite number >= 0, got {v!r}")
            object.__setattr__(self, f.name, float(v))
        if self.max_travel_kmh == 0:
            raise ValueError("limit max_travel_kmh must be > 0")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeasonLimits:
        """From the season file's ``limits`` object; a missing key takes its default, an unknown key is an error."""
        if not isinstance(d, dict):
            raise ValueError(f"season config limits must be an object, got {d!r}")
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"season config limits: unknown {', '.join(sorted(unknown))}")
        return cls(**d)


@dataclass(frozen=True)
class SeasonConfig:
    """One season's calendar (R1–R3) and the limits of its rules (R7, R7.1). Another season or region is a
    different instance, not different code. ``limits`` defaults to RULINGS.md's values when the file has none."""

    season_id: str
    zone: str
    first_day: date
    last_day: date
    open_weekdays: frozenset[int]  # Monday=0 ... Sunday=6
    open_time: time
    close_time: time  # exclusive
    limits: SeasonLimits = field(default_factory=SeasonLimits)

    def __post_init__(self) -> None:
        ZoneInfo(self.zone)  # raises ZoneInfoNotFoundError (a KeyError) for an unknown zone
        if isinstance(self.first_day, datetime) or isinstance(self.last_day, datetime):
            raise ValueError("first_day and last_day must be dates, not datetimes")
        if self.last_day < self.first_day:
            raise ValueError(f"last_day {self.last_day} is before first_day {self.first_day}")
        if not isinstance(self.open_weekdays, frozenset):
            object.__setattr__(self, "open_weekdays", frozenset(self.open_weekdays))
        if not self.open_weekdays or any(
            not isinstance(w, int) or isinstance(w, bool) or not 0 <= w <= 6 for w in self.open_weekdays
        ):
            raise ValueError(
                f"open_weekdays must be a non-empty set of ints 0..6, got {self.open_weekdays!r}"
            )
        if self.open_time.tzinfo is not None or self.close_time.tzinfo is not None:
            raise ValueError("open_time and close_time are local wall times and must be naive")
        if not self.open_time < self.close_time:
            raise ValueError(f"open_time {self.open_time} must be before close_time {self.close_time}")
        if not _game_days(self):
            raise ValueError("the season has no game day")

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeasonConfig:
        """Build from the JSON form (ISO dates, ``HH:MM`` times, weekday ints, an optional ``limits`` object of
        :class:`SeasonLimits`). Unknown top-level keys are ignored."""
        missing = [k for k in _KEYS if k not in d]
        if missing:
            raise ValueError(f"season config is missing {', '.join(missing)}")
        return cls(
            season_id=str(d["season_id"]),
            zone=str(d["zone"]),
            first_day=_as_date(d["first_day"]),
            last_day=_as_date(d["last_day"]),
            open_weekdays=frozenset(d["open_weekdays"]),
            open_time=_as_time(d["open_time"]),
            close_time=_as_time(d["close_time"]),
            limits=SeasonLimits.from_dict(d.get("limits", {})),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "season_id": self.season_id,
            "zone": self.zone,
            "first_day": self.first_day.isoformat(),
            "last_day": self.last_day.isoformat(),
            "open_weekdays": sorted(self.open_weekdays),
            "open_time": _time_str(self.open_time),
            "close_time": _time_str(self.close_time),
            "limits": asdict(self.limits),
        }


def _as_date(v: Any) -> date:
    if isinstance(v, datetime):
        raise ValueError(f"expected a date, got a datetime {v!r}")
    if isinstance(v, date):
        return v
    return date.fromisoformat(str(v))


def _as_time(v: Any) -> time:
    if isinstance(v, time):
        return v
    return time.fromisoformat(str(v))


def _time_str(t: time) -> str:
    return t.isoformat(timespec="minutes") if t.second == 0 and t.microsecond == 0 else t.isoformat()


def load_season(path: Path | None = None) -> SeasonConfig:
    """Read a season config; default: ``season-2026.json`` shipped beside this module."""
    if path is None:
        text = (
            resources.files(__package__ or "turf_common.rules")
            .joinpath(DEFAULT_SEASON_FILE)
            .read_text(encoding="utf-8")
        )
    else:
        text = Path(path).read_text(encoding="utf-8")
    return SeasonConfig.from_dict(json.loads(text))


# --------------------------------------------------------------------------- schedule (cached per config)


class _Day(NamedTuple):
    day: date
    number: int  # 1-based game day number
    week: int  # 1-based game week (calendar weeks, Monday-start)
    opens: datetime  # UTC
    closes: datetime  # UTC


def _game_days(cfg: SeasonConfig) -> list[date]:
    out: list[date] = []
    d = cfg.first_day
    while d <= cfg.last_day:
        if d.weekday() in cfg.open_weekdays:
            out.append(d)
        d += timedelta(days=1)
    return out


def _wall(cfg: SeasonConfig, d: date, t: time) -> datetime:
    """Local wall time ``d t`` in the season zone, as a canonical aware datetime (via UTC)."""
    return datetime.combine(d, t, tzinfo=cfg.tz).astimezone(UTC).astimezone(cfg.tz)


@lru_cache(maxsize=64)
def _schedule(cfg: SeasonConfig) -> tuple[_Day, ...]:
    days: list[_Day] = []
    week = 0
    prev_monday: date | None = None
    for i, d in enumerate(_game_days(cfg), start=1):
        monday = d - timedelta(days=d.weekday())
        if monday != prev_monday:
            week += 1
            prev_monday = monday
        days.append(
            _Day(
                d,
                i,
                week,
                _wall(cfg, d, cfg.open_time).astimezone(UTC),
                _wall(cfg, d, cfg.close_time).astimezone(UTC),
            )
        )
    return tuple(days)


@lru_cache(maxsize=64)
def _closes(cfg: SeasonConfig) -> tuple[datetime, ...]:
    return tuple(day.closes for day in _schedule(cfg))


@lru_cache(maxsize=64)
def _by_date(cfg: SeasonConfig) -> dict[date, _Day]:
    return {day.day: day for day in _schedule(cfg)}


def _utc(at: datetime) -> datetime:
    if at.tzinfo is None or at.tzinfo.utcoffset(at) is None:
        raise ValueError(f"naive datetime {at!r}: game time needs an aware datetime")
    return at.astimezone(UTC)


def _first_day_closing_after(cfg: SeasonConfig, u: datetime) -> int:
    """Index of the first game day whose closing instant is strictly after UTC instant ``u``."""
    return bisect_right(_closes(cfg), u)


# --------------------------------------------------------------------------- game days (R2)


def is_game_day(cfg: SeasonConfig, d: date) -> bool:
    return cfg.first_day <= d <= cfg.last_day and d.weekday() in cfg.open_weekdays


def game_days(cfg: SeasonConfig) -> list[date]:
    """All game days of the season in order (18 for 2026)."""
    return [day.day for day in _schedule(cfg)]


def game_day_number(cfg: SeasonConfig, d: date) -> int | None:
    """1-based number of game day ``d``, or None if ``d`` is not a game day."""
    day = _by_date(cfg).get(d)
    return day.number if day else None


def game_week_number(cfg: SeasonConfig, d: date) -> int | None:
    """1-based game week of game day ``d`` (calendar weeks, Monday-start), or None if not a game day."""
    day = _by_date(cfg).get(d)
    return day.week if day else None


def next_game_day(cfg: SeasonConfig, d: date) -> date | None:
    """First game day strictly after ``d`` (Saturday -> Monday); None when none remains in the season."""
    for day in _schedule(cfg):
        if day.day > d:
            return day.day
    return None


def previous_game_day(cfg: SeasonConfig, d: date) -> date | None:
    """Last game day strictly before ``d`` (Monday -> Saturday); None before the season's first game day."""
    for day in reversed(_schedule(cfg)):
        if day.day < d:
            return day.day
    return None


def local_date(cfg: SeasonConfig, at: datetime) -> date:
    """Calendar date of ``at`` in the season zone. Raises ValueError for a naive datetime."""
    return _utc(at).astimezone(cfg.tz).date()


def game_day_at(cfg: SeasonConfig, at: datetime) -> date | None:
    """The local date of ``at`` if it is a game day (also before opening and after closing), else None."""
    d = local_date(cfg, at)
    return d if is_game_day(cfg, d) else None


# --------------------------------------------------------------------------- open hours (R3) and season (R25)


def open_interval(cfg: SeasonConfig, d: date) -> tuple[datetime, datetime]:
    """Opening (inclusive) and closing (exclusive) instants of game day ``d``, in ``cfg.tz``.

    Raises ValueError if ``d`` is not a game day.
    """
    day = _by_date(cfg).get(d)
    if day is None:
        raise ValueError(f"{d} is not a game day of season {cfg.season_id}")
    return day.opens.astimezone(cfg.tz), day.closes.astimezone(cfg.tz)


def is_open(cfg: SeasonConfig, at: datetime) -> bool:
    """R3: ``at`` is on a game day and opening <= ``at`` < closing."""
    u = _utc(at)
    days = _schedule(cfg)
    i = _first_day_closing_after(cfg, u)
    return i < len(days) and days[i].opens <= u


def season_opens_at(cfg: SeasonConfig) -> datetime:
    """Opening instant of the first game day."""
    return _schedule(cfg)[0].opens.astimezone(cfg.tz)


def season_closes_at(cfg: SeasonConfig) -> datetime:
    """Closing instant of the last game day (R25: ownership and scores lock here)."""
    return _schedule(cfg)[-1].closes.astimezone(cfg.tz)


def season_state(cfg: SeasonConfig, at: datetime) -> SeasonState:
    """``before`` until the first opening, ``closed`` from the final closing instant, else ``running``."""
    u = _utc(at)
    days = _schedule(cfg)
    if u < days[0].opens:
        return "before"
    if u >= days[-1].closes:
        return "closed"
    return "running"


def next_change(cfg: SeasonConfig, at: datetime) -> datetime | None:
    """Next instant strictly after ``at`` at which :func:`is_open` flips; None once the season has closed."""
    u = _utc(at)
    days = _schedule(cfg)
    i = _first_day_closing_after(cfg, u)
    if i >= len(days):
        return None
    day = days[i]
    return (day.opens if u < day.opens else day.closes).astimezone(cfg.tz)


def default_clock_start(cfg: SeasonConfig) -> datetime:
    """Where a fresh clock starts: one hour before the season opens (first game day 05:00 local in 2026)."""
    return (_schedule(cfg)[0].opens - timedelta(hours=1)).astimezone(cfg.tz)


# --------------------------------------------------------------------------- game hours (R4, R14)


def add_game_hours(cfg: SeasonConfig, at: datetime, hours: float) -> datetime | None:
    """R4: the instant reached after ``hours`` game hours counted from ``at``.

    Time counts only while the game is open. If ``at`` is in closed time, counting starts at the next opening
    (so ``hours=0`` from closed time gives that opening). A result landing exactly on a closing instant stays
    there: Monday 06:00 + 16 h = Monday 22:00, and the season's final close is a valid result (a War window
    ending then fits, R14). Game hours exist only inside the season: None if the season closes first.
    Raises ValueError for negative or non-finite ``hours``.
    """
    if not math.isfinite(hours) or hours < 0:
        raise ValueError(f"hours must be a finite number >= 0, got {hours!r}")
    u = _utc(at)
    try:
        remaining = timedelta(hours=hours)
    except OverflowError:  # more hours than any calendar holds
        return None
    days = _schedule(cfg)
    for day in days[_first_day_closing_after(cfg, u) :]:
        start = max(u, day.opens)
        available = day.closes - start
        if remaining <= available:
            return (start + remaining).astimezone(cfg.tz)
        remaining -= available
    return None


def game_hours_between(cfg: SeasonConfig, a: datetime, b: datetime) -> float:
    """Open hours elapsed in ``[a, b)``; 0.0 when ``b <= a``."""
    ua, ub = _utc(a), _utc(b)
    if ub <= ua:
        return 0.0
    total = timedelta(0)
    for day in _schedule(cfg)[_first_day_closing_after(cfg, ua) :]:
        if day.opens >= ub:
            break
        total += min(ub, day.closes) - max(ua, day.opens)
    return total / timedelta(hours=1)


# --------------------------------------------------------------------------- clock boundaries (R5, R12, R25)


@dataclass(frozen=True)
class ClockBoundary:
    kind: BoundaryKind
    at: datetime  # aware, in cfg.tz
    game_day: date
    game_day_number: int
    week: int  # 1-based game week


@lru_cache(maxsize=64)
def _boundaries(cfg: SeasonConfig) -> tuple[tuple[datetime, ClockBoundary], ...]:
    """Every boundary of the season, ordered by time and, at one instant, in processing order (R5)."""
    out: list[tuple[datetime, ClockBoundary]] = []
    days = _schedule(cfg)
    tz = cfg.tz

    def add(kind: BoundaryKind, u: datetime, day: _Day) -> None:
        out.append((u, ClockBoundary(kind, u.astimezone(tz), day.day, day.number, day.week)))

    prev_week = 0
    for i, day in enumerate(days):
        if i == 0:
            add("season_started", day.opens, day)
        if day.week != prev_week:
            add("week_started", day.opens, day)
            prev_week = day.week
        add("day_started", day.opens, day)
        add("day_closed", day.closes, day)
        if i == len(days) - 1:
            add("season_ended", day.closes, day)
    return tuple(out)


def boundaries_between(cfg: SeasonConfig, after: datetime, upto: datetime) -> list[ClockBoundary]:
    """Every boundary with ``after < at <= upto``, in the order its work must run.

    Ordered by time; at one instant: ``season_started``, ``week_started``, ``day_started`` (first opening),
    and ``day_closed`` then ``season_ended`` (final close). ``week_started`` fires at the opening of the first
    game day of each calendar week in the season (Monday normally; R12's top-up). See the module docstring
    for R5: process these before any action stamped at the same instant.
    """
    ua, ub = _utc(after), _utc(upto)
    return [b for u, b in _boundaries(cfg) if ua < u <= ub]


def next_boundary(cfg: SeasonConfig, after: datetime) -> ClockBoundary | None:
    """First boundary strictly after ``after`` (first in processing order if several share its instant)."""
    ua = _utc(after)
    for u, b in _boundaries(cfg):
        if u > ua:
            return b
    return None
