"""The board build: raw files in, committed board files out."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import mapping
from shapely.geometry.base import BaseGeometry

from turfwar.boardbuild import sources, water_lines
from turfwar.boardbuild.adjacency import (
    CROSS_SOURCE_TOL_M,
    MIN_SHARED_BORDER_M,
    MIN_WATER_M,
    Edge,
    compute_edges,
    shared_length,
    water_frontage,
)
from turfwar.boardbuild.assemble import Assembly, Unit, assemble
from turfwar.boardbuild.geom import clean, label_point, parts, project, to_wgs84

TOOL_VERSION = "turfwar-boardbuild 1.0"
DISPLAY_MAX_BYTES = 1_000_000
FULL_DECIMALS = 9  # ~0.1 mm: rounding then cannot open overlaps between neighbours
DISPLAY_DECIMALS = 5

Progress = Callable[[str, int], None]  # (message, advance)


@dataclass
class BuildResult:
    units: list[Unit]
    edges: list[Edge]
    water_m: dict[str, float]
    borders_water: dict[str, bool]
    diagnostics: dict[str, Any]
    out_dir: Path
    seconds: float
    files: dict[str, int] = field(default_factory=dict)


def _round(geom: BaseGeometry, decimals: int) -> BaseGeometry:
    g = shapely.transform(geom, lambda c: np.round(c, decimals))
    if not g.is_valid:
        g = clean(g, 0.0)
    return g


def _geojson_bytes(features: list[dict[str, Any]]) -> bytes:
    fc = {"type": "FeatureCollection", "features": features}
    return json.dumps(fc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def load_overrides(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"edges_add": [], "edges_remove": [], "borders_water_set": [], "borders_water_clear": [],
                "water_lines": []}
    with open(path, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    for key in ("edges_add", "edges_remove", "borders_water_set", "borders_water_clear", "water_lines"):
        data.setdefault(key, [])
        for entry in data[key]:
            if not entry.get("reason"):
                raise ValueError(f"override {key} {entry} has no reason")
    return data


def apply_edge_overrides(computed: list[Edge], overrides: dict[str, Any], geoms: dict[str, BaseGeometry],
                         known: set[str]) -> tuple[list[Edge], list[str]]:
    problems: list[str] = []
    by_key = {(e.a, e.b): e for e in computed}
    for o in overrides["edges_remove"]:
        a, b = sorted((str(o["a"]), str(o["b"])))
        if a not in known or b not in known:
            problems.append(f"edges_remove {a}-{b}: unknown territory")
            continue
        if by_key.pop((a, b), None) is None:
            problems.append(f"edges_remove {a}-{b}: not in the computed graph (override has no effect)")
    for o in overrides["edges_add"]:
        a, b = sorted((str(o["a"]), str(o["b"])))
        if a not in known or b not in known:
            problems.append(f"edges_add {a}-{b}: unknown territory")
            continue
        if (a, b) in by_key:
            problems.append(f"edges_add {a}-{b}: already in the computed graph")
            by_key[(a, b)].source = "override"
            by_key[(a, b)].reason = str(o["reason"])
            continue
        measured = shared_length(geoms[a], geoms[b].buffer(CROSS_SOURCE_TOL_M), CROSS_SOURCE_TOL_M)
        shared = float(o.get("shared_m", measured))
        by_key[(a, b)] = Edge(a, b, shared, "override", str(o["reason"]))
    return sorted(by_key.values(), key=lambda e: (e.a, e.b)), problems


def _gaps(geoms: list[BaseGeometry], ids: list[str]) -> dict[str, Any]:
    """Holes in the union of the board (land no territory claims) over 100 m²."""
    union = shapely.union_all(geoms)
    holes = []
    for p in parts(union):
        for ring in p.interiors:
            h = shapely.Polygon(ring)
            if h.area > 100.0:
                holes.append(h)
    tree = shapely.STRtree(geoms)
    listed = []
    for h in sorted(holes, key=lambda x: -x.area):
        near = [ids[int(i)] for i in tree.query(h.buffer(1.0), predicate="intersects")]
        c = to_wgs84(h.representative_point())
        listed.append({"area_m2": round(h.area, 1), "lat": round(c.y, 5), "lon": round(c.x, 5),
                       "between": sorted(near)})
    return {"count_over_100m2": len(holes), "total_m2": round(sum(h.area for h in holes), 1), "gaps": listed}


def _overlaps(geoms: list[BaseGeometry], ids: list[str]) -> dict[str, Any]:
    tree = shapely.STRtree(geoms)
    a_idx, b_idx = tree.query(geoms, predicate="intersects")
    worst = []
    total = 0.0
    for i, j in zip(a_idx.tolist(), b_idx.tolist(), strict=True):
        if j <= i:
            continue
        area = geoms[i].intersection(geoms[j]).area
        if area > 0:
            total += area
            worst.append((area, ids[i], ids[j]))
    worst.sort(reverse=True)
    return {"total_m2": round(total, 3), "max_pair_m2": round(worst[0][0], 3) if worst else 0.0,
            "worst": [{"a": a, "b": b, "area_m2": round(x, 3)} for x, a, b in worst[:10]]}


GRID = 10.0 ** -FULL_DECIMALS
SLIVER_GAP_MAX_M2 = 50_000.0


PRIORITY = {"nybb": 0, "njogis": 1, "ny_village": 2, "ny_cb": 3}


def resolve_overlaps(units: list[Unit], wgs: list[BaseGeometry], min_m2: float = 0.05) -> list[dict[str, Any]]:
    """Last pass: where rounding or repair left two territories overlapping, the lower-priority one gives way."""
    tree = shapely.STRtree(wgs)
    a_idx, b_idx = tree.query(wgs, predicate="intersects")
    fixed: list[dict[str, Any]] = []
    for i, j in zip(a_idx.tolist(), b_idx.tolist(), strict=True):
        if j <= i:
            continue
        inter = wgs[i].intersection(wgs[j])
        if inter.is_empty or inter.area == 0:
            continue
        area_m2 = project(inter, "EPSG:4326").area
        if area_m2 < min_m2:
            continue
        win, lose = (i, j) if PRIORITY[units[i].source] <= PRIORITY[units[j].source] else (j, i)
        wgs[lose] = _round(clean(shapely.difference(wgs[lose], wgs[win]), 0.0), FULL_DECIMALS)
        fixed.append({"kept_by": units[win].id, "cut_from": units[lose].id, "area_m2": round(area_m2, 3)})
    return fixed


def fill_small_gaps(units: list[Unit], wgs: list[BaseGeometry]) -> list[dict[str, Any]]:
    """Give enclosed slivers between two sources (under 5 ha) to the New York State territory beside them.

    They lie where a generalised 1:500k town line falls short of the full-resolution NJ or NYC line; the land is
    the town's. Lakes and larger holes stay empty (and are reported).
    """
    union = shapely.union_all(wgs)
    tree = shapely.STRtree(wgs)
    moves: list[dict[str, Any]] = []
    for p in parts(union):
        for ring in p.interiors:
            hole = shapely.Polygon(ring)
            area_m2 = project(hole, "EPSG:4326").area
            if area_m2 > SLIVER_GAP_MAX_M2 or area_m2 < 1.0:
                continue
            near = [int(k) for k in tree.query(hole, predicate="intersects")]
            sources_near = {units[k].source for k in near}
            nys = [k for k in near if units[k].group == "nys"]
            if len(sources_near) < 2 or not nys:
                continue
            best = max(nys, key=lambda k: hole.boundary.intersection(wgs[k].buffer(GRID * 5)).length)
            others = shapely.union_all([wgs[k] for k in near if k != best])
            grown = shapely.difference(shapely.union(wgs[best], hole), others)
            wgs[best] = _round(clean(grown, 0.0), FULL_DECIMALS)
            moves.append({"to": units[best].id, "area_m2": round(area_m2, 1)})
    return moves


def build(raw: Path, out_dir: Path, config_path: Path | None = None, progress: Progress | None = None
          ) -> BuildResult:
    t0 = time.monotonic()

    def say(msg: str, advance: int = 0) -> None:
        if progress is not None:
            progress(msg, advance)

    out_dir.mkdir(parents=True, exist_ok=True)
    config_path = config_path or out_dir / "playable_area.json"
    with open(config_path, encoding="utf-8") as fh:
        config = json.load(fh)
    overrides = load_overrides(out_dir / "overrides.json")

    asm: Assembly = assemble(raw, config, progress=lambda m: say(m, 1))
    units = sorted(asm.units, key=lambda u: u.id)
    ids = [u.id for u in units]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate territory ids")

    # Round to the stored precision first, so that adjacency and water are measured on the board as stored.
    say("rounding to stored precision, filling slivers between sources", 1)
    wgs = [_round(to_wgs84(u.geom), FULL_DECIMALS) for u in units]
    filled = fill_small_gaps(units, wgs)
    rounding_fixes = resolve_overlaps(units, wgs)
    for u, g in zip(units, wgs, strict=True):
        u.geom = project(g, "EPSG:4326")
    geoms = [u.geom for u in units]
    groups = [u.group for u in units]

    say("measuring shared borders", 1)
    computed = compute_edges(ids, geoms, groups)
    gmap = dict(zip(ids, geoms, strict=True))
    edges, problems = apply_edge_overrides(computed, overrides, gmap, set(ids))
    kept = water_lines.kept_water(units, sources.read_nj_place_aland(raw))
    water_rows, water_problems = water_lines.decide(computed, overrides, kept, {u.id: u.name for u in units})
    problems += water_problems

    say("measuring water frontage", 1)
    water_m = water_frontage(ids, geoms, groups, asm.outside, asm.outside_groups)
    borders_water = {t: water_m[t] >= MIN_WATER_M for t in ids}
    computed_water = dict(borders_water)
    for o in overrides["borders_water_set"]:
        if o["id"] not in borders_water:
            problems.append(f"borders_water_set {o['id']}: unknown territory")
            continue
        borders_water[o["id"]] = True
    for o in overrides["borders_water_clear"]:
        if o["id"] not in borders_water:
            problems.append(f"borders_water_clear {o['id']}: unknown territory")
            continue
        borders_water[o["id"]] = False

    say("label points and output files", 1)
    features = []
    display_props = []
    for u in units:
        lp = to_wgs84(label_point(u.geom))
        props = {
            "id": u.id, "name": u.name, "kind": u.kind, "county": u.county, "state": u.state,
            "borders_water": borders_water[u.id], "land_area_m2": round(u.geom.area, 1),
            "population": int(u.population),
            "label_point": {"lat": round(lp.y, 6), "lon": round(lp.x, 6)},
        }
        display_props.append(props)
        features.append({"type": "Feature", "id": u.id, "properties": props,
                         "geometry": mapping(_round(to_wgs84(u.geom), FULL_DECIMALS))})
    files: dict[str, int] = {}
    data = _geojson_bytes(features)
    (out_dir / "territories.geojson").write_bytes(data)
    files["territories.geojson"] = len(data)

    # display: topology-preserving coverage simplification, tolerance raised until the file fits
    tol = 15.0
    while True:
        simp = shapely.coverage_simplify(np.array(geoms, dtype=object), tol)
        dfeats = []
        for u, props, g in zip(units, display_props, simp, strict=True):
            sg = clean(g, 0.0) if not g.is_empty else u.geom.simplify(tol)
            dfeats.append({"type": "Feature", "id": u.id, "properties": props,
                           "geometry": mapping(_round(to_wgs84(sg), DISPLAY_DECIMALS))})
        ddata = _geojson_bytes(dfeats)
        if len(ddata) < DISPLAY_MAX_BYTES * 0.95 or tol > 500:
            break
        tol *= 1.4
    (out_dir / "display.geojson").write_bytes(ddata)
    files["display.geojson"] = len(ddata)

    adj = {"min_shared_border_m": int(MIN_SHARED_BORDER_M), "edges": [e.as_dict() for e in edges]}
    adata = json.dumps(adj, indent=1).encode("utf-8")
    (out_dir / "adjacency.json").write_bytes(adata)
    files["adjacency.json"] = len(adata)

    say("checking overlaps and gaps", 1)
    diagnostics: dict[str, Any] = {
        "straddlers": [s.__dict__ for s in asm.straddlers],
        "repaired": asm.repaired,
        "dropped_towns": asm.dropped_towns,
        "overlaps_removed_between_sources": asm.overlaps_removed,
        "town_slivers_moved_to_villages": asm.sliver_moves,
        "gaps_filled": filled,
        "rounding_overlaps_fixed": rounding_fixes,
        "river_cuts": [c.__dict__ for c in asm.river_cuts],
        "remaining_overlaps": _overlaps(geoms, ids),
        "gaps": _gaps(geoms, ids),
        "override_problems": problems,
        "computed_edges": len(computed),
        "water_lines": water_rows,
        "computed_water_true": sorted(t for t, v in computed_water.items() if v),
        "water_frontage_m": {t: round(v, 1) for t, v in water_m.items()},
        "display_simplify_tolerance_m": round(tol, 1),
        "notes": asm.notes,
    }
    counts: dict[str, dict[str, int]] = {}
    for u in units:
        counts.setdefault(u.state, {}).setdefault(u.county, 0)
        counts[u.state][u.county] += 1
    seconds = time.monotonic() - t0
    manifest = {
        "tool_version": TOOL_VERSION,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "build_seconds": round(seconds, 1),
        "metric_crs": "EPSG:32618",
        "sources": {f: sources.sha256(raw / f) for f in sources.SOURCE_FILES},
        "inputs": {n: sources.sha256(out_dir / n) for n in ("playable_area.json", "overrides.json")
                   if (out_dir / n).exists()},
        "counts": {
            "territories": len(units),
            "edges": len(edges),
            "per_state": {s: sum(c.values()) for s, c in counts.items()},
            "per_county": {s: dict(sorted(c.items())) for s, c in counts.items()},
        },
        "files": files,
        "diagnostics": diagnostics,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return BuildResult(units, edges, water_m, borders_water, diagnostics, out_dir, seconds, files)
