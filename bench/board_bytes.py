"""The board's bytes on the wire, GeoJSON (``GET /api/v1/board``) against TopoJSON (shared borders once, coordinates
as delta-encoded integers: turf_common.board.topology), raw and gzipped at the gateway's level; and a check that the
TopoJSON decodes to the same rings, vertex for vertex.

    .venv/bin/python -m bench.board_bytes
"""

from __future__ import annotations

import gzip
import json

from turf_common.board import load_board
from turf_common.board.topology import decode, same_ring, topology

UNOWNED = {"owner_id": None, "progress": 0, "fortified": False}


def main() -> None:
    board = load_board()
    features = json.loads(board.display_geojson_path().read_text())["features"]
    feats = [{"type": "Feature", "id": f["properties"]["id"], "geometry": f["geometry"],
              "properties": board.feature_properties(f["properties"]["id"]) | UNOWNED} for f in features]
    geo = json.dumps({"type": "FeatureCollection", "features": feats}, separators=(",", ":")).encode()
    topo = topology(feats)
    tbody = json.dumps(topo, separators=(",", ":")).encode()

    decoded = decode(topo)
    bad = 0
    for f in feats:
        g = f["geometry"]
        polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        # to the metre: a handful of vertices (where the build cut a border) have more than five decimals
        want = [[[(round(x, 5), round(y, 5)) for x, y in r] for r in p] for p in polys]
        got = decoded[f["id"]]
        bad += sum(not same_ring(w, g2) for wp, gp in zip(want, got, strict=True)
                   for w, g2 in zip(wp, gp, strict=True))
    points = sum(len(a) for a in topo["arcs"])
    print(f"towns {len(feats)}, arcs {len(topo['arcs'])}, arc points {points}, rings not decoded alike: {bad}")
    for label, body in (("GeoJSON", geo), ("TopoJSON", tbody)):
        print(f"{label:9} {len(body):>9,} B raw {len(gzip.compress(body, 6)):>9,} B gzip")


if __name__ == "__main__":
    main()
