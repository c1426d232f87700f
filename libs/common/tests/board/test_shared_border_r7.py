"""R7 (amended): ``on_border`` is within 0.5 m of a border SHARED WITH ANOTHER TERRITORY. A coastline or the board's
outer edge, which no other territory shares, is not a border; the distance ``locate`` gives (and an accepted claim
records for audit) is to the nearest shared border."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
import shapely

from turf_common.board import Board
from turf_common.board.loader import _SHARED_TOL_M, _TO_METRIC, _shared_border
from turf_common.rules.claims import ClaimLimits, check_location

NOW = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _segments(board: Board, tid: str) -> tuple[np.ndarray, np.ndarray]:
    """All boundary segments (metres) of a territory, as (a, b) arrays."""
    rings = shapely.get_rings(shapely.get_parts(board._metric[board._ids.index(tid)]))
    a, b = [], []
    for ring in rings:
        xy = shapely.get_coordinates(ring)
        a.append(xy[:-1])
        b.append(xy[1:])
    return np.concatenate(a), np.concatenate(b)


def _shared_reference(board: Board, tid: str) -> shapely.Geometry:
    """By brute force: the territory's boundary within the tolerance of any other territory's boundary."""
    g = board._metric[board._ids.index(tid)]
    others = shapely.union_all([o.boundary for i, o in enumerate(board._metric)
                                if board._ids[i] != tid and shapely.dwithin(o, g, _SHARED_TOL_M)])
    return g.boundary.intersection(others.buffer(_SHARED_TOL_M))


def _inside(board: Board, tid: str, a: np.ndarray, b: np.ndarray, d: float) -> tuple[float, float]:
    """(lat, lon) of the point ``d`` metres inside the territory from the middle of its boundary segment a–b."""
    mid = (a + b) / 2
    u = (b - a) / np.hypot(*(b - a))
    g = board._metric[board._ids.index(tid)]
    for normal in (np.array([-u[1], u[0]]), np.array([u[1], -u[0]])):
        x, y = mid + d * normal
        if shapely.contains_xy(g, x, y):
            lon, lat = _TO_METRIC.transform(x, y, direction="INVERSE")
            return float(lat), float(lon)
    raise AssertionError("neither side of the segment is inside")


def _longest(board: Board, tid: str, shared: bool) -> tuple[np.ndarray, np.ndarray]:
    """The longest boundary segment of ``tid`` lying on (``shared``) or at least 100 m away from (not ``shared``)
    every other territory's boundary."""
    a, b = _segments(board, tid)
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    g = board._metric[board._ids.index(tid)]
    others = shapely.union_all([o.boundary for i, o in enumerate(board._metric)
                                if board._ids[i] != tid and shapely.dwithin(o, g, 200)])
    if shared:  # both ends and the middle on another territory's boundary
        ok = np.all([shapely.distance(shapely.points(p), others) < 1e-6 for p in (a, b, (a + b) / 2)], axis=0)
    else:
        ok = shapely.distance(lines, others) > 100
    k = np.flatnonzero(ok)
    best = k[np.argmax(shapely.length(lines[k]))]
    return a[best], b[best]


@pytest.mark.parametrize("name", ["Hoboken",   # its Hudson shore
                                  "Howell"])   # the board's southern edge (Ocean County is not on the board)
def test_r7_point_just_inside_a_coastline_or_the_board_edge_is_not_on_border(board: Board, by_name: dict[str, str],
                                                                             name: str) -> None:
    tid = by_name[name]
    a, b = _longest(board, tid, shared=False)
    lat, lon = _inside(board, tid, a, b, 0.3)
    loc = board.locate(lat, lon)
    assert loc.territory_id == tid
    # the point is 0.3 m from the territory's boundary (what the code measured before the amendment)...
    x, y = _TO_METRIC.transform(lon, lat)
    assert shapely.distance(shapely.Point(x, y), board._metric[board._ids.index(tid)].boundary) == \
        pytest.approx(0.3, abs=1e-3)
    # ... but over 100 m from any border shared with another territory, so the location check accepts it
    assert loc.border_distance_m is not None and loc.border_distance_m > 100
    assert board.locate_many([lat], [lon]) == [loc]
    assert check_location(NOW, NOW, 5.0, loc.territory_id, loc.border_distance_m, ClaimLimits()) is None


