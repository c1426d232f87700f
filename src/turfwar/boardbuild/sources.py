"""Readers for the raw boundary and population files (see shared/data/raw/PROVENANCE.md)."""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyogrio
import shapefile
import shapely
from shapely.geometry.base import BaseGeometry

NJ_TOPOJSON = "nj_njogis/new-jersey-municipalities-topojson.json"
NY_COUSUB = "ny_census_cousub_2019/cb_2019_36_cousub_500k.shp"
NY_PLACE = "census_tiger_place_2019/tl_2019_36_place.zip"
NJ_PLACE = "census_tiger_place_2019/tl_2019_34_place.zip"  # water-line screen (R22): Census ALAND
NYBB = "nyc_boroughs_dcp/nybb.shp"
NJ_POP = "population_2020/nj_municipalities_pop2020.csv"
NYS_DIR = "population_2020/nys_civil_boundaries_2024"
I195 = "roads/i195_nj_naturalearth10m.geojson"

# Every file whose checksum goes into the manifest.
SOURCE_FILES = [
    NJ_TOPOJSON,
    "ny_census_cousub_2019/cb_2019_36_cousub_500k.dbf",
    "ny_census_cousub_2019/cb_2019_36_cousub_500k.shp",
    NY_PLACE,
    NJ_PLACE,
    NYBB,
    "nyc_boroughs_dcp/nybb.dbf",
    NJ_POP,
    f"{NYS_DIR}/Cities_Towns.dbf",
    f"{NYS_DIR}/Villages.dbf",
    f"{NYS_DIR}/Counties.dbf",
    I195,
]


@dataclass
class RawFeature:
    props: dict[str, Any]
    geometry: BaseGeometry
    crs: str
    extra: dict[str, Any] = field(default_factory=dict)


def _read(path: str) -> list[RawFeature]:
    meta, _fids, geoms, fields = pyogrio.raw.read(path)
    crs = meta.get("crs") or "EPSG:4326"
    names = list(meta["fields"])
    shp = shapely.from_wkb(geoms)
    out: list[RawFeature] = []
    for i, g in enumerate(shp):
        props = {n: _py(fields[j][i]) for j, n in enumerate(names)}
        out.append(RawFeature(props, g, crs))
    return out


def _py(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    return v


def read_nj(raw: Path) -> list[RawFeature]:
    return _read(str(raw / NJ_TOPOJSON))


def read_ny_cousub(raw: Path) -> list[RawFeature]:
    return _read(str(raw / NY_COUSUB))


def read_ny_places(raw: Path) -> list[RawFeature]:
    return _read(f"/vsizip/{raw / NY_PLACE}")


def read_nj_place_aland(raw: Path) -> dict[str, int]:
    """Census 2019 land area (m²) of each New Jersey place, by 7-digit place GEOID (boroughs, cities, towns)."""
    _meta, _fids, _geoms, fields = pyogrio.raw.read(f"/vsizip/{raw / NJ_PLACE}", columns=["GEOID", "ALAND"],
                                                   read_geometry=False)
    return {str(g): int(a) for g, a in zip(fields[0], fields[1], strict=True)}


def read_nybb(raw: Path) -> list[RawFeature]:
    return _read(str(raw / NYBB))


def read_nj_pop(raw: Path) -> dict[str, int]:
    with open(raw / NJ_POP, newline="", encoding="utf-8") as fh:
        return {row["geoid"]: int(row["pop2020"]) for row in csv.DictReader(fh)}


def _dbf(path: Path) -> list[dict[str, Any]]:
    with open(path, "rb") as fh:
        r = shapefile.Reader(dbf=fh)
        return [rec.as_dict() for rec in r.records()]


def read_nys_cities_towns(raw: Path) -> list[dict[str, Any]]:
    return _dbf(raw / NYS_DIR / "Cities_Towns.dbf")


def read_nys_villages(raw: Path) -> list[dict[str, Any]]:
    return _dbf(raw / NYS_DIR / "Villages.dbf")


def read_nys_counties(raw: Path) -> list[dict[str, Any]]:
    return _dbf(raw / NYS_DIR / "Counties.dbf")


def read_i195(raw: Path) -> dict[int, list[tuple[float, float]]]:
    with open(raw / I195, encoding="utf-8") as fh:
        fc = json.load(fh)
    return {
        int(f["properties"]["order"]): [tuple(c) for c in f["geometry"]["coordinates"]] for f in fc["features"]
    }


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
