"""Benchmark 1: point → territory on the full board.

Ours: ``Board.territory_at`` (one point per call) and ``Board.territory_ids`` (many points per call), plus the full
``Board.locate`` / ``locate_many`` (territory and border distance, what ``geo.locate`` answers).
Anchors, same run, same polygons (the board's UTM 18N geometries): PostGIS ``ST_Contains`` with a GiST index, one
prepared query per point through psycopg; a set-based join of all points against ``ST_Subdivide``d polygons;
a naive shapely loop (every polygon, in order, until one contains the point). PostGIS gets the points already
projected to UTM (its best case); our figures include the projection where one is needed.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np
import shapely

from bench.common import ANCHOR_PG, Row, Section, median_of, percentile
from turf_common.board import Board, load_board
from turf_common.board.loader import _TO_METRIC

DB = "turf_bench_geo"


def random_points(board: Board, n: int, seed: int = 9) -> tuple[np.ndarray, np.ndarray]:
    lon0, lat0, lon1, lat1 = shapely.total_bounds([t.geometry for t in board.territories.values()])
    rng = np.random.default_rng(seed)
    return rng.uniform(lat0, lat1, n), rng.uniform(lon0, lon1, n)


def _postgis(board: Board) -> Any:
    """A connection to a database holding the board's polygons (whole, and subdivided), or the reason why not."""
    try:
        import psycopg
    except ImportError:
        return "psycopg missing"
    try:
        admin = psycopg.connect(ANCHOR_PG + " dbname=postgres", autocommit=True, connect_timeout=3)
    except Exception as e:
        return f"no PostgreSQL at {ANCHOR_PG} ({type(e).__name__}); run bench/setup.sh"
    with admin:
        if not admin.execute("select 1 from pg_available_extensions where name='postgis'").fetchone():
            return "PostGIS is not installed in that PostgreSQL; run bench/setup.sh"
        admin.execute(f"drop database if exists {DB}")
        admin.execute(f"create database {DB}")
    conn = psycopg.connect(ANCHOR_PG + f" dbname={DB}", autocommit=True)
    conn.execute("set jit = off")  # JIT compiles for ~0.3 s on the join and never pays back here
    conn.execute("create extension postgis")
    conn.execute("create table terr(ord int primary key, id text not null, geom geometry(Geometry, 32618))")
    with conn.cursor() as cur, cur.copy("copy terr(ord, id, geom) from stdin") as cp:
        for i, (tid, g) in enumerate(zip(board._ids, board._metric, strict=True)):
            cp.write_row((i, tid, shapely.to_wkb(shapely.set_srid(g, 32618), hex=True, include_srid=True)))
    conn.execute("create index terr_gix on terr using gist(geom)")
    conn.execute("create table terr_sub as select ord, id, st_subdivide(geom, 256) as geom from terr")
    conn.execute("create index terr_sub_gix on terr_sub using gist(geom)")
    conn.execute("analyze terr; analyze terr_sub")
    return conn


