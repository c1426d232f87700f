from __future__ import annotations

from pydantic import Field

from turf_common.contracts.base import Message


class LocatePoint(Message):
    """``geo.locate`` request: a WGS84 point in degrees."""

    lat: float = Field(ge=-90, le=90, allow_inf_nan=False)
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)


class Located(Message):
    """``geo.locate`` reply: the territory containing the point (or None) and the distance in metres from
    the point to the nearest border that territory shares with another (R7; None off the board or when it shares
    none: a coastline or the board's edge is not a border)."""

    territory_id: str | None
    territory_name: str | None = None
    border_distance_m: float | None
