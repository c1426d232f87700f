"""The grid point index answers exactly as testing every polygon (the first territory in board order that the point
intersects) and gives the exact distance to the territory's borders shared with other territories (R7; which parts
of a boundary are shared is checked by brute force in test_shared_border_r7.py)."""

from __future__ import annotations

import math

import numpy as np
import shapely

from turf_common.board import Board
from turf_common.board.loader import _TO_METRIC


def _brute(board: Board, lats: np.ndarray, lons: np.ndarray) -> list[tuple[str | None, float | None]]:
    x, y = _TO_METRIC.transform(lons, lats)
    out: list[tuple[str | None, float | None]] = []
    board.territory_at(0.0, 0.0)
    index = board._index
    assert index is not None
    for p in shapely.points(np.asarray(x), np.asarray(y)):
        hit = next((i for i, g in enumerate(board._metric) if g.intersects(p)), None)
        if hit is None:
            out.append((None, None))
            continue
        s, e = index._seg_start[hit], index._seg_start[hit + 1]
        border = shapely.multilinestrings(shapely.linestrings(np.stack([index._seg_a[s:e], index._seg_b[s:e]], axis=1)))
        # the shared border is part of the boundary: never nearer than the boundary
        assert shapely.distance(p, border) >= shapely.distance(p, board._metric[hit].boundary) - 1e-9
        out.append((board._ids[hit], float(shapely.distance(p, border)) if e > s else None))
    return out


def test_random_points_match_brute_force(board: Board) -> None:
    rng = np.random.default_rng(2026)
    lon0, lat0, lon1, lat1 = shapely.total_bounds([t.geometry for t in board.territories.values()])
    lats, lons = rng.uniform(lat0, lat1, 400), rng.uniform(lon0, lon1, 400)
    # and points a few metres either side of shared borders, where the cells hold several candidates
    tid = "3606144919"
    ring = shapely.get_coordinates(shapely.get_exterior_ring(shapely.get_parts(board.territories[tid].geometry)))
    ring = ring[:: max(1, len(ring) // 100)]
    near = ring + rng.normal(0, 2e-5, ring.shape)
    lats = np.concatenate([lats, near[:, 1]])
    lons = np.concatenate([lons, near[:, 0]])
    expect = _brute(board, lats, lons)
    assert [(loc.territory_id, loc.border_distance_m) for loc in board.locate_many(lats, lons)] == expect
    assert board.territory_ids(lats, lons) == [e[0] for e in expect]
    singles = [board.territory_at(a, b) for a, b in zip(lats.tolist(), lons.tolist(), strict=True)]
    assert singles == [e[0] for e in expect]
    one = [board.locate(a, b) for a, b in zip(lats[:50].tolist(), lons[:50].tolist(), strict=True)]
    assert [(loc.territory_id, loc.border_distance_m) for loc in one] == expect[:50]


def test_vertex_on_shared_border_goes_to_first_in_board_order(board: Board) -> None:
    a, b = next(iter(board.graph.edges))
    shared = board._metric[board._ids.index(a)].boundary.intersection(board._metric[board._ids.index(b)].boundary)
    x, y = shapely.get_coordinates(shared)[0]
    lon, lat = _TO_METRIC.transform(x, y, direction="INVERSE")
    brute = _brute(board, np.array([lat]), np.array([lon]))[0]
    assert board.territory_at(lat, lon) == brute[0]
    assert board.locate(lat, lon).territory_id == brute[0]


def test_off_board_and_malformed(board: Board) -> None:
    assert board.territory_at(0.0, 0.0) is None
    assert board.territory_at(math.nan, -74.0) is None
    assert board.territory_ids([math.nan, 40.7831, math.inf, 95.0], [-74.0, -73.9712, -74.0, -74.0]) == [
        None, "3606144919", None, None]
    assert board.locate(math.nan, math.nan).territory_id is None
    assert board.territory_ids([], []) == []