def run(small: bool = False) -> Section:
    sec = Section("1. geo-verify lookups")
    t_start = time.perf_counter()
    n = 5_000 if small else 100_000
    n_pg_single = 1_000 if small else 20_000
    n_naive = 100 if small else 1_000
    repeats = 3 if small else 5
    board = load_board()
    t0 = time.perf_counter()
    board.territory_at(0.0, 0.0)  # build the index
    build_s = time.perf_counter() - t0
    lats, lons = random_points(board, n)
    lat_l, lon_l = lats.tolist(), lons.tolist()
    xs, ys = (np.asarray(a) for a in _TO_METRIC.transform(lons, lats))

    # ---- ours ----
    def one_by_one() -> float:
        t = time.perf_counter()
        for la, lo in zip(lat_l, lon_l, strict=True):
            board.territory_at(la, lo)
        return (time.perf_counter() - t) / n * 1e6

    ids_bulk: list[str | None] = []

    def bulk() -> float:
        nonlocal ids_bulk
        t = time.perf_counter()
        ids_bulk = board.territory_ids(lats, lons)
        return (time.perf_counter() - t) / n * 1e6

    ours_single, _ = median_of(one_by_one, repeats)
    ours_bulk, _ = median_of(bulk, repeats)
    ids_single = [board.territory_at(la, lo) for la, lo in zip(lat_l, lon_l, strict=True)]
    k = min(n, 20_000)

    def locate_one() -> float:
        t = time.perf_counter()
        for la, lo in zip(lat_l[:k], lon_l[:k], strict=True):
            board.locate(la, lo)
        return (time.perf_counter() - t) / k * 1e6

    def locate_bulk() -> float:
        t = time.perf_counter()
        board.locate_many(lats, lons)
        return (time.perf_counter() - t) / n * 1e6

    ours_locate_single, _ = median_of(locate_one, repeats)
    ours_locate_bulk, _ = median_of(locate_bulk, repeats)
    locs = board.locate_many(lats, lons)
    hit = sum(i is not None for i in ids_bulk)
    sec.notes.append(f"{n:,} uniform random points in the board's longitude/latitude bounding box, {hit:,} "
                     f"({hit / n:.0%}) inside a territory; index built lazily in {build_s:.2f} s (with the borders "
                     f"shared between territories, R7); medians of {repeats} repeats. Our border distance is to the "
                     "nearest border shared with another territory (R7, amended); the PostGIS anchor measures to "
                     "the whole boundary, an easier query on the same polygons.")

    # ---- naive shapely loop (every polygon in board order until one intersects) ----
    metric = board._metric
    pts = shapely.points(xs[:n_naive], ys[:n_naive])
    naive_ids: list[str | None] = []
    t = time.perf_counter()
    for p in pts:
        found = None
        for tid, g in zip(board._ids, metric, strict=True):
            if g.intersects(p):
                found = tid
                break
        naive_ids.append(found)
    naive_us = (time.perf_counter() - t) / n_naive * 1e6
    naive_same = sum(a == b for a, b in zip(naive_ids, ids_single, strict=False))

    # ---- PostGIS ----
    conn = _postgis(board)
    pg_single_us = pg_bulk_us = pg_locate_us = None
    same_bulk = same_single = None
    pg_ids: list[str | None] = []
    if isinstance(conn, str):
        sec.notes.append(f"PostGIS anchors skipped: {conn}.")
    else:
        with conn:
            q = ("select id from terr where st_contains(geom, st_setsrid(st_makepoint(%s, %s), 32618)) "
                 "order by ord limit 1")
            qd = ("select id, st_distance(st_boundary(geom), p) from terr, "
                  "(select st_setsrid(st_makepoint(%s, %s), 32618) as p) q where st_contains(geom, p) "
                  "order by ord limit 1")
            single_runs = []
            for _ in range(3):
                got: list[str | None] = []
                with conn.cursor() as cur:
                    t = time.perf_counter()
                    for x, y in zip(xs[:n_pg_single].tolist(), ys[:n_pg_single].tolist(), strict=True):
                        cur.execute(q, (x, y), prepare=True)
                        r = cur.fetchone()
                        got.append(r[0] if r else None)
                    single_runs.append((time.perf_counter() - t) / n_pg_single * 1e6)
            pg_single_us = statistics.median(single_runs)
            same_single = sum(a == b for a, b in zip(got, ids_single, strict=False))
            kd = min(n_pg_single, 5_000)
            with conn.cursor() as cur:
                t = time.perf_counter()
                for x, y in zip(xs[:kd].tolist(), ys[:kd].tolist(), strict=True):
                    cur.execute(qd, (x, y), prepare=True)
                    cur.fetchone()
                pg_locate_us = (time.perf_counter() - t) / kd * 1e6
            conn.execute("drop table if exists pts")
            conn.execute("create table pts(i int primary key, geom geometry(Point, 32618))")
            with conn.cursor() as cur, cur.copy("copy pts(i, geom) from stdin") as cp:
                for i, wkb in enumerate(shapely.to_wkb(shapely.set_srid(shapely.points(xs, ys), 32618), hex=True,
                                                       include_srid=True).tolist()):
                    cp.write_row((i, wkb))
            conn.execute("create index pts_gix on pts using gist(geom)")  # the anchor's best case: not timed
            conn.execute("analyze pts")
            join = ("select distinct on (p.i) p.i, s.id from pts p join terr_sub s on st_contains(s.geom, p.geom) "
                    "order by p.i, s.ord")
            bulk_runs = []
            for _ in range(repeats):
                t = time.perf_counter()
                rows = conn.execute(join).fetchall()
                bulk_runs.append((time.perf_counter() - t) / n * 1e6)
            pg_bulk_us = statistics.median(bulk_runs)
            by_i = dict(rows)
            pg_ids = [by_i.get(i) for i in range(n)]
            same_bulk = sum(a == b for a, b in zip(pg_ids, ids_bulk, strict=True))
            pieces = conn.execute("select count(*) from terr_sub").fetchone()
            sec.notes.append(f"PostGIS {conn.execute('select postgis_lib_version()').fetchone()[0]} on "  # type: ignore[index]
                             f"{conn.execute('show server_version').fetchone()[0]}; "  # type: ignore[index]
                             f"{len(board):,} polygons, {pieces[0] if pieces else '?'} pieces after "
                             "ST_Subdivide(geom, 256); per-point query timed on the first "
                             f"{n_pg_single:,} points (median of 3 passes), the join on all {n:,} (median of "
                             f"{repeats}, points already in a table with a GiST index, JIT off: PostGIS's best case).")
        try:
            import psycopg

            with psycopg.connect(ANCHOR_PG + " dbname=postgres", autocommit=True) as admin:
                admin.execute(f"drop database if exists {DB}")
        except Exception:
            pass

    def per_s(us: float | None) -> float | None:
        return None if us is None else 1e6 / us

    sec.rows += [
        Row("geo", "per point (territory_at), lookups/s", per_s(ours_single), "/s",
            "PostGIS ST_Contains, prepared, per point", per_s(pg_single_us), goal="≥ 20×",
            met=None if pg_single_us is None else ours_single * 20 <= pg_single_us,
            note=f"{ours_single:.2f} µs vs {pg_single_us and f'{pg_single_us:.0f}'} µs"),
        Row("geo", "bulk (territory_ids, one call), lookups/s", per_s(ours_bulk), "/s",
            "PostGIS join on ST_Subdivide pieces", per_s(pg_bulk_us), goal="≥ 10×",
            met=None if pg_bulk_us is None else ours_bulk * 10 <= pg_bulk_us,
            note=f"{ours_bulk:.3f} µs vs {pg_bulk_us and f'{pg_bulk_us:.2f}'} µs"),
        Row("geo", "per point vs naive shapely loop, lookups/s", per_s(ours_single), "/s",
            f"naive loop ({n_naive:,} points)", per_s(naive_us),
            note=f"{naive_us:.0f} µs per point; agrees on {naive_same}/{n_naive}"),
        Row("geo", "identical answers to PostGIS (every point)",
            None if same_bulk is None else float(same_bulk), f"of {n:,}", goal="all",
            met=None if same_bulk is None else same_bulk == n and same_single == n_pg_single,
            note="" if same_single is None else f"per-point query agrees on {same_single}/{n_pg_single}"),
        Row("geo", "locate (territory + border distance), per point, /s", per_s(ours_locate_single), "/s",
            "PostGIS ST_Contains + ST_Distance(ST_Boundary), per point", per_s(pg_locate_us),
            note=f"{ours_locate_single:.1f} µs; bulk locate_many {ours_locate_bulk:.2f} µs/point"),
    ]
    sec.seconds = time.perf_counter() - t_start
    _ = locs, percentile
    return sec