def test_r7_point_near_a_shared_border_is_on_border(board: Board, by_name: dict[str, str]) -> None:
    tid = by_name["Hoboken"]
    a, b = _longest(board, tid, shared=True)
    lat, lon = _inside(board, tid, a, b, 0.3)
    loc = board.locate(lat, lon)
    assert loc.territory_id == tid and loc.border_distance_m == pytest.approx(0.3, abs=1e-3)
    refused = check_location(NOW, NOW, 5.0, loc.territory_id, loc.border_distance_m, ClaimLimits())
    assert refused is not None and refused.reason == "on_border"


@pytest.mark.parametrize("name", ["Hoboken", "Manhattan", "Howell", "Town of Crawford", "Village of Port Chester"])
def test_r7_border_distance_is_to_the_shared_boundary(board: Board, by_name: dict[str, str], name: str) -> None:
    """Brute force: the distance to (the territory's boundary within the tolerance of another territory's boundary),
    for points inside the territory, many of them close to its boundary."""
    tid = by_name[name]
    ref = _shared_reference(board, tid)
    g = board._metric[board._ids.index(tid)]
    rng = np.random.default_rng(7)
    x0, y0, x1, y1 = g.bounds
    xy = np.column_stack([rng.uniform(x0, x1, 300), rng.uniform(y0, y1, 300)])
    ring = shapely.get_coordinates(g.boundary)
    xy = np.concatenate([xy, ring[rng.integers(0, len(ring), 300)] + rng.normal(0, 3, (300, 2))])
    xy = xy[shapely.contains_xy(g, xy[:, 0], xy[:, 1])]
    lon, lat = _TO_METRIC.transform(xy[:, 0], xy[:, 1], direction="INVERSE")
    locs = board.locate_many(lat, lon)
    keep = [i for i, loc in enumerate(locs) if loc.territory_id == tid]  # a point on a shared vertex may go elsewhere
    assert len(keep) > 200
    got = np.array([locs[i].border_distance_m for i in keep], dtype=float)
    want = shapely.distance(shapely.points(xy[keep]), ref)
    assert np.allclose(got, want, rtol=0, atol=1e-3)
    assert [board.locate(float(lat[i]), float(lon[i])) for i in keep[:20]] == [locs[i] for i in keep[:20]]


def _square(x0: float, y0: float, side: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side), (x0, y0)]


def test_r7_shared_border_of_a_synthetic_board() -> None:
    """A: the square (0,0)–(100,100). B: a square of side 50 against A's right side from y=25 to 75 (a T-junction at
    each end: only that part of A's right side is shared). C: touches B only at B's corner (150, 75). D: alone."""
    rings = [_square(0, 0, 100), _square(100, 25, 50), _square(150, 75, 10), _square(500, 500, 10)]
    a = np.concatenate([np.array(r[:-1], dtype=float) for r in rings])
    b = np.concatenate([np.array(r[1:], dtype=float) for r in rings])
    t = np.repeat(np.arange(4), 4)
    sa, sb, st = _shared_border(a, b, t)
    assert list(st) == sorted(st) and 3 not in st
    pieces = {k: shapely.union_all(shapely.linestrings(np.stack([sa[st == k], sb[st == k]], axis=1)))
              for k in range(3)}
    tol = _SHARED_TOL_M
    # A: only x=100, y in [25, 75] (give or take the tolerance at each T-junction)
    assert pieces[0].length == pytest.approx(50 + 2 * tol, abs=1e-3)
    assert pieces[0].distance(shapely.Point(99.7, 50)) == pytest.approx(0.3)
    assert pieces[0].distance(shapely.Point(0.3, 50)) == pytest.approx(99.7)   # A's other sides are no border
    # B: its left side, and its corner touching C
    assert pieces[1].distance(shapely.Point(100.3, 50)) == pytest.approx(0.3)
    assert pieces[1].distance(shapely.Point(149.7, 74.7)) == pytest.approx(np.hypot(0.3, 0.3), abs=tol)
    # B's bottom keeps a piece of tol at the junction with A
    assert pieces[1].distance(shapely.Point(125, 25.3)) == pytest.approx(np.hypot(25 - tol, 0.3), abs=1e-6)
    # C: only the corner
    assert pieces[2].length <= 2 * tol + 1e-9
    assert pieces[2].distance(shapely.Point(155, 75.3)) == pytest.approx(np.hypot(5, 0.3), abs=tol)
