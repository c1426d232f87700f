from __future__ import annotations

from pydantic import Field

from turf_common.contracts.base import Message


class LocatePoint(Message):
    """``geo.locate`` request: a WGS84 point in degrees."""

    lat: float = Field(ge=-90, le=90, allow_inf_nan=False)
    lon: float = Field(ge=-180, le=180, allow_inf_nan=False)


class Located(Message):
    """``geo.locate`` reply: the territory containing the point (or None) and the distance in metres from
    the point to that territory's boundary."""

    territory_id: str | None
    territory_name: str | None = None
    border_distance_m: float | None
