"""Load the committed game board (R21, R22, R24).

The board is built offline by ``turfwar board build`` from the raw boundary files and committed under
``DEFAULT_BOARD_DIR``. Nothing here touches the network.

Point lookups run on geometries projected to UTM zone 18N (EPSG:32618), so ``border_distance_m`` is in metres.
A territory's *border* (R7, amended) is the part of its boundary shared with another territory: a coastline or the
board's outer edge is not a border.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

DEFAULT_BOARD_DIR: Path = Path(__file__).parent / "data"
METRIC_CRS = "EPSG:32618"

_TO_METRIC = Transformer.from_crs("EPSG:4326", METRIC_CRS, always_xy=True)


def to_metric(geom: BaseGeometry) -> BaseGeometry:
    """Project a WGS84 lon/lat geometry to UTM 18N metres."""

    def _tr(coords: np.ndarray) -> np.ndarray:
        x, y = _TO_METRIC.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geom, _tr)


@dataclass(frozen=True)
class Territory:
    id: str
    name: str
    kind: str
    county: str
    state: str
    land_area_m2: float
    population: int
    borders_water: bool
    label_point: tuple[float, float]  # (lat, lon)
    geometry: BaseGeometry = field(compare=False, repr=False)


@dataclass(frozen=True)
class Location:
    """Where a point lies. ``border_distance_m``: metres from the point to the nearest border of its territory
    shared with another territory (R7); ``None`` off the board, or for a territory that shares no border."""

    territory_id: str | None
    border_distance_m: float | None


_TO_LONLAT = Transformer.from_crs(METRIC_CRS, "EPSG:4326", always_xy=True)

# The lookup grid, in degrees: about 110 m by 110 m on the board.
_CELL_LON = 0.0013
_CELL_LAT = 0.001
# Margin around each boundary piece when marking the cells it passes through, in degrees (about 2 m). It covers the
# gap between a straight segment in UTM and its slightly curved image in longitude/latitude (under a millimetre for a
# piece of 50 m) and any rounding, so a cell left unmarked truly has no boundary in it.
_MARGIN_DEG = 2e-5
_PIECE_M = 50.0  # longer segments are cut into pieces of at most this length (in UTM), each projected back
_BLOCK = 64  # coarsest block of the quadtree that classifies unmarked cells
# Two territories share a stretch of boundary where their boundaries lie within this distance of each other (metres).
# Neighbours' boundaries are built from one topology and coincide to the vertex almost everywhere; the tolerance
# absorbs the rounding where the sources differ, and stays far below R7's border tolerance (0.5 m).
_SHARED_TOL_M = 0.05
_CHUNK = 16  # boundary segments per box when searching for segments of other territories close to a segment


def _as_arrays(lats: Sequence[float] | np.ndarray, lons: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lat_a = np.asarray(lats, dtype=float)
    lon_a = np.asarray(lons, dtype=float)
    if lat_a.shape != lon_a.shape:
        raise ValueError("lats and lons must have the same length")
    return lat_a.ravel(), lon_a.ravel()


def _expand(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For runs ``starts[k] .. starts[k] + counts[k] - 1``: (run number, value) of every element, in order."""
    run = np.repeat(np.arange(len(counts)), counts)
    offset = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return run, starts[run] + offset


