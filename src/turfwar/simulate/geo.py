"""Where bots stand: points well inside territories, distances, GPS fixes."""

from __future__ import annotations

import math
import random

import numpy as np
import shapely

from turf_common.board import Board

EARTH_RADIUS_M = 6_371_008.8
MIN_BORDER_M = 50.0          # a claim point is at least this far from the territory's boundary
POOL_BORDER_M = 60.0         # sampled points keep a margin for the few metres of jitter
METRES_PER_DEG_LAT = 111_320.0


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


class Geo:
    """Interior points per territory (sampled once, ``MIN_BORDER_M`` or more from the boundary, checked with
    :meth:`Board.locate_many`) and the distance in km between territories' label points."""

    def __init__(self, board: Board, seed: int, per_territory: int = 24) -> None:
        self.board = board
        self.ids = list(board.territories)
        self.index = {t: i for i, t in enumerate(self.ids)}
        rng = np.random.default_rng(seed)
        cand_t: list[str] = []
        cand_lat: list[float] = []
        cand_lon: list[float] = []
        for tid in self.ids:
            g = board.territories[tid].geometry
            minx, miny, maxx, maxy = g.bounds
            got = 0
            for _ in range(6):
                xs = rng.uniform(minx, maxx, 400)
                ys = rng.uniform(miny, maxy, 400)
                inside = shapely.contains_xy(g, xs, ys)
                for x, y in zip(xs[inside][: 3 * per_territory - got], ys[inside][: 3 * per_territory - got],
                                strict=True):
                    cand_t.append(tid)
                    cand_lat.append(float(y))
                    cand_lon.append(float(x))
                    got += 1
                if got >= 3 * per_territory:
                    break
        locs = board.locate_many(cand_lat, cand_lon)
        pools: dict[str, list[tuple[float, float, float]]] = {t: [] for t in self.ids}
        for tid, lat, lon, loc in zip(cand_t, cand_lat, cand_lon, locs, strict=True):
            if loc.territory_id == tid and loc.border_distance_m is not None:
                pools[tid].append((lat, lon, loc.border_distance_m))
        self.pools: dict[str, list[tuple[float, float]]] = {}
        for tid, pts in pools.items():
            good = [(la, lo) for la, lo, d in pts if d >= POOL_BORDER_M]
            if not good:  # a very thin territory: its deepest sampled points, else its label point
                deep = sorted(pts, key=lambda p: -p[2])[:3]
                good = [(la, lo) for la, lo, d in deep if d >= 5.0] or [board.territories[tid].label_point]
            self.pools[tid] = good[:per_territory]
        lp = np.array([board.territories[t].label_point for t in self.ids])
        lat, lon = np.radians(lp[:, 0]), np.radians(lp[:, 1])
        dlat = lat[:, None] - lat[None, :]
        dlon = lon[:, None] - lon[None, :]
        h = np.sin(dlat / 2) ** 2 + np.cos(lat)[:, None] * np.cos(lat)[None, :] * np.sin(dlon / 2) ** 2
        self.km = 2 * EARTH_RADIUS_M / 1000 * np.arcsin(np.minimum(1.0, np.sqrt(h)))

    def dist_km(self, a: str, b: str) -> float:
        return float(self.km[self.index[a], self.index[b]])

    def within(self, tid: str, km: float) -> list[str]:
        row = self.km[self.index[tid]]
        return [self.ids[i] for i in np.nonzero(row <= km)[0]]

    def farthest(self, lat: float, lon: float, n: int = 10) -> list[str]:
        """The ``n`` territories farthest from a point (a teleporter's destinations)."""
        far = sorted(self.ids, key=lambda t: -haversine_m(lat, lon, *self.board.territories[t].label_point))
        return far[:n]

    def fix_point(self, tid: str, rng: random.Random) -> tuple[float, float]:
        """A fresh GPS position well inside ``tid``: a sampled interior point moved by a few metres, rounded as a
        phone reports it (1e-7°). Checked against the board; falls back to the pool point itself."""
        lat, lon = rng.choice(self.pools[tid])
        for _ in range(4):
            dn, de = rng.gauss(0, 4.0), rng.gauss(0, 4.0)
            la = round(lat + dn / METRES_PER_DEG_LAT, 7)
            lo = round(lon + de / (METRES_PER_DEG_LAT * math.cos(math.radians(lat))), 7)
            loc = self.board.locate(la, lo)
            if loc.territory_id == tid and (loc.border_distance_m or 0) >= MIN_BORDER_M:
                return la, lo
        return round(lat, 7), round(lon, 7)
