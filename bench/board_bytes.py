"""The board's bytes on the wire, GeoJSON (``GET /api/v1/board``) against TopoJSON (shared borders once, coordinates
as delta-encoded integers: turf_common.board.topology), raw and gzipped at the gateway's level; and a check that the
TopoJSON decodes to the same rings, vertex for vertex.

    .venv/bin/python -m bench.board_bytes
"""

from __future__ import annotations

import gzip
import json
from typing import Any

from turf_common.board import load_board
from turf_common.board.topology import topology

UNOWNED = {"owner_id": None, "progress": 0, "fortified": False}


def _decode_rings(topo: dict[str, Any]) -> dict[str, list[list[list[tuple[int, int]]]]]:
    """Territory id → its polygons' rings in quantized integers, decoded as a page would."""
    arcs = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            pts.append((x, y))
        arcs.append(pts)

    def ring(refs: list[int]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for r in refs:
            pts = arcs[r] if r >= 0 else arcs[~r][::-1]
            out.extend(pts if not out else pts[1:])
        return out

    out = {}
    for g in topo["objects"]["board"]["geometries"]:
        polys = [g["arcs"]] if g["type"] == "Polygon" else g["arcs"]
        out[g["id"]] = [[ring(r) for r in poly] for poly in polys]
    return out


def _same_ring(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    """Equal closed rings, whatever vertex each starts at."""
    a, b = a[:-1], b[:-1]
    if len(a) != len(b):
        return False
    k = b.index(a[0]) if a[0] in b else -1
    return k >= 0 and b[k:] + b[:k] == a


def main() -> None:
    board = load_board()
    features = json.loads(board.display_geojson_path().read_text())["features"]
    feats = [{"type": "Feature", "id": f["properties"]["id"], "geometry": f["geometry"],
              "properties": board.feature_properties(f["properties"]["id"]) | UNOWNED} for f in features]
    geo = json.dumps({"type": "FeatureCollection", "features": feats}, separators=(",", ":")).encode()
    topo = topology(feats)
    tbody = json.dumps(topo, separators=(",", ":")).encode()

    decoded = _decode_rings(topo)
    tx, ty = topo["transform"]["translate"]
    bad = 0
    for f in feats:
        g = f["geometry"]
        polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        want = [[[(round((x - tx) / 1e-5), round((y - ty) / 1e-5)) for x, y in r] for r in p] for p in polys]
        got = decoded[f["id"]]
        bad += sum(not _same_ring(w, g2) for wp, gp in zip(want, got, strict=True)
                   for w, g2 in zip(wp, gp, strict=True))
    points = sum(len(a) for a in topo["arcs"])
    print(f"towns {len(feats)}, arcs {len(topo['arcs'])}, arc points {points}, rings not decoded alike: {bad}")
    for label, body in (("GeoJSON", geo), ("TopoJSON", tbody)):
        print(f"{label:9} {len(body):>9,} B raw {len(gzip.compress(body, 6)):>9,} B gzip")


if __name__ == "__main__":
    main()