def _chunks(ix: np.ndarray, t: np.ndarray, lo: np.ndarray,
            hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cut the segments ``ix`` (sorted by territory ``t``) into runs of at most ``_CHUNK`` of one territory:
    (first position in ``ix``, box low corner, box high corner, territory) of each run."""
    tt = t[ix]
    pos = np.arange(len(ix)) - np.searchsorted(tt, tt)  # position within its territory's run
    first = np.flatnonzero(pos % _CHUNK == 0)
    return first, np.minimum.reduceat(lo[ix], first), np.maximum.reduceat(hi[ix], first), tt[first]


def _shared_border(a: np.ndarray, b: np.ndarray, t: np.ndarray,
                   tol: float = _SHARED_TOL_M) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The borders of R7: the parts of each territory's boundary within ``tol`` metres of another territory's boundary.

    In: boundary segments ``a[i]``–``b[i]`` (metres) of territory ``t[i]``, sorted by territory. Out: the same form,
    sorted by territory: every segment that lies wholly within ``tol`` of another territory's boundary, and the
    pieces within ``tol`` of it of the segments that do only in part (a coastline segment ending at a junction
    keeps a piece of ``tol`` there; a corner touching another territory keeps such pieces too). A territory
    sharing no boundary gets no segment.
    """
    if not len(t):
        return a, b, t
    # 1. the same segment (either direction) in another territory: most of the board, found by sorting
    swap = (a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1]))
    key = np.ascontiguousarray(np.column_stack([np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)]))
    key = key.view(np.dtype((np.void, key.dtype.itemsize * 4))).ravel()
    order = np.lexsort((t, key))
    ks, ts = key[order], t[order]
    new = np.r_[True, ks[1:] != ks[:-1]]
    first = np.flatnonzero(new)
    last = np.r_[first[1:], len(ks)] - 1
    full = np.zeros(len(t), dtype=bool)
    full[order[(ts[first] != ts[last])[np.cumsum(new) - 1]]] = True
    # 2. the other segments: candidates of other territories whose boxes, grown by tol, meet (boxes of runs first)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    rest = np.flatnonzero(~full)
    c_first, c_lo, c_hi, c_t = _chunks(np.arange(len(t)), t, lo, hi)
    r_first, r_lo, r_hi, r_t = _chunks(rest, t, lo, hi)
    tree = shapely.STRtree(shapely.box(c_lo[:, 0], c_lo[:, 1], c_hi[:, 0], c_hi[:, 1]))
    qi, cj = tree.query(shapely.box(r_lo[:, 0] - tol, r_lo[:, 1] - tol, r_hi[:, 0] + tol, r_hi[:, 1] + tol))
    keep = r_t[qi] != c_t[cj]
    qi, cj = qi[keep], cj[keep]
    r_n = np.diff(np.r_[r_first, len(rest)])
    c_n = np.diff(np.r_[c_first, len(t)])
    p, m = _expand(np.zeros(len(qi), dtype=np.int64), r_n[qi] * c_n[cj])
    si = rest[r_first[qi[p]] + m // c_n[cj[p]]]
    ci = c_first[cj[p]] + m % c_n[cj[p]]
    keep = np.all(lo[si] - tol <= hi[ci], axis=1) & np.all(lo[ci] <= hi[si] + tol, axis=1)
    si, ci = si[keep], ci[keep]
    seg_c = shapely.linestrings(np.stack([a[ci], b[ci]], axis=1))
    near = shapely.distance(shapely.linestrings(np.stack([a[si], b[si]], axis=1)), seg_c) <= tol
    si, ci, seg_c = si[near], ci[near], seg_c[near]
    # wholly within tol of one segment when both ends are (the distance to a segment is convex along a segment)
    whole = (shapely.distance(shapely.points(a[si]), seg_c) <= tol) & \
        (shapely.distance(shapely.points(b[si]), seg_c) <= tol)
    full[si[whole]] = True
    # 3. the rest of those: clipped to within tol of their candidates
    part = ~full[si]
    ps, seg_p = si[part], seg_c[part]
    order = np.argsort(ps, kind="stable")
    ps, seg_p = ps[order], seg_p[order]
    segs_a, segs_b, segs_t = [a[full]], [b[full]], [t[full]]
    if len(ps):
        which, grp = np.unique(ps, return_inverse=True)
        clip = shapely.intersection(shapely.linestrings(np.stack([a[which], b[which]], axis=1)),
                                    shapely.buffer(shapely.multilinestrings(seg_p, indices=grp), tol))
        pieces, piece_of = shapely.get_parts(clip, return_index=True)
        xy, coord_of = shapely.get_coordinates(pieces, return_index=True)
        k = np.flatnonzero(coord_of[:-1] == coord_of[1:])
        single = np.flatnonzero(np.bincount(coord_of, minlength=len(pieces)) == 1)  # a point: where a corner touches
        starts = np.searchsorted(coord_of, single)
        segs_a += [xy[k], xy[starts]]
        segs_b += [xy[k + 1], xy[starts]]
        segs_t += [t[which[piece_of[coord_of[k]]]], t[which[piece_of[single]]]]
    out_a, out_b, out_t = np.concatenate(segs_a), np.concatenate(segs_b), np.concatenate(segs_t)
    order = np.argsort(out_t, kind="stable")
    return out_a[order], out_b[order], out_t[order]


class _PointIndex:
    """Point → territory on a longitude/latitude grid; border distance (R7: to the parts of the territory's boundary
    shared with another territory, see :func:`_shared_border`) on per-territory segment trees.

    Every boundary segment marks the grid cells it passes through (with a margin). A cell that no boundary passes
    through lies wholly inside one territory or wholly off the board, so a point there is answered from the cell
    alone: no projection, no polygon test. A point in a marked cell is projected to UTM 18N and tested against that
    cell's few candidate polygons (prepared). Either way the answer is the one of testing every polygon: the first
    territory, in board order, that the point intersects (territories meet only on their borders).
    """

    def __init__(self, lonlat: list[BaseGeometry], metric: list[BaseGeometry]) -> None:
        n = len(metric)
        self._n = n
        self._metric = np.empty(n, dtype=object)
        self._metric[:] = metric
        shapely.prepare(self._metric)
        self._tree = shapely.STRtree(self._metric)

        # Boundary segments, in longitude/latitude and in metres, with their territory.
        ll_a, ll_b, ll_t = self._segments(np.asarray(lonlat, dtype=object))
        m_a, m_b, m_t = self._segments(self._metric)
        if len(ll_t) != len(m_t):
            raise ValueError("projected board geometry does not match its source")
        order = np.argsort(m_t, kind="stable")
        # R7: distances are to the borders shared with another territory, not to coastlines or the board's edge
        self._seg_a, self._seg_b, seg_t = _shared_border(m_a[order], m_b[order], m_t[order])
        self._seg_start = np.searchsorted(seg_t, np.arange(n + 1))
        self._seg_trees: list[shapely.STRtree | None] = [None] * n

        lon_min, lat_min, lon_max, lat_max = shapely.total_bounds(lonlat)
        self.lon0 = float(lon_min) - 2 * _CELL_LON
        self.lat0 = float(lat_min) - 2 * _CELL_LAT
        self.inv_dlon = 1.0 / _CELL_LON
        self.inv_dlat = 1.0 / _CELL_LAT
        nx = int((lon_max - self.lon0) * self.inv_dlon) + 3
        ny = int((lat_max - self.lat0) * self.inv_dlat) + 3
        self.nx = -(-nx // _BLOCK) * _BLOCK
        self.ny = -(-ny // _BLOCK) * _BLOCK

        # Which territories' boundaries pass through which cells.
        lo0, la0, lo1, la1, piece_t = self._pieces(ll_a, ll_b, ll_t, m_a, m_b)
        i0, j0 = self._cell_ij(lo0 - _MARGIN_DEG, la0 - _MARGIN_DEG)
        i1, j1 = self._cell_ij(lo1 + _MARGIN_DEG, la1 + _MARGIN_DEG)
        w = i1 - i0 + 1
        run, off = _expand(np.zeros(len(w), dtype=np.int64), w * (j1 - j0 + 1))
        cells = (j0[run] + off // w[run]) * self.nx + i0[run] + off % w[run]
        marks = np.unique(cells * n + piece_t[run])
        marked = np.zeros(self.nx * self.ny, dtype=bool)
        marked[marks // n] = True

        grid = self._classify_unmarked(marked.reshape(self.ny, self.nx)).ravel()

        # Candidates of a marked cell: the territories whose boundary passes through it, and those containing its
        # centre (a territory containing the whole cell has its centre).
        mixed = np.flatnonzero(marked)
        px, py = self._cell_centres(mixed)
        pi, gi = self._hits(px, py)
        keys = np.unique(np.concatenate([marks, mixed[pi] * n + gi]))
        key_cell = keys // n
        self._cand = (keys % n).astype(np.int64)
        self._cand_ptr = np.searchsorted(key_cell, np.append(mixed, self.nx * self.ny)).astype(np.int64)
        grid[mixed] = -2 - np.arange(len(mixed))
        self._grid = grid.astype(np.int32)

    @staticmethod
    def _segments(geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        parts, part_of = shapely.get_parts(geoms, return_index=True)
        rings, ring_of = shapely.get_rings(parts, return_index=True)
        xy, coord_of = shapely.get_coordinates(rings, return_index=True)
        k = np.flatnonzero(coord_of[:-1] == coord_of[1:])
        return xy[k], xy[k + 1], part_of[ring_of[coord_of[k]]].astype(np.int64)

    @staticmethod
    def _pieces(ll_a: np.ndarray, ll_b: np.ndarray, ll_t: np.ndarray, m_a: np.ndarray,
                m_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Bounding boxes (lon/lat) of boundary pieces of at most ``_PIECE_M``: short segments whole, long ones cut
        in UTM (where they are straight) with each cut point projected back."""
        length = np.hypot(*(m_b - m_a).T)
        short = length <= _PIECE_M
        a, b, t = ll_a[short], ll_b[short], ll_t[short]
        long_k = np.flatnonzero(~short)
        if long_k.size:
            n_pieces = np.ceil(length[long_k] / _PIECE_M).astype(np.int64)
            run, step = _expand(np.zeros(len(long_k), dtype=np.int64), n_pieces + 1)
            f = (step / n_pieces[run])[:, None]
            pts = m_a[long_k][run] * (1 - f) + m_b[long_k][run] * f
            lon, lat = _TO_LONLAT.transform(pts[:, 0], pts[:, 1])
            cut = np.column_stack([lon, lat])
            first = np.flatnonzero(step < n_pieces[run])
            a = np.concatenate([a, cut[first]])
            b = np.concatenate([b, cut[first + 1]])
            t = np.concatenate([t, ll_t[long_k][run[first]]])
        lo = np.minimum(a, b)
        hi = np.maximum(a, b)
        return lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], t

    def _cell_ij(self, lon: np.ndarray, lat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i = np.floor((lon - self.lon0) * self.inv_dlon).astype(np.int64)
        j = np.floor((lat - self.lat0) * self.inv_dlat).astype(np.int64)
        return np.clip(i, 0, self.nx - 1), np.clip(j, 0, self.ny - 1)

    def _cell_centres(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lon = self.lon0 + (cells % self.nx + 0.5) / self.inv_dlon
        lat = self.lat0 + (cells // self.nx + 0.5) / self.inv_dlat
        x, y = _TO_METRIC.transform(lon, lat)
        return np.asarray(x), np.asarray(y)

    def _hits(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (point, territory) pair where the territory intersects the point (metres)."""
        pi, gi = self._tree.query(shapely.points(x, y))
        ok = shapely.intersects_xy(self._metric[gi], x[pi], y[pi])
        return pi[ok], gi[ok]

    def _first_hits(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        pi, gi = self._hits(x, y)
        best = np.full(len(x), self._n, dtype=np.int64)
        np.minimum.at(best, pi, gi)
        return np.where(best == self._n, -1, best)

    def _classify_unmarked(self, marked: np.ndarray) -> np.ndarray:
        """Territory (or -1) of every unmarked cell, one exact test per largest boundary-free quadtree block."""
        ny, nx = marked.shape
        grid = np.full((ny, nx), -1, dtype=np.int64)
        done = marked.copy()
        size = _BLOCK
        while size >= 1:
            by, bx = ny // size, nx // size
            free = ~marked.reshape(by, size, bx, size).any(axis=(1, 3))
            todo = free & ~done[::size, ::size]
            bj, bi = np.nonzero(todo)
            if bj.size:
                cells = (bj * size) * nx + bi * size
                val = np.full((by, bx), -1, dtype=np.int64)
                val[bj, bi] = self._first_hits(*self._cell_centres(cells))
                up = np.repeat(np.repeat(todo, size, axis=0), size, axis=1)
                grid[up] = np.repeat(np.repeat(val, size, axis=0), size, axis=1)[up]
                done |= up
            size //= 2
        return grid

    def territory_at(self, lat: float, lon: float) -> int:
        if not (math.isfinite(lat) and math.isfinite(lon)):
            return -1
        i = math.floor((lon - self.lon0) * self.inv_dlon)
        j = math.floor((lat - self.lat0) * self.inv_dlat)
        if not (0 <= i < self.nx and 0 <= j < self.ny):
            return -1
        v: int = self._grid.item(j * self.nx + i)
        if v >= -1:
            return v
        m = -2 - v
        x, y = _TO_METRIC.transform(lon, lat)
        for g in self._cand[self._cand_ptr[m]:self._cand_ptr[m + 1]].tolist():
            if shapely.intersects_xy(self._metric[g], x, y):
                return int(g)
        return -1

    def territories_at(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            fx = (lon - self.lon0) * self.inv_dlon
            fy = (lat - self.lat0) * self.inv_dlat
            on_grid = (fx >= 0) & (fx < self.nx) & (fy >= 0) & (fy < self.ny)
            # on the grid the values are non-negative, so truncation is the floor of territory_at
            flat = fy.astype(np.int64) * self.nx + fx.astype(np.int64)
        out = np.where(on_grid, np.take(self._grid, flat, mode="clip"), -1).astype(np.int64)
        p = np.flatnonzero(out <= -2)
        if p.size:
            m = -2 - out[p]
            x, y = (np.asarray(a) for a in _TO_METRIC.transform(lon[p], lat[p]))
            first, count = self._cand_ptr[m], self._cand_ptr[m + 1] - self._cand_ptr[m]
            out[p] = -1
            k = 0
            todo = np.arange(len(p))
            while todo.size:  # candidates in board order; the first that intersects the point wins
                g = self._cand[first[todo] + k]
                ok = shapely.intersects_xy(self._metric[g], x[todo], y[todo])
                out[p[todo[ok]]] = g[ok]
                k += 1
                todo = todo[~ok & (count[todo] > k)]
        return out

    def _segment_tree(self, g: int) -> shapely.STRtree | None:
        """The tree of territory ``g``'s border segments; ``None`` when it shares no border."""
        tree = self._seg_trees[g]
        if tree is None:
            s, e = self._seg_start[g], self._seg_start[g + 1]
            if s == e:
                return None
            tree = shapely.STRtree(shapely.linestrings(np.stack([self._seg_a[s:e], self._seg_b[s:e]], axis=1)))
            self._seg_trees[g] = tree
        return tree

    def border_distance(self, g: int, lat: float, lon: float) -> float | None:
        """Distance (m) from a point of territory ``g`` to its nearest border shared with another territory (R7);
        ``None`` when ``g`` shares no border."""
        tree = self._segment_tree(g)
        if tree is None:
            return None
        x, y = _TO_METRIC.transform(lon, lat)
        _, d = tree.query_nearest(shapely.points(x, y), return_distance=True, all_matches=False)
        return float(d[0])

    def border_distances(self, gs: np.ndarray, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        """:meth:`border_distance` of many points (territories ``gs``); NaN where the territory shares no border."""
        x, y = _TO_METRIC.transform(lon, lat)
        pts = shapely.points(np.asarray(x), np.asarray(y))
        out = np.full(len(gs), np.nan)
        order = np.argsort(gs, kind="stable")
        bounds = np.flatnonzero(np.diff(gs[order])) + 1
        for grp in np.split(order, bounds):
            tree = self._segment_tree(int(gs[grp[0]]))
            if tree is None:
                continue
            (where, _), d = tree.query_nearest(pts[grp], return_distance=True, all_matches=False)
            out[grp[where]] = d
        return out


class Board:
    """The territories, their adjacency graph and point lookup."""

    def __init__(self, territories: dict[str, Territory], graph: nx.Graph, directory: Path) -> None:
        self.territories = territories
        self.graph = graph
        self.directory = directory
        self._ids: list[str] = list(territories)
        self._metric: list[BaseGeometry] = [to_metric(territories[t].geometry) for t in self._ids]
        self._names = np.array([*self._ids, None], dtype=object)
        self._index: _PointIndex | None = None
        self._index_lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.territories)

    def _point_index(self) -> _PointIndex:
        """The lookup index, built on first use (about a second) so that loading the board stays quick."""
        index = self._index
        if index is None:
            with self._index_lock:
                if self._index is None:
                    self._index = _PointIndex([self.territories[t].geometry for t in self._ids], self._metric)
                index = self._index
        return index

    def territory_at(self, lat: float, lon: float) -> str | None:
        """The territory containing a WGS84 point (on a shared border: the first in board order), or ``None``."""
        g = self._point_index().territory_at(float(lat), float(lon))
        return None if g < 0 else self._ids[g]

    def territory_ids(self, lats: Sequence[float] | np.ndarray, lons: Sequence[float] | np.ndarray) -> list[str | None]:
        """``territory_at`` for many points in one call."""
        lat_a, lon_a = _as_arrays(lats, lons)
        if lat_a.size == 0:
            return []
        g = self._point_index().territories_at(lat_a, lon_a)
        return list(self._names[g].tolist())  # index -1 is None

    def locate(self, lat: float, lon: float) -> Location:
        """The territory containing a WGS84 point and the point's distance in metres to the nearest border that
        territory shares with another (R7: what ``on_border`` tests and what an accepted claim records for audit;
        ``None`` for a territory sharing no border). Off the board: ``Location(None, None)``."""
        index = self._point_index()
        lat_f, lon_f = float(lat), float(lon)
        g = index.territory_at(lat_f, lon_f)
        if g < 0:
            return Location(None, None)
        return Location(self._ids[g], index.border_distance(g, lat_f, lon_f))

    def locate_many(self, lats: Sequence[float] | np.ndarray, lons: Sequence[float] | np.ndarray) -> list[Location]:
        """:meth:`locate` for many points in one call."""
        lat_a, lon_a = _as_arrays(lats, lons)
        if lat_a.size == 0:
            return []
        index = self._point_index()
        g = index.territories_at(lat_a, lon_a)
        out: list[Location] = [Location(None, None)] * len(g)
        ps = np.flatnonzero(g >= 0)
        if ps.size:
            gs = g[ps]
            dists = index.border_distances(gs, lat_a[ps], lon_a[ps])
            for p, t, d in zip(ps.tolist(), gs.tolist(), dists.tolist(), strict=True):
                out[p] = Location(self._ids[t], None if math.isnan(d) else float(d))
        return out

    def neighbours(self, territory_id: str) -> set[str]:
        if territory_id not in self.graph:
            raise KeyError(territory_id)
        return set(self.graph.neighbors(territory_id))

    def shared_border_m(self, a: str, b: str) -> float | None:
        data = self.graph.get_edge_data(a, b)
        return None if data is None else float(data["shared_m"])

    def display_geojson_path(self) -> Path:
        return self.directory / "display.geojson"

    def feature_properties(self, tid: str) -> dict[str, Any]:
        t = self.territories[tid]
        return {
            "id": t.id,
            "name": t.name,
            "kind": t.kind,
            "county": t.county,
            "state": t.state,
            "borders_water": t.borders_water,
            "land_area_m2": t.land_area_m2,
            "population": t.population,
            "label_point": {"lat": t.label_point[0], "lon": t.label_point[1]},
        }


def _territory(feature: dict[str, Any]) -> Territory:
    p = feature["properties"]
    lp = p["label_point"]
    return Territory(
        id=str(p["id"]),
        name=str(p["name"]),
        kind=str(p["kind"]),
        county=str(p["county"]),
        state=str(p["state"]),
        land_area_m2=float(p["land_area_m2"]),
        population=int(p["population"]),
        borders_water=bool(p["borders_water"]),
        label_point=(float(lp["lat"]), float(lp["lon"])),
        geometry=shape(feature["geometry"]),
    )


def _load(directory: Path) -> Board:
    with open(directory / "territories.geojson", encoding="utf-8") as fh:
        fc = json.load(fh)
    territories = {t.id: t for t in (_territory(f) for f in fc["features"])}
    with open(directory / "adjacency.json", encoding="utf-8") as fh:
        adj = json.load(fh)
    graph = nx.Graph()
    graph.add_nodes_from(territories)
    for e in adj["edges"]:
        a, b = str(e["a"]), str(e["b"])
        if a not in territories or b not in territories:
            raise ValueError(f"adjacency edge {a}-{b} names an unknown territory")
        graph.add_edge(a, b, shared_m=float(e["shared_m"]), source=e.get("source", "computed"))
    graph.graph["min_shared_border_m"] = adj.get("min_shared_border_m", 50)
    return Board(territories, graph, directory)


@lru_cache(maxsize=4)
def _load_cached(directory: str) -> Board:
    return _load(Path(directory))


def read_features(path: Path, keep: bool = True) -> list[dict[str, Any]]:
    """The features of a GeoJSON FeatureCollection file (the board's ``display.geojson``, say), parsed once per
    process and file: the warm process (``turfwar.warm``) parses the board's for every service forked from it.
    ``keep=False``: parsed features are not kept for later calls (a reader that keeps only names, in a process of
    its own), though features already kept are returned. Shared between callers: read them, never change them."""
    key = str(Path(path).resolve())
    if key in _FEATURES:
        return _FEATURES[key]
    with open(key, encoding="utf-8") as fh:
        features: list[dict[str, Any]] = json.load(fh)["features"]
    if keep:
        _FEATURES[key] = features
    return features


_FEATURES: dict[str, list[dict[str, Any]]] = {}


def load_board(path: Path | None = None) -> Board:
    """Load the board from ``path`` (default: the committed board). Cached per directory."""
    directory = Path(path) if path is not None else DEFAULT_BOARD_DIR
    return _load_cached(str(directory.resolve()))
