"""Take the Hudson River out of the 1:500k New York county subdivisions.

The Census cartographic file clips New York towns to the ocean and Sound shoreline but not along the Hudson: the
towns of Rockland, Orange and Westchester run out to the county line in mid-river (their polygon area equals
ALAND + AWATER), and the Westchester river towns run out to the NJ-NY line. Without a water layer among the raw
files, the river is rebuilt from the data itself:

* its middle line is the county line between the west bank (Rockland, Orange) and the east bank (Westchester,
  Putnam, Dutchess), plus the Westchester line facing New Jersey's (shoreline-clipped) side of the river;
* each town touching that line loses a strip along it whose width is chosen so that the strip's area matches
  ``WATER_SHARE`` of the town's Census AWATER (the rest being lakes and reservoirs), between ``MIN_WIDTH_M`` and
  ``MAX_WIDTH_M``.

The shore so drawn runs parallel to the middle line: approximate, but it leaves the river empty so that no edge
crosses it, river towns border water, and villages clipped to the towns do not reach into the Hudson.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

WEST_BANK = {"087", "071"}  # Rockland, Orange
EAST_BANK = {"119", "079", "027"}  # Westchester, Putnam, Dutchess
WATER_SHARE = 0.85
MIN_WIDTH_M = 150.0
MAX_WIDTH_M = 2_600.0
# Westchester's unshared line west of this easting (UTM 18N) is the Hudson (NJ-NY line in the river);
# east of it lie the Sound shore and the Connecticut line.
HUDSON_MAX_EASTING = 597_000.0


@dataclass
class RiverCut:
    id: str
    name: str
    width_m: float
    water_removed_m2: float
    awater_m2: float


def middle_line(cousubs: list[tuple[dict[str, Any], BaseGeometry]]) -> BaseGeometry:
    west = [g for p, g in cousubs if str(p["COUNTYFP"]) in WEST_BANK]
    east = [g for p, g in cousubs if str(p["COUNTYFP"]) in EAST_BANK]
    county_line = shapely.union_all([g.boundary for g in west]).intersection(shapely.union_all(east).buffer(5.0))
    westchester = [g for p, g in cousubs if str(p["COUNTYFP"]) == "119"]
    others = [g for p, g in cousubs if str(p["COUNTYFP"]) != "119"]
    all_west = shapely.union_all(westchester)
    unshared = all_west.boundary.difference(shapely.union_all(others).buffer(5.0))
    # and not shared between two Westchester units either (that is the union's boundary already)
    xmin, ymin, _xmax, ymax = unshared.bounds
    state_line = shapely.clip_by_rect(unshared, xmin, ymin, HUDSON_MAX_EASTING, ymax)
    return shapely.line_merge(shapely.union_all([county_line, state_line]))


def cut_river(cousubs: list[tuple[dict[str, Any], BaseGeometry]]) -> tuple[list[BaseGeometry], list[RiverCut]]:
    """Return the cousub geometries with the Hudson strip removed, and what was cut."""
    line = middle_line(cousubs)
    shapely.prepare(line)
    out: list[BaseGeometry] = []
    cuts: list[RiverCut] = []
    for p, g in cousubs:
        if not g.intersects(line.buffer(10.0)) or str(p["COUNTYFP"]) not in WEST_BANK | EAST_BANK:
            out.append(g)
            continue
        target = WATER_SHARE * float(p["AWATER"])
        xmin, ymin, xmax, ymax = g.bounds
        local = shapely.clip_by_rect(line, xmin - MAX_WIDTH_M, ymin - MAX_WIDTH_M, xmax + MAX_WIDTH_M,
                                     ymax + MAX_WIDTH_M)

        def removed(width: float, local: BaseGeometry = local, g: BaseGeometry = g) -> float:
            return float(g.intersection(local.buffer(width)).area)

        lo, hi = MIN_WIDTH_M, MAX_WIDTH_M
        if removed(lo) >= target:
            width = lo
        elif removed(hi) <= target:
            width = hi
        else:
            for _ in range(14):
                mid = (lo + hi) / 2
                if removed(mid) < target:
                    lo = mid
                else:
                    hi = mid
            width = (lo + hi) / 2
        strip = local.buffer(width)
        new = g.difference(strip)
        cuts.append(RiverCut(str(p["GEOID"]), str(p["NAME"]), round(width, 1),
                             round(g.area - new.area, 1), float(p["AWATER"])))
        out.append(new)
    return out, cuts
