"""R27: two players at one address are flagged for the organizer, never refused. Addresses are compared
by their geocoded points where both players have one ("1 Main St" and "1 Main Street" are one household; the
strings differ), by their normalised strings otherwise (a pending player whose address found no point)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from turf_common.rules.antispoof import great_circle_m

#: two geocoded homes this close (metres) are one address: a geocoder puts one address at one point, and the
#: neighbours' houses (interpolated along the street) lie tens of metres apart
HOUSEHOLD_M = 15.0
_M_PER_DEG_LAT = 111_195.0


@dataclass(frozen=True)
class Home:
    """A player's home as registered: ``address_norm`` the normalised address (None: not given), ``point`` the
    geocoded (lat, lon) in WGS84 degrees (None: not geocoded)."""

    player_id: str
    address_norm: str | None
    point: tuple[float, float] | None


def same_household(a: Home, b: Home, within_m: float = HOUSEHOLD_M) -> bool:
    """R27: one address, by point when both were geocoded, else by the normalised address (never by an empty one)."""
    if a.point is not None and b.point is not None:
        return great_circle_m(a.point, b.point) <= within_m
    return bool(a.address_norm) and a.address_norm == b.address_norm


def households(homes: Sequence[Home], within_m: float = HOUSEHOLD_M) -> dict[str, list[str]]:
    """R27: player id → the other players at the same address (:func:`same_household`), in ``homes``' order; every
    player of ``homes`` is a key. Points are compared along a sweep by latitude (only those within ``within_m`` of
    latitude), strings through a dictionary: fast enough for every player of a season on each read."""
    pairs: set[tuple[int, int]] = set()
    located = sorted((h.point, i) for i, h in enumerate(homes) if h.point is not None)
    band = within_m / _M_PER_DEG_LAT
    for k, (p, i) in enumerate(located):
        for q, j in located[k + 1:]:
            if q[0] - p[0] > band:
                break
            if great_circle_m(p, q) <= within_m:
                pairs.add((min(i, j), max(i, j)))
    by_addr: dict[str, list[int]] = {}
    for i, h in enumerate(homes):
        if h.address_norm:
            by_addr.setdefault(h.address_norm, []).append(i)
    for group in by_addr.values():
        pairs |= {(i, j) for x, i in enumerate(group) for j in group[x + 1:]
                  if homes[i].point is None or homes[j].point is None}
    others: dict[int, list[int]] = {i: [] for i in range(len(homes))}
    for i, j in pairs:
        others[i].append(j)
        others[j].append(i)
    return {homes[i].player_id: [homes[j].player_id for j in sorted(js)] for i, js in others.items()}
