"""``GET /season`` (public, beyond API.md): the season's calendar and limits as configured (R1–R3, R7, R7.1), so the
pages' "How to play" gives this season's dates and hours, not a copy that can go stale."""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from turf_common.rules import gametime
from turf_gateway.api.deps import State

router = APIRouter(tags=["public"])
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class GameDay(BaseModel):
    number: int = Field(description="1-based (R2)")
    date: date
    opens: str = Field(description="ISO 8601 in the season's zone")
    closes: str


class Limits(BaseModel):
    max_accuracy_m: float = Field(description="a less precise fix is inaccurate_fix (R7)")
    max_fix_age_s: float = Field(description="an older fix is stale_fix (R7)")
    max_travel_kmh: float = Field(description="a faster trail is flagged for the organizer, never refused (R7.1)")


class Season(BaseModel):
    season_id: str
    zone: str = Field(description="every game time is in it (R1)")
    first_day: date
    last_day: date
    open_weekdays: list[str]
    opens: str = Field(description="local opening time of each game day, HH:MM (R3)")
    closes: str = Field(description="local closing time, HH:MM, exclusive (R3)")
    game_days: list[GameDay]
    limits: Limits


def season_body(cfg: Any) -> Season:
    days = []
    for d in gametime.game_days(cfg):
        opens, closes = gametime.open_interval(cfg, d)
        days.append(GameDay(number=gametime.game_day_number(cfg, d) or 0, date=d,
                            opens=opens.astimezone(cfg.tz).isoformat(), closes=closes.astimezone(cfg.tz).isoformat()))
    return Season(season_id=cfg.season_id, zone=cfg.zone, first_day=cfg.first_day, last_day=cfg.last_day,
                  open_weekdays=[WEEKDAYS[i] for i in sorted(cfg.open_weekdays)],
                  opens=cfg.open_time.strftime("%H:%M"), closes=cfg.close_time.strftime("%H:%M"), game_days=days,
                  limits=Limits(max_accuracy_m=cfg.limits.max_accuracy_m, max_fix_age_s=cfg.limits.max_fix_age_s,
                                max_travel_kmh=cfg.limits.max_travel_kmh))


@router.get("/season", response_model=Season)
async def season(state: State) -> Season:
    """The season's calendar: its game days with their opening and closing instants, and the R7 limits."""
    return season_body(state.season)
