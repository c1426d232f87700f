"""Geometry helpers: projection, validity repair, polygon extraction, label points."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

METRIC_CRS = "EPSG:32618"  # UTM 18N, the loader uses the same

_transformers: dict[tuple[str, str], Transformer] = {}


def transformer(src: str, dst: str) -> Transformer:
    key = (src, dst)
    if key not in _transformers:
        _transformers[key] = Transformer.from_crs(src, dst, always_xy=True)
    return _transformers[key]


def project(geom: BaseGeometry, src: str, dst: str = METRIC_CRS) -> BaseGeometry:
    tr = transformer(src, dst)

    def _f(coords: np.ndarray) -> np.ndarray:
        x, y = tr.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geom, _f)


def to_wgs84(geom: BaseGeometry) -> BaseGeometry:
    return project(geom, METRIC_CRS, "EPSG:4326")


def polygons_only(geom: BaseGeometry | None, min_area: float = 0.0) -> BaseGeometry:
    """Keep only the polygonal parts of ``geom`` (optionally dropping parts under ``min_area``)."""
    parts: list[Polygon] = []
    if geom is None or geom.is_empty:
        return MultiPolygon()
    stack: list[BaseGeometry] = [geom]
    while stack:
        g = stack.pop()
        if isinstance(g, Polygon):
            if not g.is_empty and g.area > min_area:
                parts.append(g)
        elif hasattr(g, "geoms"):
            stack.extend(g.geoms)
    if not parts:
        return MultiPolygon()
    if len(parts) == 1:
        return parts[0]
    return MultiPolygon(parts)


def repair(geom: BaseGeometry) -> tuple[BaseGeometry, bool]:
    """Return a valid polygonal geometry and whether a repair was needed."""
    if geom.is_valid:
        return polygons_only(geom), False
    return polygons_only(shapely.make_valid(geom)), True


def clean(geom: BaseGeometry, min_area: float = 1.0) -> BaseGeometry:
    """Valid, polygons only, dropping crumbs under ``min_area`` m²."""
    if not geom.is_valid:
        geom = shapely.make_valid(geom)
    return polygons_only(geom, min_area)


def parts(geom: BaseGeometry) -> list[Polygon]:
    g = polygons_only(geom)
    if isinstance(g, Polygon):
        return [g]
    return list(getattr(g, "geoms", []))


def union_all(geoms: Iterable[BaseGeometry]) -> BaseGeometry:
    gl = [g for g in geoms if g is not None and not g.is_empty]
    if not gl:
        return MultiPolygon()
    return shapely.union_all(gl)


def label_point(geom_m: BaseGeometry) -> BaseGeometry:
    """A point well inside the largest part (pole of inaccessibility, 10 m tolerance)."""
    ps = parts(geom_m)
    biggest = max(ps, key=lambda p: p.area)
    try:
        pt = polylabel(biggest, tolerance=10.0)
        if biggest.contains(pt):
            return pt
    except Exception:  # pragma: no cover - polylabel fails on degenerate input only
        pass
    return biggest.representative_point()


def is_sliver(poly: BaseGeometry, width_m: float, min_area: float) -> bool:
    """True when a polygon is thin (vanishes under an inward buffer of width/2) or tiny."""
    if poly.area < min_area:
        return True
    return bool(poly.buffer(-width_m / 2.0).is_empty)
