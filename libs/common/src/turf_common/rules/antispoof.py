"""Anti-spoofing: signs that a fix was not made by a phone in a moving person's hand. A flag never changes the
decision (the claim is accepted or refused on the rules alone); it puts the claim in front of the organizer."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

EARTH_RADIUS_M = 6_371_008.8


@dataclass(frozen=True)
class FixRecord:
    """One GPS fix: WGS84 degrees, accuracy in metres, the fix's own (aware) time."""

    lat: float
    lon: float
    accuracy_m: float
    fix_time: datetime


@dataclass(frozen=True)
class Flag:
    kind: str  # impossible_travel | repeated_fix | zero_accuracy
    evidence: dict[str, Any] = field(default_factory=dict)


def haversine_m(a: FixRecord, b: FixRecord) -> float:
    """Great-circle distance in metres between two fixes."""
    p1, p2 = math.radians(a.lat), math.radians(b.lat)
    dp, dl = p2 - p1, math.radians(b.lon - a.lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def flags_for(fix: FixRecord, previous: FixRecord | None, seen_before: bool,
              max_travel_kmh: float = 200.0) -> list[Flag]:
    """Flags for ``fix`` given the player's previous fix and whether an identical fix (same lat, lon and
    accuracy, to the last bit) was already submitted by that player.

    * ``impossible_travel``: the distance from the previous fix, less both accuracy radii, over the time between
      the fixes (at least 1 s) is faster than ``max_travel_kmh``;
    * ``repeated_fix``: a real receiver never reports the same position and accuracy twice;
    * ``zero_accuracy``: no receiver reports an accuracy of exactly 0 m.
    """
    out: list[Flag] = []
    if previous is not None:
        dist = max(0.0, haversine_m(previous, fix) - previous.accuracy_m - fix.accuracy_m)
        secs = max(abs((fix.fix_time - previous.fix_time).total_seconds()), 1.0)
        kmh = dist / secs * 3.6
        if kmh > max_travel_kmh:
            out.append(Flag("impossible_travel", {
                "from": {"lat": previous.lat, "lon": previous.lon, "fix_time": previous.fix_time.isoformat()},
                "to": {"lat": fix.lat, "lon": fix.lon, "fix_time": fix.fix_time.isoformat()},
                "distance_m": round(dist, 1), "seconds": secs, "speed_kmh": round(kmh, 1),
                "max_travel_kmh": max_travel_kmh}))
    if seen_before:
        out.append(Flag("repeated_fix", {"lat": fix.lat, "lon": fix.lon, "accuracy_m": fix.accuracy_m}))
    if fix.accuracy_m == 0:
        out.append(Flag("zero_accuracy", {"accuracy_m": 0}))
    return out
