from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, Literal

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Event, Message


class ClockState(Message):
    """The game clock as every process reads it (NATS KV ``turf_clock``/``state``).

    game time = ``game_anchor`` + (real time − ``real_anchor``) × ``factor``; ``factor`` is 0 in manual mode,
    1 in real mode, N in ``accelerated:N``.
    """

    mode: Literal["real", "accelerated", "manual"]
    factor: float
    game_anchor: AwareDatetime
    real_anchor: AwareDatetime
    revision: int = 0

    def now(self, real_now: datetime) -> datetime:
        if self.factor == 0:
            return self.game_anchor
        elapsed = (real_now - self.real_anchor).total_seconds() * self.factor
        return self.game_anchor + timedelta(seconds=elapsed)


class SetClock(Message):
    """``clock.set``: move a manual clock forward to ``now``."""

    now: AwareDatetime


class ClockSet(Message):
    ok: Literal[True] = True
    now: AwareDatetime
    events: list[str]


class ClockBoundaryEvent(Event):
    """Base of the five ``clock.*`` events; ``at`` is the boundary instant (game time)."""

    at: AwareDatetime
    game_day: date
    game_day_number: int
    week: int
    season_id: str


class SeasonStarted(ClockBoundaryEvent):
    type: Literal["clock.season_started"] = "clock.season_started"
    kind: Literal["season_started"] = "season_started"
    seed_commitment: str | None = None


class WeekStarted(ClockBoundaryEvent):
    type: Literal["clock.week_started"] = "clock.week_started"
    kind: Literal["week_started"] = "week_started"


class DayStarted(ClockBoundaryEvent):
    type: Literal["clock.day_started"] = "clock.day_started"
    kind: Literal["day_started"] = "day_started"


class DayClosed(ClockBoundaryEvent):
    type: Literal["clock.day_closed"] = "clock.day_closed"
    kind: Literal["day_closed"] = "day_closed"


class SeasonEnded(ClockBoundaryEvent):
    type: Literal["clock.season_ended"] = "clock.season_ended"
    kind: Literal["season_ended"] = "season_ended"
    seed: str | None = None


class SeasonCalendar(Message):
    """One season as every process plays it (R31): its R1 configuration (``config``, the shape of
    :meth:`turf_common.rules.gametime.SeasonConfig.to_dict`), the SHA-256 commitment of its card seed (R12.1: the
    cards service tells the configuration file's season, drawn from ``TURF_SEED`` itself, from a later one, drawn
    from a seed derived from it), its R26 prize of each place from the first (dollars, e.g. ``"50.00"``; empty: the
    deployment's prize file) and whether it is a rehearsal."""

    config: dict[str, Any]
    seed_commitment: str
    prizes: list[str] = Field(default_factory=list)
    rehearsal: bool = False


class SetSeasons(Message):
    """``clock.seasons``: the whole catalog of seasons, which the gateway sends after every change and at start.
    The clock keeps it in its KV bucket (key ``seasons``, read by every process's
    :class:`turf_common.seasonbook.SeasonBook`) and emits every season's boundaries (R31)."""

    seasons: list[SeasonCalendar]


class SeasonsSet(Message):
    """The reply to ``clock.seasons``, once the catalog is stored and the boundaries it passes are published."""

    ok: Literal[True] = True
    seasons: list[str]
    events: list[str]
