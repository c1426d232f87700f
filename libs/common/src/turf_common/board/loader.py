"""Load the committed game board (R21, R22, R24).

The board is built offline by ``turfwar board build`` from the raw boundary files and committed under
``DEFAULT_BOARD_DIR``. Nothing here touches the network.

Point lookups run on geometries projected to UTM zone 18N (EPSG:32618), so ``border_distance_m`` is in metres.
"""

from __future__ import annotations

import json
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
    territory_id: str | None
    border_distance_m: float | None


class Board:
    """The territories, their adjacency graph and point lookup."""

    def __init__(self, territories: dict[str, Territory], graph: nx.Graph, directory: Path) -> None:
        self.territories = territories
        self.graph = graph
        self.directory = directory
        self._ids: list[str] = list(territories)
        self._metric: list[BaseGeometry] = [to_metric(territories[t].geometry) for t in self._ids]
        shapely.prepare(self._metric)
        self._boundaries = [g.boundary for g in self._metric]
        self._tree = shapely.STRtree(self._metric)

    def __len__(self) -> int:
        return len(self.territories)

    def locate(self, lat: float, lon: float) -> Location:
        return self.locate_many([lat], [lon])[0]

    def locate_many(self, lats: Sequence[float] | np.ndarray, lons: Sequence[float] | np.ndarray) -> list[Location]:
        lat_a = np.asarray(lats, dtype=float)
        lon_a = np.asarray(lons, dtype=float)
        if lat_a.shape != lon_a.shape:
            raise ValueError("lats and lons must have the same length")
        if lat_a.size == 0:
            return []
        x, y = _TO_METRIC.transform(lon_a, lat_a)
        points = shapely.points(np.asarray(x), np.asarray(y))
        pt_idx, geom_idx = self._tree.query(points, predicate="intersects")
        hit: dict[int, int] = {}
        for p, g in zip(pt_idx.tolist(), geom_idx.tolist(), strict=True):
            # Territories do not overlap; on a shared border keep the lowest index for determinism.
            if p not in hit or g < hit[p]:
                hit[p] = g
        out: list[Location] = [Location(None, None)] * len(points)
        if hit:
            ps = np.fromiter(hit.keys(), dtype=int)
            gs = np.fromiter(hit.values(), dtype=int)
            bounds = np.array([self._boundaries[g] for g in gs], dtype=object)
            dists = shapely.distance(points[ps], bounds)
            for p, g, d in zip(ps.tolist(), gs.tolist(), dists.tolist(), strict=True):
                out[p] = Location(self._ids[g], float(d))
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


def load_board(path: Path | None = None) -> Board:
    """Load the board from ``path`` (default: the committed board). Cached per directory."""
    directory = Path(path) if path is not None else DEFAULT_BOARD_DIR
    return _load_cached(str(directory.resolve()))
