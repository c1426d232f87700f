"""Shared-border adjacency (R22) and water frontage (R24), measured in metres."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

MIN_SHARED_BORDER_M = 50.0
SAME_SOURCE_TOL_M = 1.0  # one source: lines are identical, only floating-point noise
CROSS_SOURCE_TOL_M = 40.0  # two sources meeting at the state line / NYC line: "a few tens of metres"
WATER_TOL_SAME_M = 5.0
WATER_TOL_CROSS_M = 150.0  # the 1:500k New York lines wander up to ~100 m from the full-resolution NJ line
MIN_WATER_M = 200.0


@dataclass
class Edge:
    a: str
    b: str
    shared_m: float
    source: str = "computed"
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"a": self.a, "b": self.b, "shared_m": round(self.shared_m, 1), "source": self.source}
        if self.reason:
            d["reason"] = self.reason
        return d


def shared_length(a: BaseGeometry, b_buf: BaseGeometry, tol: float) -> float:
    """Length of a's boundary within ``tol`` of b, less the 2·tol a buffer adds at each end of each stretch.

    The end correction makes corner-only contact (an L of length ~2·tol) count as zero.
    """
    xmin, ymin, xmax, ymax = b_buf.bounds
    boundary = shapely.clip_by_rect(a.boundary, xmin, ymin, xmax, ymax)
    if boundary.is_empty:
        return 0.0
    inter = boundary.intersection(b_buf)
    if inter.is_empty:
        return 0.0
    merged = shapely.line_merge(inter) if inter.geom_type in ("MultiLineString", "GeometryCollection") else inter
    pieces = getattr(merged, "geoms", [merged])
    total = 0.0
    for p in pieces:
        if p.geom_type in ("LineString", "LinearRing", "MultiLineString"):
            total += max(0.0, p.length - 2.0 * tol)
    return total


def compute_edges(ids: Sequence[str], geoms: Sequence[BaseGeometry], groups: Sequence[str],
                  progress: Any = None) -> list[Edge]:
    tree = shapely.STRtree(list(geoms))
    buf_same = [g.buffer(SAME_SOURCE_TOL_M) for g in geoms]
    buf_cross: dict[int, BaseGeometry] = {}
    edges: list[Edge] = []
    for i, g in enumerate(geoms):
        cand = tree.query(g.buffer(CROSS_SOURCE_TOL_M), predicate="intersects")
        for j in sorted(int(c) for c in cand):
            if j <= i:
                continue
            if groups[i] == groups[j]:
                tol = SAME_SOURCE_TOL_M
                bj, bi = buf_same[j], buf_same[i]
            else:
                tol = CROSS_SOURCE_TOL_M
                if j not in buf_cross:
                    buf_cross[j] = geoms[j].buffer(tol)
                if i not in buf_cross:
                    buf_cross[i] = g.buffer(tol)
                bj, bi = buf_cross[j], buf_cross[i]
            lij = shared_length(g, bj, tol)
            if lij < MIN_SHARED_BORDER_M:
                continue
            lji = shared_length(geoms[j], bi, tol)
            shared = min(lij, lji)
            if shared >= MIN_SHARED_BORDER_M:
                a, b = sorted((ids[i], ids[j]))
                edges.append(Edge(a, b, shared))
        if progress is not None:
            progress()
    return edges


def water_frontage(ids: Sequence[str], geoms: Sequence[BaseGeometry], groups: Sequence[str],
                   outside: Sequence[BaseGeometry], outside_groups: Sequence[str],
                   progress: Any = None) -> dict[str, float]:
    """Metres of each territory's boundary that face no municipality of either state."""
    all_geoms = list(geoms) + list(outside)
    all_groups = list(groups) + list(outside_groups)
    tree = shapely.STRtree(all_geoms)
    cache: dict[tuple[int, float], BaseGeometry] = {}

    def buffered(j: int, tol: float) -> BaseGeometry:
        key = (j, tol)
        if key not in cache:
            cache[key] = all_geoms[j].buffer(tol)
        return cache[key]

    out: dict[str, float] = {}
    for i, g in enumerate(geoms):
        cand = tree.query(g.buffer(WATER_TOL_CROSS_M), predicate="intersects")
        covers = []
        for j in (int(c) for c in cand):
            if j == i:
                continue
            tol = WATER_TOL_SAME_M if all_groups[j] == groups[i] else WATER_TOL_CROSS_M
            covers.append(buffered(j, tol))
        boundary = g.boundary
        if covers:
            free = boundary.difference(shapely.union_all(covers))
        else:
            free = boundary
        out[ids[i]] = float(free.length)
        if progress is not None:
            progress()
    return out
