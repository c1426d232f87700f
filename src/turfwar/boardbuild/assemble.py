"""Assemble the territories of the board from the raw sources (R21).

Everything here works in UTM 18N metres. Priority where sources overlap: the NYC borough file (nybb, shoreline
clipped, high detail) over NJOGIS (full resolution) over the New York State files (1:500k cartographic county
subdivisions and TIGER villages). "Each state keeps its own side": NYC keeps its shore against New Jersey, New Jersey
keeps its full-resolution line against the generalised New York towns, NYC keeps its line against Westchester.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from turfwar.boardbuild import sources
from turfwar.boardbuild.geom import (
    METRIC_CRS,
    clean,
    is_sliver,
    parts,
    polygons_only,
    project,
    repair,
    union_all,
)
from turfwar.boardbuild.hudson import RiverCut, cut_river

NYC_COUNTY = {"005": "Bronx", "047": "Kings", "061": "New York", "081": "Queens", "085": "Richmond"}
NYBB_TO_CB = {"Manhattan": "Manhattan", "Bronx": "Bronx", "Brooklyn": "Brooklyn", "Queens": "Queens",
              "Staten Island": "Staten Island"}
NY_COUNTY_FIPS = {"Orange": "071", "Rockland": "087", "Westchester": "119"}
NY_LSAD_KIND = {"25": "city", "43": "town", "21": "borough_nyc"}
NJ_SUFFIXES = (" Township", " Borough", " Village", " Town", " City")

# A town remainder part thinner than this (m) or smaller than this (m²) is an artefact of generalised vs
# full-resolution lines, not land of the town outside its villages.
SLIVER_WIDTH_M = 60.0
SLIVER_AREA_M2 = 40_000.0


@dataclass
class Unit:
    id: str
    name: str
    kind: str
    county: str
    state: str
    source: str  # njogis | nybb | ny_cb | ny_village
    group: str  # nj | nyc | nys: units of one group share exact lines
    geom: BaseGeometry  # metric
    population: int
    full_name: str = ""
    alt_name: str = ""  # a longer unambiguous name, used when two territories would share ``name``
    notes: list[str] = field(default_factory=list)


@dataclass
class Straddler:
    id: str
    name: str
    county: str
    share_north: float
    included: bool


@dataclass
class Assembly:
    units: list[Unit]
    # municipalities not on the board (other NJ munis, other NY county subdivisions), metric; used for water
    outside: list[BaseGeometry]
    outside_groups: list[str]
    straddlers: list[Straddler]
    repaired: list[dict[str, Any]]
    dropped_towns: list[dict[str, Any]]
    overlaps_removed: list[dict[str, Any]]
    sliver_moves: list[dict[str, Any]]
    i195_line: BaseGeometry  # metric, extended
    river_cuts: list[RiverCut] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------- I-195


def i195_line(raw: Path, parts_used: list[int]) -> tuple[LineString, LineString]:
    """The merged I-195 line (metric) and the same line extended straight to far west and far east."""
    segs = sources.read_i195(raw)
    merged = shapely.line_merge(shapely.MultiLineString([segs[i] for i in parts_used]))
    if merged.geom_type != "LineString":
        raise ValueError(f"I-195 parts {parts_used} do not merge into one line: {merged.geom_type}")
    line = project(merged, "EPSG:4326")
    coords = list(line.coords)
    if coords[0][0] > coords[-1][0]:
        coords.reverse()  # west to east
    far = 150_000.0

    def _ext(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float]:
        dx, dy = b[0] - a[0], b[1] - a[1]
        n = (dx * dx + dy * dy) ** 0.5
        return (b[0] + dx / n * far, b[1] + dy / n * far)

    west = _ext(coords[1], coords[0])
    east = _ext(coords[-2], coords[-1])
    extended = LineString([west, *coords, east])
    return LineString(coords), extended


def north_polygon(extended: LineString) -> Polygon:
    c = list(extended.coords)
    top = max(y for _, y in c) + 400_000.0
    return Polygon([*c, (c[-1][0], top), (c[0][0], top)])


# --------------------------------------------------------------------------------------------------- names


def nj_names(rows: list[tuple[str, str, str, str]]) -> dict[str, str]:
    """(id, name field, type, county) -> name as people say it, unique on the board."""
    def strip(n: str) -> str:
        for s in (" Township", " Borough", " Village"):
            if n.endswith(s):
                return n[: -len(s)]
        return n

    short = {i: strip(n) for i, n, _, _ in rows}
    counts: dict[str, int] = {}
    for s in short.values():
        counts[s] = counts.get(s, 0) + 1
    full = {i: n for i, n, _, _ in rows}
    fcounts: dict[str, int] = {}
    for n in full.values():
        fcounts[n] = fcounts.get(n, 0) + 1
    out: dict[str, str] = {}
    for i, n, _t, county in rows:
        if counts[short[i]] == 1:
            out[i] = short[i]
        elif fcounts[n] == 1:
            out[i] = n
        else:
            out[i] = f"{n} ({county} County)"
    return out


# --------------------------------------------------------------------------------------------------- assembly


def assemble(raw: Path, config: dict[str, Any], progress: Any = None) -> Assembly:
    def step(msg: str) -> None:
        if progress is not None:
            progress(msg)

    repaired: list[dict[str, Any]] = []
    notes: list[str] = []

    # ---- New Jersey
    step("reading NJOGIS municipalities")
    nj_raw = sources.read_nj(raw)
    nj_pop = sources.read_nj_pop(raw)
    nj_cfg = config["nj"]
    whole = set(nj_cfg["whole_counties"])
    min_share = float(nj_cfg["i195_rule"]["min_share_north"])
    line, extended = i195_line(raw, list(nj_cfg["i195_rule"]["parts"]))
    north = north_polygon(extended)
    shapely.prepare(north)

    step("repairing and projecting New Jersey")
    nj_all: list[tuple[dict[str, Any], BaseGeometry]] = []
    for f in nj_raw:
        g = project(f.geometry, "EPSG:4326")
        g2, fixed = repair(g)
        if fixed:
            repaired.append({"id": f.props["census2010"], "name": f.props["mun_label"], "source": "NJOGIS",
                             "area_before_m2": round(abs(g.area), 1), "area_after_m2": round(g2.area, 1)})
        nj_all.append((f.props, g2))

    straddlers: list[Straddler] = []
    nj_selected: list[tuple[dict[str, Any], BaseGeometry]] = []
    nj_outside: list[BaseGeometry] = []
    for props, g in nj_all:
        county = str(props["county"]).title()
        gid = str(props["census2010"])
        share = 1.0
        if g.intersects(line.buffer(20_000)) or county not in whole:
            share = float(g.intersection(north).area / g.area) if g.area > 0 else 0.0
        included = county in whole or share >= min_share
        if 0.0005 < share < 0.9995:
            straddlers.append(Straddler(gid, str(props["mun_label"]), county, round(share, 4), included))
        if included:
            if gid not in nj_pop:
                raise ValueError(f"no 2020 population for NJ municipality {gid} {props['mun_label']}")
            nj_selected.append((props, g))
        else:
            nj_outside.append(g)
    names = nj_names([(str(p["census2010"]), str(p["name"]), str(p["mun_type"]), str(p["county"]).title())
                      for p, _ in nj_selected])
    units: list[Unit] = []
    for props, g in nj_selected:
        gid = str(props["census2010"])
        units.append(Unit(gid, names[gid], str(props["mun_type"]).lower(), str(props["county"]).title(), "NJ",
                          "njogis", "nj", g, nj_pop[gid], full_name=str(props["gnis_name"]),
                          alt_name=f"{props['name']} ({str(props['county']).title()} County)"))

    # ---- New York: county subdivisions, NYC, villages
    step("reading New York county subdivisions, NYC boroughs and villages")
    ny_cfg = config["ny"]
    cousub = sources.read_ny_cousub(raw)
    nybb = sources.read_nybb(raw)
    places = {str(f.props["GEOID"]): f for f in sources.read_ny_places(raw)}
    ct_pop = {str(r["FIPS_CODE"]): r for r in sources.read_nys_cities_towns(raw)}
    village_rows = sources.read_nys_villages(raw)
    county_pop = {str(r["FIPS_CODE"]): int(r["POP2020"]) for r in sources.read_nys_counties(raw)}

    whole_ny = {NY_COUNTY_FIPS[c] for c in ny_cfg["whole_counties"]}
    wc = ny_cfg["westchester"]
    wc_cities, wc_towns = set(wc["cities"]), set(wc["towns"])

    nyc_units: list[Unit] = []
    cb_units: list[Unit] = []
    cb_town_names: dict[tuple[str, str], str] = {}  # (county fips, town name) -> geoid
    ny_outside: list[BaseGeometry] = []
    borough_geoid: dict[str, tuple[str, str]] = {}
    step("taking the Hudson out of the New York towns")
    cs_geoms: list[tuple[dict[str, Any], BaseGeometry]] = []
    for f in cousub:
        g, fixed = repair(project(f.geometry, f.crs))
        if fixed:
            repaired.append({"id": f.props["GEOID"], "name": f.props["NAME"], "source": "Census cb 2019 cousub",
                             "area_after_m2": round(g.area, 1)})
        cs_geoms.append((f.props, g))
    cut_geoms, river_cuts = cut_river(cs_geoms)
    for (p, _), g in zip(cs_geoms, cut_geoms, strict=True):
        cfips, gid, name, lsad = str(p["COUNTYFP"]), str(p["GEOID"]), str(p["NAME"]), str(p["LSAD"])
        if cfips in NYC_COUNTY:
            borough_geoid[name] = (gid, cfips)
            continue
        g = clean(g, 1.0)
        kind = NY_LSAD_KIND.get(lsad)
        playable = cfips in whole_ny or (
            cfips == "119" and ((kind == "city" and name in wc_cities) or (kind == "town" and name in wc_towns))
        )
        if not playable:
            ny_outside.append(g)
            continue
        if kind is None:
            raise ValueError(f"unexpected LSAD {lsad} for {gid} {name}")
        if gid not in ct_pop:
            raise ValueError(f"no 2020 population for NY {kind} {gid} {name}")
        county = {"071": "Orange", "087": "Rockland", "119": "Westchester"}[cfips]
        label = name if kind == "city" else f"Town of {name}"
        cb_units.append(Unit(gid, label, kind, county, "NY", "ny_cb", "nys", g, int(ct_pop[gid]["POP2020"]),
                             full_name=f"{'City' if kind == 'city' else 'Town'} of {name}"))
        if kind == "town":
            cb_town_names[(cfips, name)] = gid

    if ny_cfg.get("nyc_boroughs", True):
        for f in nybb:
            bname = str(f.props["BoroName"])
            gid, cfips = borough_geoid[NYBB_TO_CB[bname]]
            g, fixed = repair(project(f.geometry, f.crs))
            if fixed:
                repaired.append({"id": gid, "name": bname, "source": "DCP nybb", "area_after_m2": g.area})
            nyc_units.append(Unit(gid, bname, "borough_nyc", NYC_COUNTY[cfips], "NY", "nybb", "nyc", g,
                                  county_pop["36" + cfips], full_name=f"Borough of {bname}"))

    step("clipping villages to land and cutting them out of their towns")
    playable_towns = {(c, n) for (c, n) in cb_town_names}
    ny_land = union_all(u.geom for u in cb_units)
    shapely.prepare(ny_land)
    villages: list[Unit] = []
    village_towns: dict[str, list[str]] = {}
    for r in village_rows:
        fips = str(r["FIPS_CODE"])
        cfips = fips[2:5]
        if cfips not in NY_COUNTY_FIPS.values():
            continue
        towns = [t.strip() for t in str(r["TOWN"]).split(",")]
        if cfips not in whole_ny and not any((cfips, t) in playable_towns for t in towns):
            continue
        pid = "36" + fips[-5:]
        if pid not in places:
            raise ValueError(f"village {r['NAME']} ({pid}) missing from TIGER places")
        pf = places[pid]
        g, fixed = repair(project(pf.geometry, pf.crs))
        if fixed:
            repaired.append({"id": pid, "name": r["NAME"], "source": "TIGER place 2019", "area_after_m2": g.area})
        g = clean(g.intersection(ny_land), 1.0)
        # drop crumbs left where the full-resolution village line runs just outside the generalised town line
        g = polygons_only(union_all(p for p in parts(g) if not is_sliver(p, 20.0, 2_000.0)))
        if g.is_empty:
            notes.append(f"village {r['NAME']} has no land inside the playable towns; skipped")
            continue
        county = {"071": "Orange", "087": "Rockland", "119": "Westchester"}[cfips]
        villages.append(Unit(pid, f"Village of {r['NAME']}", "village", county, "NY", "ny_village", "nys", g,
                             int(r["POP2020"]), full_name=f"Village of {r['NAME']}"))
        village_towns[pid] = towns

    vunion = union_all(v.geom for v in villages)
    dropped_towns: list[dict[str, Any]] = []
    sliver_moves: list[dict[str, Any]] = []
    kept_cb: list[Unit] = []
    vtree = shapely.STRtree([v.geom for v in villages])
    for u in cb_units:
        original = u.geom
        inside = vtree.query(original, predicate="intersects")
        if len(inside) == 0:
            kept_cb.append(u)
            continue
        # population: the town's count less the villages' (shared by land area for villages in two towns)
        vpop = 0.0
        for i in inside:
            v = villages[int(i)]
            share = v.geom.intersection(original).area / v.geom.area
            if share > 0.005:
                vpop += v.population * share
        remainder = clean(original.difference(vunion), 1.0)
        keep = [p for p in parts(remainder) if not is_sliver(p, SLIVER_WIDTH_M, SLIVER_AREA_M2)]
        slivers = [p for p in parts(remainder) if is_sliver(p, SLIVER_WIDTH_M, SLIVER_AREA_M2)]
        # slivers go to the village they touch most (they are generalisation artefacts)
        for s in slivers:
            best, best_len = None, 0.0
            for i in vtree.query(s.buffer(1.0), predicate="intersects"):
                v = villages[int(i)]
                ln = s.boundary.intersection(v.geom.buffer(1.0)).length
                if ln > best_len:
                    best, best_len = v, ln
            if best is not None:
                best.geom = clean(best.geom.union(s), 1.0)
                sliver_moves.append({"from": u.id, "to": best.id, "area_m2": round(s.area, 1)})
            elif keep:
                keep.append(s)
        pop_left = u.population - vpop
        if not keep:
            dropped_towns.append({"id": u.id, "name": u.name, "county": u.county,
                                  "town_population": u.population, "population_not_in_villages": round(pop_left)})
            continue
        u.geom = polygons_only(union_all(keep))
        u.population = max(0, round(pop_left))
        u.notes.append(f"town minus {len(inside)} village(s)")
        kept_cb.append(u)

    # ---- overlaps between sources
    step("resolving overlaps between sources")
    overlaps: list[dict[str, Any]] = []

    def subtract(targets: list[Unit], winners: list[Unit], label: str) -> None:
        if not winners:
            return
        wtree = shapely.STRtree([w.geom for w in winners])
        for t in targets:
            hits = wtree.query(t.geom, predicate="intersects")
            if len(hits) == 0:
                continue
            wu = union_all(winners[int(i)].geom for i in hits)
            inter = t.geom.intersection(wu).area
            if inter <= 0:
                continue
            g = clean(t.geom.difference(wu), 1.0)
            ps = parts(g)
            main = max(ps, key=lambda p: p.area)
            kept = [p for p in ps if p is main or not is_sliver(p, 20.0, 5_000.0)]
            dropped = sum(p.area for p in ps) - sum(p.area for p in kept)
            t.geom = polygons_only(union_all(kept))
            overlaps.append({"territory": t.id, "name": t.name, "lost_to": label, "overlap_m2": round(inter, 1),
                             "crumbs_dropped_m2": round(dropped, 1)})

    nj_units = units
    subtract(nj_units, nyc_units, "NYC (nybb)")
    nys_units = kept_cb + villages
    subtract(nys_units, nj_units, "New Jersey (NJOGIS)")
    subtract(nys_units, nyc_units, "NYC (nybb)")

    all_units = nj_units + nyc_units + nys_units
    for u in all_units:
        u.geom = clean(u.geom, 1.0)
        if u.geom.is_empty:
            raise ValueError(f"territory {u.id} {u.name} ended up empty")

    seen: dict[str, int] = {}
    for u in all_units:
        seen[u.name] = seen.get(u.name, 0) + 1
    for u in all_units:
        if seen[u.name] > 1 and u.alt_name:
            notes.append(f"name {u.name!r} is shared; {u.id} is called {u.alt_name!r}")
            u.name = u.alt_name
    if len({u.name for u in all_units}) != len(all_units):
        raise ValueError("territory names are not unique")

    outside = nj_outside + ny_outside
    outside_groups = ["nj"] * len(nj_outside) + ["nys"] * len(ny_outside)
    _ = METRIC_CRS
    return Assembly(all_units, outside, outside_groups, straddlers, repaired, dropped_towns, overlaps,
                    sliver_moves, extended, river_cuts, notes)
