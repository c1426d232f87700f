"""The board's display polygons as TopoJSON (https://github.com/topojson/topojson-specification): every border two
towns share is stored once, as an arc both refer to, and the coordinates as delta-encoded integers. The display
board is already simplified topologically (neighbours' shared vertices are equal), and its coordinates have five
decimals, so a scale of 1e-5 degrees quantizes them to the metre: decoded, each ring is the GeoJSON ring it came
from, vertex for vertex (the few vertices with more decimals, where the build cut a border, rounded to 1e-5°).

Shapes: ``features`` are GeoJSON Features with Polygon or MultiPolygon geometries (rings closed, [lon, lat]);
:func:`topology` returns ``{type: "Topology", transform: {scale, translate}, arcs, objects: {name:
GeometryCollection}}``, each geometry with the feature's ``id`` and ``properties`` (``properties`` taken from
``props(feature)`` when given)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import Any

Point = tuple[float, float]
Ring = list[Point]

SCALE = 1e-5   # degrees per quantized unit: the display board's five decimals


def _polygons(geometry: dict[str, Any]) -> list[list[Ring]]:
    coords = geometry["coordinates"]
    polys = [coords] if geometry["type"] == "Polygon" else coords
    return [[[(p[0], p[1]) for p in ring] for ring in poly] for poly in polys]


def _junctions(rings: Iterable[Ring]) -> set[Point]:
    """Points where a border starts or ends: a vertex whose neighbours differ between the rings through it."""
    seen: dict[Point, frozenset[Point]] = {}
    out: set[Point] = set()
    for ring in rings:
        n = len(ring) - 1   # closed: ring[0] == ring[-1]
        for i in range(n):
            p, pair = ring[i], frozenset((ring[i - 1], ring[i + 1]))
            if p in seen and seen[p] != pair:
                out.add(p)
            seen.setdefault(p, pair)
    return out


def _cut(ring: Ring, junctions: set[Point]) -> list[Ring]:
    """A closed ring as arcs from junction to junction; a ring with none, as itself started at its least point (so
    two copies of an island, one each way, start alike)."""
    body = ring[:-1]
    starts = [i for i, p in enumerate(body) if p in junctions]
    if not starts:
        k = body.index(min(body))
        body = body[k:] + body[:k]
        return [[*body, body[0]]]
    k = starts[0]
    body = body[k:] + body[:k]
    cuts = [i - k if i >= k else i - k + len(body) for i in starts] + [len(body)]
    looped = [*body, body[0]]
    return [looped[a:b + 1] for a, b in pairwise(cuts)]


class _Arcs:
    """Arcs kept once: an arc met again backwards is referred to as ``~index`` (TopoJSON's one's complement)."""

    def __init__(self) -> None:
        self.arcs: list[Ring] = []
        self.index: dict[tuple[Point, ...], int] = {}

    def ref(self, arc: Ring) -> int:
        key = tuple(arc)
        if key in self.index:
            return self.index[key]
        back = tuple(reversed(arc))
        if back in self.index:
            return ~self.index[back]
        if arc[0] == arc[-1]:   # a closed arc (an island) met from another start point backwards
            body = list(back[:-1])
            k = body.index(min(body))
            turned = tuple([*body[k:], *body[:k], body[k]])
            if turned in self.index:
                return ~self.index[turned]
        self.index[key] = len(self.arcs)
        self.arcs.append(arc)
        return self.index[key]


def _quantized(arc: Ring, x0: float, y0: float) -> list[list[int]]:
    out, px, py = [], 0, 0
    for x, y in arc:
        qx, qy = round((x - x0) / SCALE), round((y - y0) / SCALE)
        out.append([qx - px, qy - py])
        px, py = qx, qy
    return out


def topology(features: list[dict[str, Any]], name: str = "board",
             props: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The features as one TopoJSON topology (see the module's docstring for the shapes)."""
    shapes = [_polygons(f["geometry"]) for f in features]
    junctions = _junctions(ring for polys in shapes for poly in polys for ring in poly)
    arcs = _Arcs()
    geometries = []
    for f, polys in zip(features, shapes, strict=True):
        refs = [[[arcs.ref(a) for a in _cut(ring, junctions)] for ring in poly] for poly in polys]
        geometry: dict[str, Any] = ({"type": "Polygon", "arcs": refs[0]} if f["geometry"]["type"] == "Polygon"
                                    else {"type": "MultiPolygon", "arcs": refs})
        geometry["id"] = f.get("id", f["properties"].get("id"))
        geometry["properties"] = props(f) if props else f["properties"]
        geometries.append(geometry)
    points = [p for arc in arcs.arcs for p in arc] or [(0.0, 0.0)]
    x0, y0 = min(p[0] for p in points), min(p[1] for p in points)
    return {"type": "Topology", "transform": {"scale": [SCALE, SCALE], "translate": [x0, y0]},
            "arcs": [_quantized(a, x0, y0) for a in arcs.arcs],
            "objects": {name: {"type": "GeometryCollection", "geometries": geometries}}}


def decode(topo: dict[str, Any], name: str = "board") -> dict[str, list[list[Ring]]]:
    """What a page decodes (``static/js/topo.js``): geometry id → its polygons' rings, [lon, lat] in degrees to
    1e-5° (the quantum), each ring closed. The inverse of :func:`topology` up to that rounding."""
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    arcs: list[Ring] = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            pts.append((round(x * sx + tx, 5), round(y * sy + ty, 5)))
        arcs.append(pts)

    def ring(refs: list[int]) -> Ring:
        out: Ring = []
        for r in refs:   # a negative ref is arc ~r backwards; consecutive arcs share their joining point
            pts = arcs[r] if r >= 0 else arcs[~r][::-1]
            out.extend(pts if not out else pts[1:])
        return out

    out = {}
    for g in topo["objects"][name]["geometries"]:
        polys = [g["arcs"]] if g["type"] == "Polygon" else g["arcs"]
        out[g["id"]] = [[ring(r) for r in poly] for poly in polys]
    return out


def same_ring(a: Ring, b: Ring) -> bool:
    """Equal closed rings, whatever vertex each starts at (a decoded ring may start at another junction)."""
    a, b = a[:-1], b[:-1]
    return len(a) == len(b) and a[0] in b and b[b.index(a[0]):] + b[:b.index(a[0])] == a
